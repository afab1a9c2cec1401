/*
 * The control socket's requests (smtctl): control.c reads lines, this
 * module answers them (control_requests.c lists what it answers).
 */
#ifndef SMTWC_CONTROL_REQUESTS_H
#define SMTWC_CONTROL_REQUESTS_H

#include "compositor/control/json_writer.h"

struct smtwc_server;

/* Answers one request line (without its newline) into w. */
void control_answer(struct smtwc_server *server, char *line, struct json_writer *w);

#endif

/*
 * Input devices for tests that no virtual-input protocol can make
 * (touchpad gestures, a drawing tablet's pen), driven over the control
 * socket on the headless backend only.
 */
#ifndef SMTWC_TEST_INPUT_H
#define SMTWC_TEST_INPUT_H

#include "compositor/control/json_writer.h"
#include "compositor/server.h"

/* Test facility, headless backend only: input no virtual-input protocol can
 * make, from devices the headless backend creates, as if a touchpad or a
 * drawing tablet were plugged in.
 *   input swipe FINGERS DX DY   a swipe: begin, one update, end
 *   input pinch FINGERS SCALE   a pinch: begin, one update, end
 *   input tablet X Y            a pen stroke at layout point (X, Y):
 *                               proximity in, tip down, a move of (+10, +10)
 *                               at half pressure, tip up, proximity out */
void test_input_answer(struct smtwc_server *server, const char *what, const char *args,
		struct json_writer *w);
void test_input_finish(struct smtwc_server *server);
/* The headless backend the test facilities use (here and `output add` in
 * control_requests.c), NULL on any other. */
struct wlr_backend *test_input_headless_backend(struct smtwc_server *server);

#endif

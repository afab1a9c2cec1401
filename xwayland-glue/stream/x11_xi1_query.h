/*
 * Finds, among a client's requests (as its request framer hands them over,
 * x11_request_framer.h), its QueryExtension for "XInputExtension", so that
 * the X server's reply to it tells the input boost which event codes are
 * XInput 1 device events (x11_input_scan.h). Their codes are the
 * extension's first event plus 1-5, and the first event is decided by the
 * X server at start: the server half learns it from the first reply that
 * says it.
 *
 * The requests are the client's, so they may lie: a lying client can only
 * make its own reply be read wrongly, and a reply is only believed when it
 * says the extension is present with a first event in 64-127, the range of
 * extension events.
 */
#ifndef SMT_X11_XI1_QUERY_H
#define SMT_X11_XI1_QUERY_H

#include <stdbool.h>
#include <stdint.h>

#include "xwayland-glue/stream/x11_request_framer.h"

struct x11_xi1_query {
	bool asked;         /* a QueryExtension for XInputExtension seen */
	uint16_t asked_seq; /* its sequence number */
};

/* Watches f's requests until the question is seen (then its reply is what
 * matters, and f's watch ends). */
void x11_xi1_query_watch(struct x11_xi1_query *q, struct x11_request_framer *f);

#endif

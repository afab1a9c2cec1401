/*
 * Finds, among a client's requests (as its request framer hands them over,
 * x11_request_framer.h), its QueryExtension for "XInputExtension", so that
 * the X server's reply to it tells the input boost which event codes are
 * XInput 1 device events (x11_input_scan.h). Their codes are the
 * extension's first event plus 1-5, and the first event is decided by the
 * X server at start: the server half learns it from the first reply that
 * says it.
 *
 * The requests are the client's, so they may lie, and a reply is only
 * believed when it says the extension is present with a first event in
 * 64-127, the range of extension events. What it learns is the X server's
 * for every client, so the question must be the one the X server answers
 * under that sequence number:
 * - only the exact request: 24 bytes (the X server refuses any other
 *   length with BadLength and sends no reply; its sequence number comes
 *   round again 65,536 requests later on another QueryExtension's reply,
 *   and x11_input_scan.h gives up at an error or a later number);
 * - nothing after a request of length 0: with BIG-REQUESTS enabled the X
 *   server reads a 32-bit length after it, without it reads 4 bytes, and
 *   the framer cannot know which, so a client that lied so would count its
 *   requests differently from the X server and could have another
 *   extension's reply (the first event of its choice) taken for XInput's.
 *   Programs ask for XInput at start, long before an image big enough for
 *   BIG-REQUESTS.
 */
#ifndef SMT_X11_XI1_QUERY_H
#define SMT_X11_XI1_QUERY_H

#include <stdbool.h>
#include <stdint.h>

#include "xwayland-glue/stream/x11_request_framer.h"

struct x11_xi1_query {
	bool asked;         /* a QueryExtension for XInputExtension seen */
	uint16_t asked_seq; /* its sequence number */
	bool lost;          /* a request of length 0 came first: never asked */
};

/* Watches f's requests until the question is seen (then its reply is what
 * matters, and f's watch ends). */
void x11_xi1_query_watch(struct x11_xi1_query *q, struct x11_request_framer *f);

#endif

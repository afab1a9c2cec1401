/*
 * Finds, in a client's request stream (fed in arbitrary pieces), its
 * QueryExtension for "XInputExtension", so that the X server's reply to it
 * tells the input boost which event codes are XInput 1 device events
 * (x11_input_scan.h). Their codes are the extension's first event plus 1-5,
 * and the first event is decided by the X server at start: the server half
 * learns it from the first reply that says it.
 *
 * The stream is the client's, so it may lie: the watcher only follows the
 * lengths it is given and never reads past what it was fed, and a reply is
 * only believed when it says the extension is present with a first event
 * in 64-127, the range of extension events. What it learns is the X
 * server's for every client, so the question must be the one the X server
 * answers under that sequence number:
 * - only the exact request: length 6 (the X server refuses any other with
 *   BadLength and sends no reply; its sequence number came round again
 *   65,536 requests later on another QueryExtension's reply);
 * - nothing after a request of length 0: with BIG-REQUESTS enabled the X
 *   server reads a 32-bit length after it, without (a client that never
 *   sent BigReqEnable) it reads 4 bytes, and the watcher cannot know
 *   which: a client that lied so counted its requests differently from
 *   the X server and had another extension's reply (the first event of its
 *   choice) taken for XInput's. Programs ask for XInput at start, long
 *   before an image big enough for BIG-REQUESTS.
 *
 * The stream starts with the connection setup (12 bytes whose first gives
 * the byte order, then the padded authorization name and data); requests
 * are numbered from 1 (the X server's sequence numbers, 16 bits on the
 * wire). A request's length is in 4-byte units at bytes 2-3; 0 is a
 * BIG-REQUESTS request whose 32-bit length follows.
 */
#ifndef SMT_X11_XI1_QUERY_H
#define SMT_X11_XI1_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct x11_xi1_query {
	uint64_t skip;   /* bytes of the current request left to pass */
	uint8_t hdr[24]; /* the request's first bytes collected so far */
	uint8_t have, want;
	uint8_t setup_done;
	uint8_t msb_first;
	uint16_t seq;       /* the current request's sequence number */
	bool asked;         /* a QueryExtension for XInputExtension seen */
	uint16_t asked_seq; /* its sequence number */
	bool lost;          /* a request of length 0: the framing is not known */
};

void x11_xi1_query_feed(struct x11_xi1_query *q, const uint8_t *p, size_t n);

#endif

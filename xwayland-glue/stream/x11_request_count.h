/*
 * Counts X requests in a client's byte stream, fed in arbitrary pieces.
 *
 * Only for statistics (smt-x11run --stats): the X server does the real
 * parsing, on its own copy. A lying client only miscounts its own requests,
 * so the counter never fails; it just follows the lengths it is given.
 *
 * The stream starts with the connection setup (12-byte header whose first
 * byte gives the byte order, then the padded authorization name and data),
 * which is not counted. Each request then has a 4-byte header with its
 * length in 4-byte units; length 0 is a BIG-REQUESTS request whose 32-bit
 * length follows the header.
 */
#ifndef SMT_X11_REQUEST_COUNT_H
#define SMT_X11_REQUEST_COUNT_H

#include <stddef.h>
#include <stdint.h>

struct x11_request_count {
	uint64_t requests;
	uint64_t skip;   /* bytes of the current request left to pass */
	uint8_t hdr[12]; /* header bytes collected so far */
	uint8_t have;
	uint8_t setup_done;
	uint8_t msb_first; /* byte order from the setup's first byte */
};

void x11_request_count_feed(struct x11_request_count *c, const uint8_t *p, size_t n);

/* How much of a read of `count` bytes to hand over so that the reader gets
 * the rest of the request under way (or of the header being collected)
 * and at most `extra` bytes of what follows: whatever it buffers beyond
 * the request it runs is less than one request of more than `extra`
 * bytes. Never cuts before the connection setup is past: then all of
 * `count`. */
size_t x11_request_cut(const struct x11_request_count *c, size_t count, size_t extra);

#endif

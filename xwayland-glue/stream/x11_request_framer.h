/*
 * Frames an X client's request stream, fed in arbitrary pieces: the one
 * walk over the bytes the X server reads from a client. It counts the
 * requests (the statistics, smt-x11run --stats, and the ring's published
 * count), knows where the request under way ends (the input boost's short
 * reads), and hands the requests of one watched major opcode, with their
 * first bytes and sequence number, to a watcher (x11_xi1_query.h: the
 * client's QueryExtension for XInput).
 *
 * The X server does the real parsing, on its own copy. The stream is the
 * client's, so it may lie: the framer only follows the lengths it is
 * given, never reads past what it was fed and never fails; a lying client
 * only miscounts its own requests and has its own requests watched wrongly.
 *
 * The stream starts with the connection setup (a 12-byte header whose
 * first byte gives the byte order, then the padded authorization name and
 * data), which is not a request. Each request then has a 4-byte header
 * (major opcode, a data byte, the length in 4-byte units); length 0 is a
 * BIG-REQUESTS request whose 32-bit length follows the header, and whose
 * fields start after that (as the X server sees it: it moves the header
 * over the length word). Requests are numbered from 1, the X server's
 * sequence numbers (16 bits on the wire).
 */
#ifndef SMT_X11_REQUEST_FRAMER_H
#define SMT_X11_REQUEST_FRAMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most of a watched request's fields a watcher may ask for. */
#define X11_REQUEST_WATCH_MAX 24

/* A watched request, as far as the framer collected it. */
struct x11_request_view {
	uint8_t opcode, data;  /* its header's first two bytes */
	const uint8_t *fields; /* what follows the length (and the BIG-REQUESTS length) */
	size_t fields_have;    /* how many of them: the watch's count, fewer if it is shorter */
	uint64_t len;          /* the whole request in bytes (at least its header) */
	uint64_t seq;          /* its sequence number */
	bool msb_first;        /* the connection's byte order */
	bool big;              /* length 0: BIG-REQUESTS form (handed over whatever its opcode) */
};

struct x11_request_framer;
/* Called once per watched request, when its first bytes are in (and
 * counted), and once per request of length 0 while a watch is on, whatever
 * its opcode: only the X server knows whether such a request is followed
 * by a 32-bit length (BIG-REQUESTS enabled) or is 4 bytes long, so the
 * framing after it may not be the X server's. It may end or change the
 * watch. */
typedef void x11_request_watcher(
		void *ctx, struct x11_request_framer *f, const struct x11_request_view *r);

struct x11_request_framer {
	uint64_t requests; /* framed so far: the last one's sequence number */
	uint64_t skip;     /* bytes of the current request (or setup) left to pass */
	/* the current element's first bytes collected so far: its header, and
	 * a watched request's fields */
	uint8_t head[8 + X11_REQUEST_WATCH_MAX];
	uint8_t have;
	uint8_t setup_done;
	/* The request under way is in BIG-REQUESTS form (length 0) but would
	 * fit the ordinary form: libxcb never sends one (it uses the big form
	 * only past 65,535 units), and a client that has not enabled
	 * BIG-REQUESTS gets it read by the X server as a 4-byte request, so
	 * the 32-bit length we took is not the X server's: the cut does not
	 * trust `skip` then. */
	uint8_t odd_big;
	uint8_t msb_first; /* byte order from the setup's first byte */
	/* The watch (none while `watcher` is NULL): requests with this major
	 * opcode go to the watcher with their first `watch_fields` field bytes. */
	uint8_t watch_opcode;
	uint8_t watch_fields;
	x11_request_watcher *watcher;
	void *watcher_ctx;
};

/* A zeroed framer is at the start of a stream, with no watch. */
void x11_request_framer_feed(struct x11_request_framer *f, const uint8_t *p, size_t n);

/* Hands the requests with major opcode `opcode` to `watcher` from now on,
 * with up to `fields` (at most X11_REQUEST_WATCH_MAX) of their field bytes. */
void x11_request_framer_watch(struct x11_request_framer *f, uint8_t opcode, uint8_t fields,
		x11_request_watcher *watcher, void *ctx);
void x11_request_framer_unwatch(struct x11_request_framer *f);

/* How much of a read of `count` bytes to hand over so that the reader gets
 * the rest of the request under way (or of the header being collected)
 * and at most `extra` bytes of what follows: whatever it buffers beyond
 * the request it runs is less than one request of more than `extra`
 * bytes. Never cuts before the connection setup is past: then all of
 * `count`.
 *
 * The rest of the request under way is believed only where the X server
 * frames it as we do. The X server reads only when it holds no whole
 * request, and then asks for at least the rest of the one it is reading
 * (xserver's ReadRequestFromClient grows its buffer for it), so a `count`
 * below the rest we counted means it framed the stream otherwise (a
 * request of length 0 it took as 4 bytes, without BIG-REQUESTS); so does
 * `odd_big`. Then the read gets `extra` bytes and no more: a client that
 * lies about its lengths keeps no whole buffers, it only reads in small
 * pieces. */
size_t x11_request_framer_cut(const struct x11_request_framer *f, size_t count, size_t extra);

static inline bool x11_request_framer_watching(const struct x11_request_framer *f)
{
	return f->watcher != NULL;
}

#endif

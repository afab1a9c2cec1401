/*
 * What the X server writes to one client (the connection setup's reply,
 * then replies, events and errors), framed across writes, and one write's
 * repeated PropertyNotify left out (docs/x11.md "The window manager's
 * events"; xwayland-glue/xserver/wm_events.c applies it to the window
 * manager's connection).
 *
 * An X client changing a property in a loop makes the X server queue a
 * PropertyNotify for every change to every client watching the window:
 * wlroots' window manager, in the compositor, would read each one. Of two
 * PropertyNotify for the same window, property and state in one write,
 * the later tells the window manager nothing the earlier does not: it
 * reads the property when it handles the event. So only the first is
 * written, unless a DestroyNotify comes between them (the window's id may
 * come back as another window). Across writes the same holds for a new
 * value or deletion until the window manager's next request is read
 * (x11_answer_framer_requests_read): it reads the property after the
 * event already written, in a request the X server has not read yet, so
 * its reply has every value set before that request; a new value set
 * after it makes an event again. Deletions likewise, keyed apart from new
 * values (until session 29 they were always written: a client setting and
 * deleting its title in turn made the window manager read ~80,000 events
 * a second): the window manager reads the property at either, and
 * wlroots' selection transfers, which wait for deletions, answer each one
 * with a request (the next chunk) before the next can matter. Nothing else changes: every other
 * message, byte for byte and in order; sequence numbers stay as the X
 * server wrote them (an event's is that of the last request processed,
 * so one left out changes nobody's count).
 *
 * The stream is the X server's own, in the host's byte order (the window
 * manager runs on this machine), so its lengths are trusted. Pure: unit
 * tests feed it fixed streams (tests/unit/test_x11_stream.c).
 */
#ifndef SMT_X11_ANSWER_COALESCE_H
#define SMT_X11_ANSWER_COALESCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Ranges of a write left out, ascending; past the last one nothing more is
 * left out. */
#define X11_COALESCE_RANGES 64
/* Distinct PropertyNotify one write remembers, and the new values written
 * since the window manager's last request; past them, new ones are
 * written. */
#define X11_COALESCE_KEYS 256

struct x11_property_key {
	uint32_t window, atom;
	uint8_t state;
	bool used;
};

/* A set of PropertyNotify by window, property and state. */
struct x11_property_keys {
	struct x11_property_key slot[X11_COALESCE_KEYS];
	unsigned used;
};

struct x11_answer_framer {
	bool setup_done; /* the connection setup's reply has gone */
	uint64_t left;   /* bytes of the current message still to come */
	uint8_t head[8]; /* a message's first bytes, while fewer than 8 */
	uint8_t head_have;
	/* New values written since the window manager's last request read. */
	struct x11_property_keys unanswered;
};

/* Bytes of in left out at at_in, where out had at_out bytes. */
struct x11_coalesce_range {
	size_t at_in, at_out, len;
};

struct x11_coalesce_plan {
	size_t kept;       /* bytes written to out */
	uint64_t left_out; /* PropertyNotify left out */
	unsigned nranges;
	struct x11_coalesce_range range[X11_COALESCE_RANGES];
};

/* Copies in[0..len) to out (len bytes of room) without the repeated
 * PropertyNotify, from the framer's state (not changed: the write may take
 * less). Returns plan->kept. */
size_t x11_coalesce(const struct x11_answer_framer *f, const uint8_t *in, size_t len, uint8_t *out,
		struct x11_coalesce_plan *plan);

/* How many bytes of in a write of `written` bytes of out stands for: what
 * the X server is told was written. */
size_t x11_coalesce_consumed(const struct x11_coalesce_plan *plan, size_t written);

/* The framer past len bytes of the stream (written or left out). */
void x11_answer_framer_feed(struct x11_answer_framer *f, const uint8_t *in, size_t len);

/* The X server has read requests of the window manager: a new value from
 * now on is written again. */
void x11_answer_framer_requests_read(struct x11_answer_framer *f);

#endif

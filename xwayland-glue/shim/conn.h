/*
 * Per-connection state of the shim: one shared segment, its ring, the fences
 * that tell when the server is done with parts of it, and the table of
 * converted requests for error reporting.
 *
 * Locking: `lock` guards everything below it and is never held across a call
 * into libxcb/libX11 that may block or take Xlib's display lock (sending can
 * call back into Xlib to flush its buffer, which waits for XLockDisplay users;
 * holding our lock there could deadlock against a thread that holds
 * XLockDisplay and calls XPutImage). So a conversion reserves space under the
 * lock, copies and sends without it (the space is HELD meanwhile), and
 * commits the request's sequence under the lock again.
 */
#ifndef SMT_X11SHIM_CONN_H
#define SMT_X11SHIM_CONN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <xcb/xcb.h>
#include <xcb/shm.h>

#include "xwayland-glue/shim/errtab.h"
#include "xwayland-glue/shim/shm_segment_alloc.h"

enum xshim_conn_state {
	XSHIM_CONN_UNTRIED, /* nothing converted yet; set up on first large call */
	XSHIM_CONN_SETUP,   /* one thread is setting up; others go plain */
	XSHIM_CONN_ACTIVE,
	XSHIM_CONN_OFF, /* MIT-SHM unusable: every call goes plain */
};

#define XSHIM_MAX_FENCES 8
#define XSHIM_MAX_FORMATS 16
/* Converted _checked requests whose error the application has not asked for
 * yet; an application that never asks leaks in libxcb anyway, so the oldest
 * are forgotten past this. */
#define XSHIM_MAX_CHECKED 256

struct xshim_format {
	uint8_t depth, bpp, pad; /* pad: scanline pad in bits */
};

/* An XCB GetImage whose reply the application has not collected yet: the
 * pixels wait in the segment (HELD) until it asks for the reply. */
struct xshim_pending_get {
	uint32_t seq;
	uint32_t alloc_id;
	uint32_t off;
};

struct xshim_stats {
	uint64_t puts, put_bytes, put_requests; /* requests > puts when banded */
	uint64_t gets, get_bytes;
	uint64_t plain;      /* large enough, but sent plain (no room, ...) */
	uint64_t ring_waits; /* blocked on a fence because the ring was full */
	uint64_t fences;
	uint64_t segments;
	uint64_t errors_rewritten;
};

struct xshim_conn {
	xcb_connection_t *c;

	/* Set once by setup, read-only afterwards. */
	uint8_t shm_major;
	uint8_t image_byte_order; /* XCB_IMAGE_ORDER_* of the server */
	xcb_window_t root;
	uint32_t max_request_bytes; /* without BIG-REQUESTS */
	struct xshim_format formats[XSHIM_MAX_FORMATS];
	int nformats;
	xcb_shm_seg_t seg;
	uint8_t *base;
	uint32_t size;
	int shmid; /* SysV id, or -1 for a memfd mapping */

	pthread_mutex_t lock;
	_Atomic int state;
	const char *off_reason;
	struct xshim_segment_alloc space;  /* sub-allocator of the shared segment */
	uint32_t fences[XSHIM_MAX_FENCES]; /* outstanding fence sequences, oldest first */
	int nfences;
	bool fence_waiter;    /* a thread is blocked on fences[0] */
	uint32_t since_fence; /* bytes committed since the last fence */
	uint32_t unflushed;   /* plain-request bytes the server has not been sent */
	struct xshim_errtab errtab;
	struct {
		uint32_t seq;
		uint8_t major;
	} checked[XSHIM_MAX_CHECKED];
	int checked_next;
	struct xshim_pending_get *pending;
	int npending, pending_cap;
	struct xshim_stats st;
};

/* Conversions happened on some connection: the event/reply wrappers have work. */
extern atomic_bool xshim_any_converted;
/* Number of XCB GetImage replies the shim will have to synthesize. */
extern atomic_int xshim_pending_gets;

/* The state for c, created if `create`; NULL if none (or out of memory). */
struct xshim_conn *xshim_conn_get(xcb_connection_t *c, bool create);

/* Makes the connection ACTIVE if it can be (sets up the segment on the first
 * call); false means: send this call plain. */
bool xshim_conn_ready(struct xshim_conn *sc);

/* Pixmap format for depth, or NULL. */
const struct xshim_format *xshim_conn_format(const struct xshim_conn *sc, int depth);

/* Reserves len bytes of the segment as HELD, waiting for the server to free
 * space if needed. False: no room (image too large, or the ring is held by
 * replies the application has not collected); send plain. */
bool xshim_conn_alloc(struct xshim_conn *sc, uint32_t len, uint32_t *off, uint32_t *id);

/* After sending the request that reads the allocation. `bytes` is what the
 * plain request would have carried (for flushing like Xlib would). */
void xshim_conn_commit(struct xshim_conn *sc, uint32_t id, uint32_t seq, uint8_t major,
		bool error_to_queue, uint32_t bytes);

/* After the last request of a call: sends a fence and flushes as needed. */
void xshim_conn_sent(struct xshim_conn *sc);

/* A converted _checked request: its error will come back through
 * xcb_request_check and friends, not as an event. */
void xshim_conn_add_checked(struct xshim_conn *sc, uint32_t seq, uint8_t major);

/* Rewrites e if it answers a converted _checked request (and forgets it). */
void xshim_conn_rewrite_checked(struct xshim_conn *sc, xcb_generic_error_t *e);

/* Drops an allocation that was never sent. */
void xshim_conn_release(struct xshim_conn *sc, uint32_t id);

/* Frees the state of a connection being closed (prints its statistics). */
void xshim_conn_destroy(xcb_connection_t *c);

/* Called when the application dequeues a response with this sequence: may
 * rewrite an error for a converted request into the core request's terms. */
void xshim_conn_saw_response(struct xshim_conn *sc, xcb_generic_error_t *ev);

#endif

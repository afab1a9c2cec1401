/*
 * Requests that change what ring commands see (a pool created, resized or
 * destroyed; a canvas created, resized or destroyed) take effect exactly
 * between the commands the client published before the request and those
 * it publishes after. The handler never runs the earlier commands itself:
 * that was an unbounded drain (one client queued seconds of fills, sent
 * create_pool, and every other client waited). It records where the
 * ring's command stream (shared memory or socket submits: one reader
 * either way) stood when the request arrived, the reader stops there, and
 * the request is applied in the scheduler's slices of that ring once they
 * have reached it.
 */
#ifndef SMTWC_TRANSPORT_ORDERED_REQUEST_H
#define SMTWC_TRANSPORT_ORDERED_REQUEST_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

struct smtwc_ring;

struct smtwc_ordered_request {
	struct wl_list link; /* smtwc_ring.ordered, oldest first */
	uint64_t pos;        /* the stream's published end when it arrived */
	/* Optional: work before apply that can take long (a canvas resize's
	 * copy), done in the ring's slices: some of it per call, true once all
	 * is done. The stream stays stopped meanwhile. */
	bool (*prepare)(struct smtwc_ordered_request *req, uint64_t deadline_ns);
	/* Both free the request (it is embedded in the caller's struct). */
	void (*apply)(struct smtwc_ordered_request *req);
	void (*discard)(struct smtwc_ordered_request *req); /* the ring is going away */
};

/* Requests one ring may have waiting: each holds a mapping or images
 * (charged to the client's memory), and a resize needs no new object, so
 * nothing else bounds them. get_canvas and create_pool count too (before,
 * 5,000 get_canvas waited behind busy commands and none was refused). The
 * error names the limit "ordered-requests". */
#define SMTWC_ORDERED_MAX 64

/* false (and posts error `code` on resource) if the ring has
 * SMTWC_ORDERED_MAX requests waiting already. */
bool ordered_request_room(struct smtwc_ring *ring, struct wl_resource *resource, uint32_t code,
		const char *request);
/* Queues req behind everything the client has published. It is applied
 * by the ring's next run, not in the request handler: applying can cost
 * (a canvas resize copies the old pixels), and libwayland dispatches a
 * client's whole burst of requests at once, so a handler that applied
 * would run a burst of resizes outside any budget. Except when nothing is
 * there to wait for (every command before it ran, no request waits, no
 * PRESENT is being copied) and the request has no prepare step: then it
 * is applied at once, at the cost of a lookup and a small allocation, so
 * only requests that really wait count against SMTWC_ORDERED_MAX (a
 * client creating 100 canvases in a burst is not refused). */
void ordered_request_queue(struct smtwc_ring *ring, struct smtwc_ordered_request *req);
/* The first waiting request may be applied: the ring's stream reached it
 * (or the ring is dead). The ring has work then (ring_has_work). */
bool ordered_requests_ready(struct smtwc_ring *ring);
/* In the ring's run: prepares and applies the ready requests, at least a
 * part of one, more while the clock is before deadline_ns (0: no limit),
 * and stops the stream at the next one. */
void ordered_requests_apply_ready(struct smtwc_ring *ring, uint64_t deadline_ns);
void ordered_requests_discard(struct smtwc_ring *ring);

#endif

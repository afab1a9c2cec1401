/*
 * Requests that change what ring commands see (a pool created, resized or
 * destroyed; a canvas created, resized or destroyed) take effect exactly
 * between the commands the client published before the request and those
 * it publishes after. The handler never runs the earlier commands itself:
 * that was an unbounded drain (one client queued seconds of fills, sent
 * create_pool, and every other client waited). It records where the
 * ring's two streams (shared ring and socket submits) stood when the
 * request arrived, the executor stops there, and the request is applied
 * when the scheduler's slices of that ring have reached it.
 */
#ifndef SMTWC_TRANSPORT_ORDERED_REQUEST_H
#define SMTWC_TRANSPORT_ORDERED_REQUEST_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

struct smtwc_ring;

struct smtwc_ordered_request {
	struct wl_list link; /* smtwc_ring.ordered, oldest first */
	uint64_t ring_pos, submit_pos;
	/* Both free the request (it is embedded in the caller's struct). */
	void (*apply)(struct smtwc_ordered_request *req);
	void (*discard)(struct smtwc_ordered_request *req); /* the ring is going away */
};

/* Requests one ring may have waiting: each holds a mapping or images
 * (charged to the client's memory), and a resize needs no new object, so
 * nothing else bounds them. */
#define SMTWC_ORDERED_MAX 64

/* false (and posts error `code` on resource) if the ring has
 * SMTWC_ORDERED_MAX requests waiting already. */
bool ordered_request_room(struct smtwc_ring *ring, struct wl_resource *resource,
	uint32_t code, const char *request);
/* Queues req behind everything the client has published, and applies it
 * at once if that has run already (the common case). */
void ordered_request_queue(struct smtwc_ring *ring, struct smtwc_ordered_request *req);
/* After the ring ran: applies the requests its streams have reached and
 * stops the streams at the next one. A dead ring applies them all. */
void ordered_requests_apply_ready(struct smtwc_ring *ring);
void ordered_requests_discard(struct smtwc_ring *ring);

#endif

/*
 * Pool and canvas requests applied in stream order, inside the ring's
 * scheduled slices rather than in the request handler (ordered_request.h
 * says why: an unbounded drain let one client stall all the others).
 */
#include <pthread.h>
#include "compositor/ring/ordered_request.h"
#include "compositor/ring/ring_workers.h"
#include "compositor/ring/ring_types.h"
#include "common/monotonic_clock.h"

static bool reached(struct smtwc_ring *ring, const struct smtwc_ordered_request *req)
{
	return ring->reader.tail >= req->pos;
}

static void set_limit(struct smtwc_ring *ring)
{
	uint64_t limit = UINT64_MAX;
	if (!wl_list_empty(&ring->ordered)) {
		struct smtwc_ordered_request *first = wl_container_of(
				ring->ordered.next, first, link);
		limit = first->pos;
	}
	smt_ring_reader_set_limit(&ring->reader, limit);
}

bool ordered_requests_ready(struct smtwc_ring *ring)
{
	if (wl_list_empty(&ring->ordered)) {
		return false;
	}
	struct smtwc_ordered_request *first = wl_container_of(ring->ordered.next, first, link);
	return ring->dead || reached(ring, first);
}

void ordered_requests_apply_ready(struct smtwc_ring *ring, uint64_t deadline_ns)
{
	do {
		if (!ordered_requests_ready(ring)) {
			break;
		}
		struct smtwc_ordered_request *first = wl_container_of(
				ring->ordered.next, first, link);
		if (!ring->dead && first->prepare != NULL && !first->prepare(first, deadline_ns)) {
			break; /* still ready: the ring has work */
		}
		wl_list_remove(&first->link);
		ring->ordered_count--;
		first->apply(first);
	} while (deadline_ns == 0 || monotonic_now_ns() < deadline_ns);
	set_limit(ring);
}

void ordered_request_queue(struct smtwc_ring *ring, struct smtwc_ordered_request *req)
{
	/* A worker may be running the ring: the stream's position, the
	 * executor (apply) and the limit are its for one piece at most. */
	ring_workers_lock_ring(ring);
	/* (A dead ring applies its requests at once; it may have no stream.) */
	req->pos = ring->dead ? 0 : smt_ring_reader_published(&ring->reader);
	/* A PRESENT being copied, or left to the main thread by a worker
	 * (ring->presenting either way), is waited for like a command. One a
	 * worker copied and posted (present_post.h) is not: its canvas was
	 * found when it ran, and a destroy applied now drops it with the
	 * canvas (canvas_free). */
	if (wl_list_empty(&ring->ordered) && !ring->dead && ring->presenting == NULL &&
			req->prepare == NULL && reached(ring, req)) {
		req->apply(req); /* nothing to wait for; cheap (ordered_request.h) */
	} else {
		wl_list_insert(ring->ordered.prev, &req->link);
		ring->ordered_count++;
		set_limit(ring);
	}
	ring_workers_unlock_ring(ring);
}

bool ordered_request_room(struct smtwc_ring *ring, struct wl_resource *resource, uint32_t code,
		const char *request)
{
	if (ring->ordered_count < SMTWC_ORDERED_MAX) {
		return true;
	}
	wl_resource_post_error(resource, code,
			"%s: limit ordered-requests=%d reached: "
			"%d requests wait for earlier commands",
			request, SMTWC_ORDERED_MAX, ring->ordered_count);
	return false;
}

void ordered_requests_discard(struct smtwc_ring *ring)
{
	while (!wl_list_empty(&ring->ordered)) {
		struct smtwc_ordered_request *first = wl_container_of(
				ring->ordered.next, first, link);
		wl_list_remove(&first->link);
		ring->ordered_count--;
		first->discard(first);
	}
}

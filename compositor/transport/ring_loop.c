#include <time.h>
#include "transport/ring.h"
#include "transport/ring_loop.h"

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The ring after `ring` in the list, wrapping; NULL for an empty list. */
static struct smtwc_ring *ring_after(struct smtwc_transport *transport,
		struct smtwc_ring *ring) {
	struct wl_list *next = ring != NULL ? ring->link.next : transport->rings.next;
	if (next == &transport->rings) {
		next = next->next;
	}
	if (next == &transport->rings) {
		return NULL;
	}
	struct smtwc_ring *result = wl_container_of(next, result, link);
	return result;
}

bool ring_loop_run_slice(struct smtwc_transport *transport, uint64_t slice_ns) {
	struct smtwc_ring *start = ring_after(transport, transport->next_ring);
	if (start == NULL) {
		return false;
	}
	struct smtwc_ring *ring = start;
	do {
		if (ring_has_work(ring)) {
			/* The next call starts after this one: equal clients alternate. */
			transport->next_ring = ring;
			struct smt_exec_budget budget = { .deadline_ns = now_ns() + slice_ns };
			ring_run(ring, &budget);
			break;
		}
		ring = ring_after(transport, ring);
	} while (ring != start);

	struct smtwc_ring *it;
	wl_list_for_each(it, &transport->rings, link) {
		if (ring_has_work(it)) {
			return true;
		}
	}
	return false;
}

bool ring_loop_prepare_sleep(struct smtwc_transport *transport) {
	smt_global_prepare_sleep(transport->global_status);
	struct smtwc_ring *ring;
	wl_list_for_each(ring, &transport->rings, link) {
		if (ring_has_work(ring)) {
			smt_global_wake(transport->global_status);
			transport->sleeps_avoided++;
			return false;
		}
	}
	transport->sleeps++;
	return true;
}

void ring_loop_woke(struct smtwc_transport *transport) {
	smt_global_wake(transport->global_status);
}

void ring_loop_write_client_sched(struct smtwc_ring *ring, struct json_writer *w) {
	(void)ring;
	(void)w;
}

void ring_loop_config_changed(struct smtwc_transport *transport) {
	(void)transport;
}

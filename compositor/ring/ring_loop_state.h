/*
 * What the ring loop (ring/ring_loop.c) keeps between slices and sleeps,
 * embedded in the transport. Its own header, not ring_loop.h: the
 * transport's struct (ring_types.h) holds it, and ring_loop.c uses the
 * transport, so the functions' header cannot be included back.
 */
#ifndef SMTWC_RING_LOOP_STATE_H
#define SMTWC_RING_LOOP_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

struct smtwc_ring;

struct ring_loop_state {
	/* Times the loop blocked, and times a ring found with work right
	 * after the server-asleep flag went up kept it from blocking. */
	uint64_t sleeps, sleeps_avoided;
	/* Spinning before a sleep: armed by running shared-ring commands;
	 * the time spun since the loop last blocked; spins, and those that
	 * found ring work before the event loop had any and before the time
	 * ran out. spin_for: the ring whose commands armed the spin, charged
	 * with its time (ring_free clears it when that ring goes). */
	bool spin_armed;
	struct smtwc_ring *spin_for;
	uint64_t spun_since_sleep_ns;
	uint32_t spin_skip, spin_backoff;
	uint64_t spins, spins_found_work;
	/* server->events.client_input: input sent to a client boosts its rings. */
	struct wl_listener client_input;
};

#endif

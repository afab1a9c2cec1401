/*
 * The seed-001 measuring clients' shared parts (echo_client.h): written
 * once for smt-rubberband, smt-shm-echo and smt-anim.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clients/echo_client.h"
#include "common/monotonic_clock.h"
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"

bool echo_options_parse(int argc, char **argv, const char *program, const char *rate_option,
		double rate_min, double rate_max, struct echo_options *o)
{
	bool ok = true;
	for (int i = 1; i < argc && ok; i++) {
		if (i + 1 >= argc)
			ok = false;
		else if (!strcmp(argv[i], "--seconds"))
			o->seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--warmup"))
			o->warmup = atof(argv[++i]);
		else if (!strcmp(argv[i], rate_option))
			o->rate = atof(argv[++i]);
		else if (!strcmp(argv[i], "--csv"))
			o->csv = argv[++i];
		else
			ok = false;
	}
	if (ok && o->seconds > 0 && o->warmup >= 0 && o->rate >= rate_min && o->rate <= rate_max)
		return true;
	fprintf(stderr, "usage: %s [--seconds S] [--warmup S] [%s X] [--csv FILE]\n", program,
			rate_option);
	return false;
}

/* ---- the mouse ------------------------------------------------------------ */

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *iface, uint32_t version)
{
	struct echo_mouse *m = data;
	if (!strcmp(iface, wl_seat_interface.name) && !m->seat)
		m->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
	else if (!strcmp(iface, zwlr_virtual_pointer_manager_v1_interface.name))
		m->manager = wl_registry_bind(
				registry, name, &zwlr_virtual_pointer_manager_v1_interface, 1);
}
static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}
static const struct wl_registry_listener registry_listener = { registry_global,
	registry_global_remove };

bool echo_mouse_open(struct echo_mouse *m, const char *program, size_t cap)
{
	m->cap = cap;
	m->due_ns = calloc(cap + 1, sizeof(*m->due_ns));
	m->send_ns = calloc(cap + 1, sizeof(*m->send_ns));
	m->display = wl_display_connect(NULL);
	if (m->due_ns == NULL || m->send_ns == NULL || m->display == NULL) {
		fprintf(stderr, "%s: cannot connect for the virtual pointer\n", program);
		return false;
	}
	m->registry = wl_display_get_registry(m->display);
	wl_registry_add_listener(m->registry, &registry_listener, m);
	wl_display_roundtrip(m->display);
	if (m->manager == NULL || m->seat == NULL) {
		fprintf(stderr, "%s: no zwlr_virtual_pointer_manager_v1 or seat\n", program);
		return false;
	}
	m->pointer = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(m->manager, m->seat);
	wl_display_roundtrip(m->display);
	return true;
}

void echo_mouse_move(struct echo_mouse *m, double x, double y)
{
	zwlr_virtual_pointer_v1_motion_absolute(m->pointer,
			(uint32_t)(monotonic_now_ns() / 1000000u), (uint32_t)lround(x),
			(uint32_t)lround(y), ECHO_OUTPUT_W, ECHO_OUTPUT_H);
	zwlr_virtual_pointer_v1_frame(m->pointer);
	wl_display_flush(m->display);
}

void echo_mouse_set_offset(struct echo_mouse *m, double enter_x, double enter_y)
{
	m->offset_x = ECHO_OUTPUT_W / 2 - lround(enter_x);
	m->offset_y = ECHO_OUTPUT_H / 2 - lround(enter_y);
}

static void *mouse_thread(void *data)
{
	struct echo_mouse *m = data;
	uint64_t period = (uint64_t)(1e9 / m->hz), t = monotonic_now_ns();
	for (size_t seq = 0; seq < m->cap && !atomic_load(&m->stop); seq++) {
		t += period;
		struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		int32_t x, y;
		m->position(m->data, seq, &x, &y);
		m->due_ns[seq] = t;
		m->send_ns[seq] = monotonic_now_ns();
		atomic_store(&m->sent, seq + 1);
		echo_mouse_move(m, x + m->offset_x, y + m->offset_y);
		/* nothing is expected back; keep the queue from growing anyway */
		wl_display_dispatch_pending(m->display);
	}
	return NULL;
}

bool echo_mouse_start(struct echo_mouse *m, double hz,
		void (*position)(void *data, size_t seq, int32_t *x, int32_t *y), void *data)
{
	m->hz = hz;
	m->position = position;
	m->data = data;
	m->running = pthread_create(&m->thread, NULL, mouse_thread, m) == 0;
	return m->running;
}

void echo_mouse_stop(struct echo_mouse *m)
{
	atomic_store(&m->stop, true);
	if (m->running)
		pthread_join(m->thread, NULL);
	m->running = false;
}

void echo_mouse_close(struct echo_mouse *m)
{
	echo_mouse_stop(m);
	if (m->pointer != NULL)
		zwlr_virtual_pointer_v1_destroy(m->pointer);
	if (m->manager != NULL)
		zwlr_virtual_pointer_manager_v1_destroy(m->manager);
	if (m->seat != NULL)
		wl_seat_destroy(m->seat);
	if (m->registry != NULL)
		wl_registry_destroy(m->registry);
	if (m->display != NULL)
		wl_display_disconnect(m->display);
	free(m->due_ns);
	free(m->send_ns);
	*m = (struct echo_mouse){ .display = NULL };
}

size_t echo_match_move(const struct echo_mouse *m, size_t first, int32_t dx, int32_t dy,
		int32_t step, size_t grid)
{
	if (dx < 0 || dy < 0 || dx % step || dy % step || (size_t)(dx / step) >= grid ||
			(size_t)(dy / step) >= grid)
		return SIZE_MAX;
	size_t k = (size_t)(dy / step) * grid + (size_t)(dx / step);
	for (size_t s = atomic_load(&m->sent); s-- > first;) {
		if (s % (grid * grid) == k)
			return s;
	}
	return SIZE_MAX;
}

/* ---- the summary ---------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void echo_summary(const char *prefix, const char *name, uint64_t *v, size_t n)
{
	if (n == 0) {
		printf("%s: %-9s no samples\n", prefix, name);
		return;
	}
	double sum = 0, sq = 0;
	for (size_t i = 0; i < n; i++) {
		sum += (double)v[i];
		sq += (double)v[i] * (double)v[i];
	}
	double mean = sum / (double)n, var = sq / (double)n - mean * mean;
	qsort(v, n, sizeof(*v), cmp_u64);
	printf("%s: %-9s n=%zu mean=%.3f sd=%.3f p50=%.3f p99=%.3f max=%.3f ms\n", prefix, name, n,
			mean / 1e6, (var > 0 ? sqrt(var) : 0) / 1e6, (double)v[n / 2] / 1e6,
			(double)v[(n * 99) / 100] / 1e6, (double)v[n - 1] / 1e6);
}

/*
 * What the seed-001 measuring clients share (smt-rubberband, smt-shm-echo,
 * smt-anim: docs/scheduler.md): their options, the "mouse" (a virtual
 * pointer on its own connection, moved from a thread on a fixed schedule to
 * positions unique over GRID x GRID moves, so a motion event is matched to
 * the move that caused it even when the compositor coalesces motion), and
 * the latency summary they print.
 */
#ifndef SMT_ECHO_CLIENT_H
#define SMT_ECHO_CLIENT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wayland-client.h>

/* The headless output the benchmarks run on: absolute moves are in its
 * pixels. */
#define ECHO_OUTPUT_W 1280
#define ECHO_OUTPUT_H 720

struct echo_options {
	double seconds, warmup;
	double rate; /* the program's rate option: --hz N or --period-ms MS */
	const char *csv;
};

/* [--seconds S] [--warmup S] [RATE_OPTION X] [--csv FILE] over the
 * defaults already in *o; seconds > 0, warmup >= 0, X in [rate_min,
 * rate_max]. False (the usage printed) on anything else. */
bool echo_options_parse(int argc, char **argv, const char *program, const char *rate_option,
		double rate_min, double rate_max, struct echo_options *o);

struct echo_mouse {
	struct wl_display *display; /* its own connection */
	struct wl_registry *registry;
	struct wl_seat *seat;
	struct zwlr_virtual_pointer_manager_v1 *manager;
	struct zwlr_virtual_pointer_v1 *pointer;
	/* window-local position + offset = output pixels (set before start,
	 * from the client's first pointer enter: echo_mouse_probe) */
	double offset_x, offset_y;
	/* per move, CLOCK_MONOTONIC ns: when it was due, when it was sent */
	uint64_t *due_ns, *send_ns;
	size_t cap;
	_Atomic size_t sent; /* moves sent: their send_ns are written */
	_Atomic bool stop;
	double hz;
	/* the window-local position of move seq */
	void (*position)(void *data, size_t seq, int32_t *x, int32_t *y);
	void *data;
	pthread_t thread;
	bool running;
};

/* Connects, binds the seat and the virtual pointer manager, creates the
 * pointer; room for `cap` moves. False (said on stderr) on failure. */
bool echo_mouse_open(struct echo_mouse *m, const char *program, size_t cap);
/* An absolute move to (x, y) in output pixels, flushed. */
void echo_mouse_move(struct echo_mouse *m, double x, double y);
/* The offset: the mouse to the output's centre, which the window must
 * cover, then the client's enter at window-local (x, y) gives it. */
void echo_mouse_set_offset(struct echo_mouse *m, double enter_x, double enter_y);
/* Starts the thread: a move every 1/hz s to position(data, seq) + offset. */
bool echo_mouse_start(struct echo_mouse *m, double hz,
		void (*position)(void *data, size_t seq, int32_t *x, int32_t *y), void *data);
/* Stops and joins the thread; the moves sent stay readable. */
void echo_mouse_stop(struct echo_mouse *m);
void echo_mouse_close(struct echo_mouse *m);

/* The move a motion event at (dx, dy) from the raster's origin came from:
 * the latest one sent, not before `first`, at that raster point (grid x
 * grid points `step` apart, position(seq) = point seq % (grid * grid));
 * SIZE_MAX if the point is off the raster or no such move was sent. */
size_t echo_match_move(const struct echo_mouse *m, size_t first, int32_t dx, int32_t dy,
		int32_t step, size_t grid);

/* "PREFIX: NAME n=N mean= sd= p50= p99= max= ms" of v (ns, sorted in
 * place), or "PREFIX: NAME no samples". */
void echo_summary(const char *prefix, const char *name, uint64_t *v, size_t n);

#endif

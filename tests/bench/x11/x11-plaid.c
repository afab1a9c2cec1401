/*
 * x11-plaid: an X flooder for tests/bench/x11/interactive.py, the X twin of
 * smt-plaid: an endless stream of PolyFillRectangle requests of 50
 * rectangles of 40x40 into its own window, and a GetInputFocus round trip
 * every 2,000 requests so that it never runs more than that ahead of the
 * server (issue 26's antagonist).
 *
 *   x11-plaid [--size WxH] [--keys] [--connections N --turn-ms T [--fork]]
 *
 * --connections N (2-200): the light-grant gamer (docs/x11.md "Light
 * clients", red team): one program with N connections that flood in turn,
 * T ms each (default 5), then a round trip on that connection so that its
 * requests have run and it is idle until its next turn, N - 1 turns later.
 * Each connection on its own looks like a client that was idle lately
 * (light), while the program as a whole floods all the time. The first
 * connection draws into the window, the others into pixmaps of its size.
 * --fork: the N connections in N processes (this one and N - 1 forked
 * children, which end with it), each taking its turn by the clock (turn k
 * of process i begins (k N + i) T ms after a common start): N programs to
 * the X server, which the per-program judgement does not join. Then
 * "processed" counts this process's connection only.
 *
 * Prints "ready" once its first round trip returned (the server runs its
 * requests), and on SIGUSR1 "processed N ns T": the requests the server has
 * executed (a round trip first, so none is merely queued) at CLOCK_MONOTONIC
 * T. Ends on SIGTERM or SIGINT, or when the server goes away.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <xcb/xcb.h>

#include "common/monotonic_clock.h"

#define RECTS_PER_REQUEST 50
#define SIDE 40
#define REQUESTS_PER_SYNC 2000
#define MAX_CONNECTIONS 200

static volatile sig_atomic_t report_asked, stop_asked;

static void on_usr1(int sig)
{
	(void)sig;
	report_asked = 1;
}

static void on_stop(int sig)
{
	(void)sig;
	stop_asked = 1;
}

/* A round trip: every request sent before it has been executed. */
static int sync_server(xcb_connection_t *c)
{
	xcb_get_input_focus_reply_t *r = xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL);
	if (!r)
		return -1;
	free(r);
	return 0;
}

/* One connection's drawing: where, in which two colours. */
struct flooder {
	xcb_connection_t *c;
	xcb_drawable_t target;
	xcb_gcontext_t gc[2];
	uint64_t sent;
};

/* Connects and makes the target: the window for the first connection
 * (mapped, `keys` selected), a pixmap of its size for the others. */
static int open_flooder(struct flooder *f, bool first, unsigned w, unsigned h, uint32_t keys)
{
	f->c = xcb_connect(NULL, NULL);
	if (xcb_connection_has_error(f->c)) {
		fprintf(stderr, "x11-plaid: cannot connect to $DISPLAY\n");
		return -1;
	}
	xcb_screen_t *s = xcb_setup_roots_iterator(xcb_get_setup(f->c)).data;
	f->target = xcb_generate_id(f->c);
	if (first) {
		uint32_t values[2] = { s->black_pixel, keys };
		xcb_create_window(f->c, XCB_COPY_FROM_PARENT, f->target, s->root, 0, 0, (uint16_t)w,
				(uint16_t)h, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT, s->root_visual,
				XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, values);
		static const char name[] = "x11-plaid";
		xcb_change_property(f->c, XCB_PROP_MODE_REPLACE, f->target, XCB_ATOM_WM_NAME,
				XCB_ATOM_STRING, 8, sizeof(name) - 1, name);
		xcb_map_window(f->c, f->target);
	} else {
		xcb_create_pixmap(
				f->c, s->root_depth, f->target, s->root, (uint16_t)w, (uint16_t)h);
	}
	/* Two colours from the pid, so neighbouring flooders differ. */
	uint32_t colour[2] = { 0x400000u | ((uint32_t)getpid() * 2654435761u & 0x3fffffu),
		0xc0c0c0u ^ ((uint32_t)getpid() * 40503u & 0x3f3f3fu) };
	for (int i = 0; i < 2; i++) {
		f->gc[i] = xcb_generate_id(f->c);
		xcb_create_gc(f->c, f->gc[i], f->target, XCB_GC_FOREGROUND, &colour[i]);
	}
	if (sync_server(f->c) != 0) {
		fprintf(stderr, "x11-plaid: the server went away\n");
		return -1;
	}
	return 0;
}

/* One PolyFillRectangle: a plaid of rows of blocks that walk across. */
static void draw(struct flooder *f, unsigned w, unsigned h, unsigned *step)
{
	xcb_rectangle_t r[RECTS_PER_REQUEST];
	for (int i = 0; i < RECTS_PER_REQUEST; i++, (*step)++) {
		unsigned cols = w / SIDE, rows = h / SIDE;
		r[i] = (xcb_rectangle_t){ (int16_t)((*step % cols) * SIDE),
			(int16_t)((*step / cols % rows) * SIDE), SIDE, SIDE };
	}
	xcb_poly_fill_rectangle(f->c, f->target, f->gc[(*step / RECTS_PER_REQUEST) & 1],
			RECTS_PER_REQUEST, r);
	f->sent++;
}

/* --fork: sleeps until this process's next turn that has not ended yet
 * (turn k of process `me` of n begins at epoch + (k n + me) turn_ns);
 * returns when it ends, or 0 if asked to stop first. */
static uint64_t wait_turn(uint64_t epoch, unsigned me, unsigned n, uint64_t turn_ns, uint64_t *k)
{
	uint64_t now = monotonic_now_ns(), begin;
	for (;; ++*k) {
		begin = epoch + (*k * n + me) * turn_ns;
		if (begin + turn_ns > now)
			break; /* turns missed (the process did not run) are skipped */
	}
	++*k;
	struct timespec ts = { .tv_sec = (time_t)(begin / 1000000000u),
		.tv_nsec = (long)(begin % 1000000000u) };
	while (!stop_asked && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	return stop_asked ? 0 : begin + turn_ns;
}

int main(int argc, char **argv)
{
	unsigned w = 400, h = 300, nconn = 1, turn_ms = 5;
	bool forked = false;
	uint32_t keys = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--size") == 0 && i + 1 < argc &&
				sscanf(argv[++i], "%ux%u", &w, &h) == 2 && w >= SIDE && h >= SIDE &&
				w <= 4096 && h <= 4096)
			continue;
		/* A busy program typed into (the input boost's worst case,
		 * docs/x11.md): its window takes key presses, which it never
		 * looks at (libxcb queues them). */
		if (strcmp(argv[i], "--keys") == 0) {
			keys = XCB_EVENT_MASK_KEY_PRESS;
			continue;
		}
		if (strcmp(argv[i], "--connections") == 0 && i + 1 < argc &&
				sscanf(argv[++i], "%u", &nconn) == 1 && nconn >= 2 &&
				nconn <= MAX_CONNECTIONS)
			continue;
		if (strcmp(argv[i], "--turn-ms") == 0 && i + 1 < argc &&
				sscanf(argv[++i], "%u", &turn_ms) == 1 && turn_ms >= 1 &&
				turn_ms <= 10000)
			continue;
		if (strcmp(argv[i], "--fork") == 0) {
			forked = true;
			continue;
		}
		fprintf(stderr,
				"usage: x11-plaid [--size WxH] [--keys] [--connections N "
				"--turn-ms T [--fork]] (40x40 to 4096x4096; N 2-%d; T 1-10000)\n",
				MAX_CONNECTIONS);
		return 2;
	}
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	const uint64_t turn_ns = (uint64_t)turn_ms * 1000000;
	forked = forked && nconn > 1;
	unsigned me = 0, nopen = forked ? 1 : nconn;
	/* --fork: every process's turns counted from here (after the
	 * connections are open, about) */
	uint64_t epoch = monotonic_now_ns() + 500000000u, turns = 0;
	for (unsigned i = 1; forked && i < nconn; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("x11-plaid: fork");
			return 1;
		}
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			if (getppid() == 1)
				return 0; /* the parent is gone already */
			me = i;
			break;
		}
	}
	static struct flooder fl[MAX_CONNECTIONS];
	for (unsigned i = 0; i < nopen; i++)
		if (open_flooder(&fl[i], i == 0 && me == 0, w, h, keys) != 0)
			return 1;
	if (me == 0) {
		printf("ready\n");
		fflush(stdout);
	}

	/* One connection: a round trip every REQUESTS_PER_SYNC requests. In
	 * turns: a round trip at the end of each turn (its requests have run:
	 * it is idle from then on) and every REQUESTS_PER_SYNC within one. */
	uint64_t processed = 0, done_before = 0; /* by turns ended */
	uint64_t turn_end = forked ? wait_turn(epoch, me, nconn, turn_ns, &turns) :
				     monotonic_now_ns() + turn_ns;
	unsigned step = 0, cur = 0;
	bool gone = false;
	while (!stop_asked && !gone) {
		struct flooder *f = &fl[cur];
		draw(f, w, h, &step);
		bool end_turn = nconn > 1 && (f->sent & 63) == 0 && monotonic_now_ns() >= turn_end;
		if (f->sent % REQUESTS_PER_SYNC == 0 || report_asked || end_turn) {
			if (sync_server(f->c) != 0) {
				gone = true;
				break;
			}
			processed = done_before + f->sent;
		}
		if (end_turn) {
			done_before += f->sent;
			f->sent = 0;
			cur = forked ? 0 : (cur + 1) % nconn;
			turn_end = forked ? wait_turn(epoch, me, nconn, turn_ns, &turns) :
					    monotonic_now_ns() + turn_ns;
		}
		if (report_asked) {
			report_asked = 0;
			printf("processed %llu ns %llu\n", (unsigned long long)processed,
					(unsigned long long)monotonic_now_ns());
			fflush(stdout);
		}
	}
	for (unsigned i = 0; i < nopen; i++) {
		gone = gone || xcb_connection_has_error(fl[i].c);
		xcb_disconnect(fl[i].c);
	}
	if (gone && !stop_asked) {
		fprintf(stderr, "x11-plaid: the server went away\n");
		return 1;
	}
	return 0;
}

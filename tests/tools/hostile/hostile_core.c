/*
 * Floods of core Wayland requests whose handlers are wlroots' own: what
 * wlroots keeps or computes for each request, bounded by the compositor's
 * protocol logger (compositor/ring/core_request_limits.h). Each case
 * either ends with wl_display's implementation error naming a limit
 * (exit 0 when it does) or must be served to its end (exit 0 then).
 */
#include <signal.h>
#include "tests/tools/hostile/hostile.h"
#include "idle-inhibit-unstable-v1-client-protocol.h"
#include "primary-selection-unstable-v1-client-protocol.h"
#include "wlr-data-control-unstable-v1-client-protocol.h"
#include "wlr-screencopy-unstable-v1-client-protocol.h"
#include "xdg-activation-v1-client-protocol.h"

static struct {
	struct wl_data_device_manager *data;
	struct zwp_primary_selection_device_manager_v1 *primary;
	struct zwlr_data_control_manager_v1 *control;
	struct wl_subcompositor *subcompositor;
	struct xdg_activation_v1 *activation;
	struct zwp_idle_inhibit_manager_v1 *inhibit;
	struct zwlr_screencopy_manager_v1 *screencopy;
	struct wl_output *output;
	struct wl_shm *shm;
} core;

static bool bind_core(struct hostile *h)
{
	struct hostile_global wanted[] = {
		{ &wl_data_device_manager_interface, 3, (void **)&core.data, 0 },
		{ &zwp_primary_selection_device_manager_v1_interface, 1, (void **)&core.primary,
				0 },
		{ &zwlr_data_control_manager_v1_interface, 1, (void **)&core.control, 0 },
		{ &wl_subcompositor_interface, 1, (void **)&core.subcompositor, 0 },
		{ &zwp_idle_inhibit_manager_v1_interface, 1, (void **)&core.inhibit, 0 },
		{ &zwlr_screencopy_manager_v1_interface, 1, (void **)&core.screencopy, 0 },
		{ &wl_output_interface, 1, (void **)&core.output, 0 },
		{ &wl_shm_interface, 1, (void **)&core.shm, 0 },
		{ &xdg_activation_v1_interface, 1, (void **)&core.activation, 0 },
	};
	if (bind_globals(h, wanted, sizeof(wanted) / sizeof(wanted[0])) == NULL ||
			core.data == NULL || core.primary == NULL || core.control == NULL ||
			core.subcompositor == NULL || core.activation == NULL) {
		fprintf(stderr, "smt-hostile: a core global is missing\n");
		return false;
	}
	return true;
}

/* Sends what libwayland holds, waiting while the socket is full: its
 * 4 KB buffer does not wait (a full kernel buffer is a fatal EAGAIN). */
static bool flush_all(struct hostile *h)
{
	while (wl_display_flush(h->display) < 0) {
		if (errno != EAGAIN) {
			return false;
		}
		struct pollfd p = { .fd = wl_display_get_fd(h->display), .events = POLLOUT };
		poll(&p, 1, HANG_MS);
	}
	return true;
}

/* The verdict of a flood a limit must end: the implementation error. */
static int refused(struct hostile *h, const char *what, long done)
{
	printf("%s: refused after %ld\n", what, done);
	return expect_error(h, &wl_display_interface, WL_DISPLAY_ERROR_IMPLEMENTATION) ? 0 : 1;
}

/* Holds what was made until killed, for the accounts to be read. */
static int hold_here(struct hostile *h, const char *what, long n)
{
	printf("HOLDING %ld %s\n", n, what);
	fflush(stdout);
	while (wl_display_dispatch(h->display) >= 0) {
	}
	return 0;
}

/* offer-flood KIND [N] / hold-offers KIND N: N distinct MIME types of
 * 4,000 bytes (KIND-small: 40) on one source of KIND (data, primary,
 * control), a round
 * trip every 64. The flood must be refused (source-mime-types or
 * -bytes, or the memory account); hold-offers keeps them (their memory
 * shows in the client's account). Before the limits: 50,000 such offers
 * held 149 MB of the compositor's heap, counted nowhere. */
static int offers(struct hostile *h, const char *kind, long n, bool hold)
{
	void *source = NULL;
	if (strncmp(kind, "data", 4) == 0) {
		source = wl_data_device_manager_create_data_source(core.data);
	} else if (strncmp(kind, "primary", 7) == 0) {
		source = zwp_primary_selection_device_manager_v1_create_source(core.primary);
	} else if (strncmp(kind, "control", 7) == 0) {
		source = zwlr_data_control_manager_v1_create_data_source(core.control);
	} else {
		fprintf(stderr, "smt-hostile: offers of data, primary or control\n");
		return 2;
	}
	/* KIND-small: types of 40 bytes, for the count's limit */
	size_t size = strstr(kind, "-small") != NULL ? 40 : 4000;
	static char mime[4000];
	memset(mime, 'a', size - 1);
	mime[size - 1] = '\0';
	memcpy(mime, "text/x-", 7);
	for (long i = 0; i < n; i++) {
		snprintf(mime + 7, 12, "%010ld", i % 10000000000L);
		mime[17] = '-';
		if (kind[0] == 'd') {
			wl_data_source_offer(source, mime);
		} else if (kind[0] == 'p') {
			zwp_primary_selection_source_v1_offer(source, mime);
		} else {
			zwlr_data_control_source_v1_offer(source, mime);
		}
		if (!flush_all(h) || ((i + 1) % 64 == 0 && wl_display_roundtrip(h->display) < 0)) {
			return refused(h, "offers", i + 1);
		}
	}
	if (wl_display_roundtrip(h->display) < 0) {
		return refused(h, "offers", n);
	}
	return hold ? hold_here(h, "offers", n) : (printf("offers: all %ld taken\n", n), 1);
}

/* damage-flood N [SECONDS]: N disjoint 1x1 damage_buffer rectangles on
 * one surface, then a commit; again until SECONDS have passed (once
 * without). Served to its end: past surface-damage-rects the compositor
 * keeps the damage's bounding box. Before: each rectangle was unioned
 * into a region as long as all before it (300,000: 64 s of the
 * compositor's CPU). */
static int damage_flood(struct hostile *h, long n, double seconds)
{
	struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
	double end = now_ms() + seconds * 1000;
	long rounds = 0;
	do {
		for (long i = 0; i < n; i++) {
			wl_surface_damage_buffer(surface, (int32_t)(2 * (i % 1024)),
					(int32_t)(2 * (i / 1024)), 1, 1);
			if (i % 128 == 127 && !flush_all(h)) {
				fprintf(stderr, "smt-hostile: damage-flood ended by the compositor\n");
				return 1;
			}
		}
		wl_surface_commit(surface);
		if (wl_display_roundtrip(h->display) < 0) {
			fprintf(stderr, "smt-hostile: damage-flood ended by the compositor\n");
			return 1;
		}
		rounds++;
	} while (now_ms() < end);
	printf("DAMAGE_FLOOD served: %ld rounds of %ld rectangles\n", rounds, n);
	return 0;
}

/* region-rects N: one wl_region of N disjoint 1x1 rectangles (a checker
 * pattern pixman cannot merge): refused past region-rects. */
static int region_rects(struct hostile *h, long n, bool hold)
{
	struct wl_region *region = wl_compositor_create_region(h->compositor);
	for (long i = 0; i < n; i++) {
		wl_region_add(region, (int32_t)(2 * (i % 1024)), (int32_t)(2 * (i / 1024)), 1, 1);
		if ((i % 128 == 127 && !flush_all(h)) ||
				((i + 1) % 1024 == 0 && wl_display_roundtrip(h->display) < 0)) {
			return refused(h, "region rectangles", i + 1);
		}
	}
	if (wl_display_roundtrip(h->display) < 0) {
		return refused(h, "region rectangles", n);
	}
	/* one more request makes the compositor charge the last ones */
	wl_region_add(region, 0, 0, 1, 1);
	if (wl_display_roundtrip(h->display) < 0) {
		return refused(h, "region rectangles", n);
	}
	return hold ? hold_here(h, "rectangles", n) : (printf("region: all %ld taken\n", n), 1);
}

/* cached-commits N: a synchronized subsurface commits N times, its
 * parent never: wlroots keeps every commit for the parent's. Refused past
 * surface-cached-commits. */
static int cached_commits(struct hostile *h, long n)
{
	struct wl_surface *parent = wl_compositor_create_surface(h->compositor);
	struct wl_surface *child = wl_compositor_create_surface(h->compositor);
	wl_subcompositor_get_subsurface(core.subcompositor, child, parent);
	for (long i = 0; i < n; i++) {
		wl_surface_damage_buffer(child, 0, 0, 1, 1);
		wl_surface_commit(child);
		if ((i + 1) % 64 == 0 && wl_display_roundtrip(h->display) < 0) {
			return refused(h, "cached commits", i + 1);
		}
	}
	if (wl_display_roundtrip(h->display) < 0) {
		return refused(h, "cached commits", n);
	}
	printf("cached commits: all %ld kept\n", n);
	return 1;
}

/* region-copies SURFACES COMMITS / hold-region-copies: one wl_region of
 * 1,000 checkered 1x1 rectangles (charged once, as a region), set as the
 * opaque and the input region of SURFACES synchronized subsurfaces of one
 * parent that never commits, each committing COMMITS times: wlroots keeps
 * every commit with its own copies of both regions (32 KB each). Before
 * session 26 none of it was counted (SURFACES x COMMITS x 32 KB); now it
 * is charged to the client: the flood is refused by its memory account,
 * the hold shows in it. */
static int region_copies(struct hostile *h, long surfaces, long commits, bool hold)
{
	struct wl_region *region = wl_compositor_create_region(h->compositor);
	for (long i = 0; i < 1000; i++) {
		wl_region_add(region, (int32_t)(2 * (i % 100)), (int32_t)(2 * (i / 100)), 1, 1);
	}
	struct wl_surface *parent = wl_compositor_create_surface(h->compositor);
	if (!flush_all(h) || wl_display_roundtrip(h->display) < 0) {
		return refused(h, "region copies", 0);
	}
	long done = 0;
	for (long s = 0; s < surfaces; s++) {
		struct wl_surface *child = wl_compositor_create_surface(h->compositor);
		wl_subcompositor_get_subsurface(core.subcompositor, child, parent);
		for (long c = 0; c < commits; c++) {
			wl_surface_set_opaque_region(child, region);
			wl_surface_set_input_region(child, region);
			wl_surface_commit(child);
			done++;
			if (!flush_all(h) ||
					(done % 32 == 0 && wl_display_roundtrip(h->display) < 0)) {
				return refused(h, "region copies", done);
			}
		}
	}
	if (wl_display_roundtrip(h->display) < 0) {
		return refused(h, "region copies", done);
	}
	return hold ? hold_here(h, "region copies", done) :
		      (printf("region copies: all %ld kept\n", done), 1);
}

static int frames_done;

static void handle_frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
	frames_done++;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener frame_listener = { .done = handle_frame_done };

/* frame-flood N: N frame callbacks on one surface without a commit:
 * refused past surface-frame-callbacks. frame-commits N: a frame callback
 * and a commit, N times, on a surface no output shows: served, and the
 * callbacks are answered (all but the last surface-frame-callbacks). */
static int frames(struct hostile *h, long n, bool commit)
{
	struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
	for (long i = 0; i < n; i++) {
		wl_callback_add_listener(wl_surface_frame(surface), &frame_listener, NULL);
		if (commit) {
			wl_surface_commit(surface);
		}
		if ((i + 1) % 128 == 0 && wl_display_roundtrip(h->display) < 0) {
			return commit ? (fprintf(stderr, "smt-hostile: frame-commits ended\n"), 1) :
					refused(h, "frame callbacks", i + 1);
		}
	}
	if (wl_display_roundtrip(h->display) < 0) {
		return commit ? 1 : refused(h, "frame callbacks", n);
	}
	printf("FRAMES served: %ld asked, %d answered\n", n, frames_done);
	return commit ? 0 : 1;
}

/* token-flood N: xdg-activation tokens committed and their objects
 * destroyed at once; wlroots keeps each token 30 s. Each is charged as an
 * object: refused past client-objects. */
static int token_flood(struct hostile *h, long n)
{
	static char app_id[2000];
	memset(app_id, 'x', sizeof(app_id) - 1);
	for (long i = 0; i < n; i++) {
		struct xdg_activation_token_v1 *token = xdg_activation_v1_get_activation_token(
				core.activation);
		xdg_activation_token_v1_set_app_id(token, app_id);
		xdg_activation_token_v1_commit(token);
		xdg_activation_token_v1_destroy(token);
		if (!flush_all(h) || ((i + 1) % 64 == 0 && wl_display_roundtrip(h->display) < 0)) {
			return refused(h, "activation tokens", i + 1);
		}
	}
	if (wl_display_roundtrip(h->display) < 0) {
		return refused(h, "activation tokens", n);
	}
	return hold_here(h, "tokens", n);
}

/* inhibitor-flood N: N idle inhibitors on one surface: refused past
 * client-idle-inhibitors (each new one walked all before it). */
static int inhibitor_flood(struct hostile *h, long n)
{
	struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
	for (long i = 0; i < n; i++) {
		zwp_idle_inhibit_manager_v1_create_inhibitor(core.inhibit, surface);
		if ((i + 1) % 64 == 0 && wl_display_roundtrip(h->display) < 0) {
			return refused(h, "idle inhibitors", i + 1);
		}
	}
	if (wl_display_roundtrip(h->display) < 0) {
		return refused(h, "idle inhibitors", n);
	}
	printf("inhibitors: all %ld taken\n", n);
	return 1;
}

static struct {
	uint32_t format, width, height, stride;
} frame_buffer;

static void handle_frame_buffer(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t format,
		uint32_t width, uint32_t height, uint32_t stride)
{
	frame_buffer.format = format;
	frame_buffer.width = width;
	frame_buffer.height = height;
	frame_buffer.stride = stride;
}

static void handle_frame_flags(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t f)
{
}

static void handle_frame_ready(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t sec_hi,
		uint32_t sec_lo, uint32_t nsec)
{
}

static void handle_frame_failed(void *data, struct zwlr_screencopy_frame_v1 *frame)
{
}

static const struct zwlr_screencopy_frame_v1_listener frame_buffer_listener = {
	.buffer = handle_frame_buffer,
	.flags = handle_frame_flags,
	.ready = handle_frame_ready,
	.failed = handle_frame_failed,
};

/* A first frame of the output (*first), and a wl_shm buffer of the size
 * and format it asks for (NULL: no format was said), in a memfd or, with
 * path, in that file. */
static struct wl_buffer *screencopy_buffer_in(
		struct hostile *h, struct zwlr_screencopy_frame_v1 **first, const char *path)
{
	*first = zwlr_screencopy_manager_v1_capture_output(core.screencopy, 0, core.output);
	zwlr_screencopy_frame_v1_add_listener(*first, &frame_buffer_listener, NULL);
	if (wl_display_roundtrip(h->display) < 0 || frame_buffer.width == 0) {
		fprintf(stderr, "smt-hostile: no screencopy buffer format\n");
		return NULL;
	}
	size_t size = (size_t)frame_buffer.stride * frame_buffer.height;
	int fd = path != NULL ? open(path, O_RDWR | O_CLOEXEC) : make_memfd(size, 0);
	if (fd < 0) {
		fprintf(stderr, "smt-hostile: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	struct wl_shm_pool *pool = wl_shm_create_pool(core.shm, fd, (int32_t)size);
	close(fd);
	return wl_shm_pool_create_buffer(pool, 0, (int32_t)frame_buffer.width,
			(int32_t)frame_buffer.height, (int32_t)frame_buffer.stride,
			frame_buffer.format);
}

static struct wl_buffer *screencopy_buffer(
		struct hostile *h, struct zwlr_screencopy_frame_v1 **first)
{
	return screencopy_buffer_in(h, first, NULL);
}

/* shm-pool-file PATH: a screen capture into a wl_shm pool of PATH (a file
 * of the size the capture asks for, made by the caller: on FUSE, the
 * compositor's copy into it would wait for the file's server). The pool
 * must be refused. */
static int shm_pool_file(struct hostile *h, const char *path)
{
	struct zwlr_screencopy_frame_v1 *first;
	struct wl_buffer *buffer = screencopy_buffer_in(h, &first, path);
	if (buffer == NULL) {
		return 1;
	}
	zwlr_screencopy_frame_v1_copy(first, buffer);
	return refused(h, "shm pool of a file", 1);
}

/* shm-stride FORMAT STRIDE: a wl_shm buffer 1000 pixels wide and 8 rows
 * in a pool of exactly STRIDE x 8 bytes (what libwayland asks). A stride
 * shorter than its pixels of FORMAT (argb8888, rgb565) made the compositor read its
 * last rows past the pool (SIGSEGV, session 35): it must be refused
 * (exit 0 on the implementation error); a stride that fits must be
 * served (exit 0 after a round trip without error, "served"). */
static int shm_stride(struct hostile *h, const char *format_name, int stride)
{
	const int width = 1000;
	uint32_t format = strcmp(format_name, "rgb565") == 0 ? WL_SHM_FORMAT_RGB565 :
							       WL_SHM_FORMAT_ARGB8888;
	int bpp = format == WL_SHM_FORMAT_RGB565 ? 2 : 4;
	const int height = 8;
	int fd = make_memfd((size_t)stride * height, 0);
	if (fd < 0) {
		return 1;
	}
	struct wl_shm_pool *pool = wl_shm_create_pool(core.shm, fd, stride * height);
	close(fd);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(
			pool, 0, width, height, stride, format);
	(void)buffer;
	if (stride < width * bpp) {
		return refused(h, "shm buffer with a short stride", 1);
	}
	if (wl_display_roundtrip(h->display) < 0) {
		fprintf(stderr, "smt-hostile: a buffer of a fitting stride refused\n");
		return 1;
	}
	printf("shm buffer %dx%d stride %d: served\n", width, height, stride);
	return 0;
}

/* screencopy-flood N: N frames of the first output, each asked to copy
 * into one wl_shm buffer, none destroyed: refused past
 * client-screencopy-copies (each waiting copy is a copy of the whole
 * output at its next commit). hold-screencopy N: N such frames kept
 * until killed (each charged to the client until destroyed). */
static int screencopy_flood(struct hostile *h, long n, bool hold)
{
	struct zwlr_screencopy_frame_v1 *first;
	struct wl_buffer *buffer = screencopy_buffer(h, &first);
	if (buffer == NULL) {
		return 1;
	}
	zwlr_screencopy_frame_v1_copy(first, buffer);
	for (long i = 1; i < n; i++) {
		struct zwlr_screencopy_frame_v1 *frame = zwlr_screencopy_manager_v1_capture_output(
				core.screencopy, 0, core.output);
		zwlr_screencopy_frame_v1_add_listener(frame, &frame_buffer_listener, NULL);
		zwlr_screencopy_frame_v1_copy(frame, buffer);
		if ((i + 1) % 8 == 0 && wl_display_roundtrip(h->display) < 0) {
			return refused(h, "screencopy copies", i + 1);
		}
	}
	if (wl_display_roundtrip(h->display) < 0) {
		return refused(h, "screencopy copies", n);
	}
	printf("screencopy: all %ld copies taken\n", n);
	return hold ? hold_here(h, "screencopy frames", n) : 1;
}

/* What screencopy-loop saw: copies answered, failed, and per output
 * commit (a ready event's time is its commit's) how many were answered. */
static struct {
	int ready, failed;
	struct loop_commit {
		uint64_t when_ns;
		int copies;
	} * commits;
	size_t count, cap;
} loop;

static void loop_count_commit(uint64_t when_ns)
{
	if (loop.count > 0 && loop.commits[loop.count - 1].when_ns == when_ns) {
		loop.commits[loop.count - 1].copies++;
		return;
	}
	if (loop.count == loop.cap) {
		size_t cap = loop.cap > 0 ? loop.cap * 2 : 256;
		struct loop_commit *commits = realloc(loop.commits, cap * sizeof(*commits));
		if (commits == NULL) {
			return;
		}
		loop.commits = commits;
		loop.cap = cap;
	}
	loop.commits[loop.count++] = (struct loop_commit){ when_ns, 1 };
}

/* SIGTERM: stop asking, wait for the copies asked, report. */
static volatile sig_atomic_t loop_stop;

static void handle_loop_stop(int sig)
{
	loop_stop = 1;
}

static void handle_loop_ready(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t sec_hi,
		uint32_t sec_lo, uint32_t nsec)
{
	if (++loop.ready == 1 || loop.ready == 10) {
		printf("SCREENCOPY_READY %d\n", loop.ready); /* tests wait for them */
		fflush(stdout);
	}
	loop_count_commit((((uint64_t)sec_hi << 32) | sec_lo) * 1000000000u + nsec);
	zwlr_screencopy_frame_v1_destroy(frame);
	*(int *)data -= 1;
}

static void handle_loop_failed(void *data, struct zwlr_screencopy_frame_v1 *frame)
{
	loop.failed++;
	zwlr_screencopy_frame_v1_destroy(frame);
	*(int *)data -= 1;
}

static const struct zwlr_screencopy_frame_v1_listener loop_listener = {
	.buffer = handle_frame_buffer,
	.flags = handle_frame_flags,
	.ready = handle_loop_ready,
	.failed = handle_loop_failed,
};

/* screencopy-loop N SECONDS: N copies of the whole output always waiting
 * (each one done is replaced at once), for SECONDS or until SIGTERM, then
 * the last ones waited for: without a budget every output commit copies the output N
 * times. Served; prints "SCREENCOPY_LOOP copies=C failed=F asked=A", then
 * "SCREENCOPY_COMMITS" and each output commit that answered some as
 * TIME_NS:COPIES (the budget's test merges several clients' lines). */
static int screencopy_loop(struct hostile *h, long n, double seconds)
{
	struct zwlr_screencopy_frame_v1 *first;
	struct wl_buffer *buffer = screencopy_buffer(h, &first);
	if (buffer == NULL) {
		return 1;
	}
	zwlr_screencopy_frame_v1_destroy(first);
	struct sigaction stop = { .sa_handler = handle_loop_stop };
	sigaction(SIGTERM, &stop, NULL);
	int waiting = 0;
	long asked = 0;
	double end = now_ms() + seconds * 1000;
	while ((now_ms() < end && !loop_stop) || waiting > 0) {
		while (waiting < n && now_ms() < end && !loop_stop) {
			struct zwlr_screencopy_frame_v1 *frame =
					zwlr_screencopy_manager_v1_capture_output(
							core.screencopy, 0, core.output);
			zwlr_screencopy_frame_v1_add_listener(frame, &loop_listener, &waiting);
			zwlr_screencopy_frame_v1_copy(frame, buffer);
			waiting++;
			asked++;
		}
		if (wl_display_dispatch(h->display) < 0) {
			fprintf(stderr, "smt-hostile: screencopy-loop ended by the compositor\n");
			return 1;
		}
	}
	printf("SCREENCOPY_LOOP copies=%d failed=%d asked=%ld\n", loop.ready, loop.failed, asked);
	printf("SCREENCOPY_COMMITS");
	for (size_t i = 0; i < loop.count; i++) {
		printf(" %llu:%d", (unsigned long long)loop.commits[i].when_ns,
				loop.commits[i].copies);
	}
	printf("\n");
	free(loop.commits);
	return 0;
}

/* A screencopy-drop frame answered: its slot is emptied. */
static void handle_drop_ready(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t sec_hi,
		uint32_t sec_lo, uint32_t nsec)
{
	loop.ready++;
	*(struct zwlr_screencopy_frame_v1 **)data = NULL;
	zwlr_screencopy_frame_v1_destroy(frame);
}

static void handle_drop_failed(void *data, struct zwlr_screencopy_frame_v1 *frame)
{
	loop.failed++;
	*(struct zwlr_screencopy_frame_v1 **)data = NULL;
	zwlr_screencopy_frame_v1_destroy(frame);
}

static const struct zwlr_screencopy_frame_v1_listener drop_listener = {
	.buffer = handle_frame_buffer,
	.flags = handle_frame_flags,
	.ready = handle_drop_ready,
	.failed = handle_drop_failed,
};

/* screencopy-drop N SECONDS: N copies asked at once, events read until
 * one is answered (an output commit saw them all waiting), then the ones
 * not yet answered destroyed, again and again for SECONDS: with a budget
 * under N, frames that go while the budget holds them back. Served; prints "SCREENCOPY_DROP asked=A ready=R
 * failed=F dropped=D". */
static int screencopy_drop(struct hostile *h, long n, double seconds)
{
	struct zwlr_screencopy_frame_v1 *first;
	struct wl_buffer *buffer = screencopy_buffer(h, &first);
	if (buffer == NULL || n <= 0) {
		return 1;
	}
	zwlr_screencopy_frame_v1_destroy(first);
	struct zwlr_screencopy_frame_v1 **frames = calloc((size_t)n, sizeof(*frames));
	if (frames == NULL) {
		return 1;
	}
	long asked = 0, dropped = 0;
	double end = now_ms() + seconds * 1000;
	while (now_ms() < end) {
		for (long i = 0; i < n; i++) {
			frames[i] = zwlr_screencopy_manager_v1_capture_output(
					core.screencopy, 0, core.output);
			zwlr_screencopy_frame_v1_add_listener(
					frames[i], &drop_listener, &frames[i]);
			zwlr_screencopy_frame_v1_copy(frames[i], buffer);
			asked++;
		}
		int answered = loop.ready + loop.failed;
		while (loop.ready + loop.failed == answered) {
			if (wl_display_dispatch(h->display) < 0) {
				fprintf(stderr, "smt-hostile: screencopy-drop ended by the compositor\n");
				free(frames);
				return 1;
			}
		}
		for (long i = 0; i < n; i++) {
			if (frames[i] != NULL) {
				zwlr_screencopy_frame_v1_destroy(frames[i]);
				frames[i] = NULL;
				dropped++;
			}
		}
	}
	free(frames);
	printf("SCREENCOPY_DROP asked=%ld ready=%d failed=%d dropped=%ld\n", asked, loop.ready,
			loop.failed, dropped);
	return 0;
}

int hostile_core_case(struct hostile *h, const char *name, const char *arg, const char *arg2,
		bool *handled)
{
	*handled = true;
	long n = arg != NULL ? atol(arg) : 100000;
	if (strcmp(name, "offer-flood") == 0 || strcmp(name, "hold-offers") == 0) {
		return bind_core(h) ?
				offers(h, arg != NULL ? arg : "data",
						arg2 != NULL ? atol(arg2) : 50000, name[0] == 'h') :
				1;
	} else if (strcmp(name, "damage-flood") == 0) {
		return bind_core(h) ? damage_flood(h, n, arg2 != NULL ? atof(arg2) : 0) : 1;
	} else if (strcmp(name, "region-rects") == 0 || strcmp(name, "hold-region") == 0) {
		return bind_core(h) ? region_rects(h, n, name[0] == 'h') : 1;
	} else if (strcmp(name, "region-copies") == 0 || strcmp(name, "hold-region-copies") == 0) {
		return bind_core(h) ? region_copies(h, n, arg2 != NULL ? atol(arg2) : 256,
						      name[0] == 'h') :
				      1;
	} else if (strcmp(name, "cached-commits") == 0) {
		return bind_core(h) ? cached_commits(h, n) : 1;
	} else if (strcmp(name, "frame-flood") == 0 || strcmp(name, "frame-commits") == 0) {
		return bind_core(h) ? frames(h, n, name[6] == 'c') : 1;
	} else if (strcmp(name, "screencopy-drop") == 0) {
		return bind_core(h) ? screencopy_drop(h, n, arg2 != NULL ? atof(arg2) : 5) : 1;
	} else if (strcmp(name, "screencopy-loop") == 0) {
		return bind_core(h) ? screencopy_loop(h, n, arg2 != NULL ? atof(arg2) : 5) : 1;
	} else if (strcmp(name, "screencopy-flood") == 0 || strcmp(name, "hold-screencopy") == 0) {
		return bind_core(h) ? screencopy_flood(h, n, name[0] == 'h') : 1;
	} else if (strcmp(name, "shm-pool-file") == 0) {
		return arg != NULL && bind_core(h) ? shm_pool_file(h, arg) : 1;
	} else if (strcmp(name, "shm-stride") == 0) {
		return arg != NULL && arg2 != NULL && bind_core(h) ?
				shm_stride(h, arg, atoi(arg2)) :
				1;
	} else if (strcmp(name, "inhibitor-flood") == 0) {
		return bind_core(h) ? inhibitor_flood(h, n) : 1;
	} else if (strcmp(name, "token-flood") == 0) {
		return bind_core(h) ? token_flood(h, n) : 1;
	}
	*handled = false;
	return 0;
}

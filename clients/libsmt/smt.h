/*
 * libsmt — draw into smtwc windows through the shared-memory command ring.
 *
 * One struct smt_ctx per Wayland connection holds one ring. Draw calls
 * encode commands (protocol/smt-ring.h) into it; smt_flush() makes them
 * visible to the compositor; PRESENT (smt_window_present) puts a frame on
 * screen. See docs/libsmt.md for a walk-through.
 *
 * Conventions:
 *  - Functions returning int give 0 (or a count) on success and a negative
 *    errno on failure: -EINVAL bad argument (nothing was written),
 *    -E2BIG a command that cannot fit (use a pool), -EPIPE the connection
 *    or the ring is dead (smt_error_message() says why). Once dead, every
 *    call returns -EPIPE; nothing crashes.
 *  - Colours are premultiplied 0xAARRGGBB; ops are enum smt_paint_op.
 *  - Single-threaded: one thread uses a context and its objects.
 *  - Callbacks run from smt_dispatch() (or a blocking call such as
 *    smt_window_create); draw calls made inside them are fine.
 */
#ifndef SMT_H
#define SMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/smt-ring-client.h"

#ifdef __cplusplus
extern "C" {
#endif

struct smt_ctx;
struct smt_window;
struct smt_pool;
struct smt_font;

enum smt_transport {
	SMT_TRANSPORT_AUTO = 0,   /* $SMT_TRANSPORT, else ring, else socket */
	SMT_TRANSPORT_RING = 1,   /* shared memory + eventfds */
	SMT_TRANSPORT_SOCKET = 2, /* the same bytes as smt_ring_v1.submit */
};

/* Input, for the window under the pointer / with keyboard focus. Times are
 * the compositor's milliseconds (CLOCK_MONOTONIC); buttons are linux/input
 * BTN_* codes; keycodes are evdev codes, keysym/utf8 from xkbcommon. */
struct smt_input_listener {
	void (*pointer_enter)(void *data, struct smt_window *win, double x, double y);
	void (*pointer_leave)(void *data, struct smt_window *win);
	void (*pointer_motion)(
			void *data, struct smt_window *win, uint32_t time_ms, double x, double y);
	void (*pointer_button)(void *data, struct smt_window *win, uint32_t time_ms,
			uint32_t button, bool pressed);
	void (*pointer_axis)(void *data, struct smt_window *win, uint32_t time_ms, uint32_t axis,
			double value);
	void (*keyboard_focus)(void *data, struct smt_window *win, bool focused);
	void (*key)(void *data, struct smt_window *win, uint32_t time_ms, uint32_t keycode,
			uint32_t keysym, const char *utf8, bool pressed);
};

struct smt_options {
	const char *display; /* NULL: $WAYLAND_DISPLAY */
	enum smt_transport transport;
	uint32_t area_size; /* ring area, power of two; 0: 512 KiB */
	const struct smt_input_listener *input;
	void *input_data;
};

/* ---- connection --------------------------------------------------------- */

/* Connects, binds the globals and creates the ring. NULL options: defaults.
 * Returns NULL (with a message on stderr) if there is no smtwc. */
struct smt_ctx *smt_connect(const struct smt_options *options);
/* Destroys windows, pools and fonts still alive, then disconnects. */
void smt_disconnect(struct smt_ctx *ctx);

enum smt_transport smt_transport(const struct smt_ctx *ctx);
/* A transport by its name, "ring" or "socket" (as the programs' --transport
 * and $SMT_TRANSPORT take it); false for any other name. */
bool smt_transport_from_name(const char *name, enum smt_transport *transport);
/* "ring", "socket", or "auto" (not connected yet). */
const char *smt_transport_name(enum smt_transport transport);
const char *smt_error_message(const struct smt_ctx *ctx); /* "" if none */
bool smt_failed(const struct smt_ctx *ctx);

/* The Wayland fd, for an application's own poll loop: poll it for POLLIN,
 * then call smt_dispatch(ctx, 0). Blocking draw calls read the socket
 * too, queueing events without dispatching them: call smt_dispatch(ctx, 0)
 * before blocking in poll, or a queued event waits for the next one. */
int smt_get_fd(struct smt_ctx *ctx);
/* Flushes commands and requests, then dispatches events, waiting up to
 * timeout_ms (-1: forever, 0: not at all) if none are queued. Returns the
 * number of events dispatched, or a negative errno. */
int smt_dispatch(struct smt_ctx *ctx, int timeout_ms);
/* Dispatches events as they come until CLOCK_MONOTONIC reaches deadline_ns
 * (nanosecond precision, for measuring clients), or until a callback sets
 * *keep_going to false (NULL: only the deadline). Returns 0, or a negative
 * errno as smt_dispatch does. */
int smt_dispatch_until(struct smt_ctx *ctx, uint64_t deadline_ns, const bool *keep_going);

/* Makes everything written so far visible to the compositor (ring: publish
 * head, write its eventfd only if it sleeps; socket: send submits). */
int smt_flush(struct smt_ctx *ctx);

/* ---- fences ------------------------------------------------------------- */

/* Appends a FENCE; returns its serial (> 0), or 0 on failure. */
uint64_t smt_fence(struct smt_ctx *ctx);
/* Flushes and waits until the compositor executed FENCE `serial`. */
int smt_wait_fence(struct smt_ctx *ctx, uint64_t serial);
/* smt_fence + smt_wait_fence: every command so far has executed. */
int smt_sync(struct smt_ctx *ctx);
/* Highest FENCE serial known to be executed (never blocks). */
uint64_t smt_completed_fence(struct smt_ctx *ctx);

/* ---- windows ------------------------------------------------------------ */

struct smt_window_listener {
	/* The compositor resized the window; the canvas has the new size and
	 * keeps what fitted: redraw and present. */
	void (*resize)(void *data, struct smt_window *win, uint32_t width, uint32_t height);
	void (*close)(void *data, struct smt_window *win);
	/* A PRESENT reached the screen (display_ns 0: window not visible). */
	void (*presented)(void *data, struct smt_window *win, uint32_t serial, uint64_t exec_ns,
			uint64_t display_ns);
};

/* An xdg_toplevel whose content is a canvas of width x height. Blocks
 * until the compositor configured it; the canvas starts transparent. */
struct smt_window *smt_window_create(struct smt_ctx *ctx, const char *title, const char *app_id,
		uint32_t width, uint32_t height);
void smt_window_destroy(struct smt_window *win);
void smt_window_set_listener(
		struct smt_window *win, const struct smt_window_listener *l, void *data);
uint32_t smt_window_canvas(const struct smt_window *win); /* drawable id */
uint32_t smt_window_width(const struct smt_window *win);
uint32_t smt_window_height(const struct smt_window *win);
bool smt_window_closed(const struct smt_window *win);
/* PRESENT of the canvas with the given damage (n == 0: all of it); the
 * serial is reported back through listener->presented. Too many damage
 * rectangles for one command present the whole canvas. Does not flush. */
int smt_window_present(struct smt_window *win, uint32_t n, const struct smt_rect *damage,
		uint32_t *serial);

/* ---- drawing commands (into the current target) ------------------------- */

/* Pixmaps: compositor-side images; ids come from the library. Returns the
 * id, or 0 on failure. */
uint32_t smt_create_pixmap(struct smt_ctx *ctx, uint32_t width, uint32_t height, uint32_t format);
int smt_free_pixmap(struct smt_ctx *ctx, uint32_t id);
int smt_set_target(struct smt_ctx *ctx, uint32_t drawable_id);
/* n == 0: no clip (the whole target). */
int smt_set_clip(struct smt_ctx *ctx, uint32_t n, const struct smt_rect *rects);

/* Array commands are split over as many commands as needed. */
int smt_fill_rects(struct smt_ctx *ctx, uint32_t op, uint32_t colour, size_t n,
		const struct smt_rect *rects);
int smt_fill_rect(struct smt_ctx *ctx, uint32_t op, uint32_t colour, int32_t x, int32_t y,
		uint32_t width, uint32_t height);
int smt_points(struct smt_ctx *ctx, uint32_t op, uint32_t colour, size_t n,
		const struct smt_point *points);
/* line_width 0: thin (1-pixel Bresenham); else wide, up to SMT_MAX_LINE_WIDTH. */
int smt_segments(struct smt_ctx *ctx, uint32_t op, uint32_t colour, uint32_t line_width, size_t n,
		const struct smt_segment *segments);

/* Inline image: the pixels are copied into the ring. -E2BIG when the
 * command exceeds smt_max_inline_image(); use smt_put_image_rows (several
 * commands) or a pool then. stride % 4 == 0. */
int smt_put_image(struct smt_ctx *ctx, int32_t x, int32_t y, uint32_t width, uint32_t height,
		uint32_t format, uint32_t stride, const void *pixels);
int smt_put_image_rows(struct smt_ctx *ctx, int32_t x, int32_t y, uint32_t width, uint32_t height,
		uint32_t format, uint32_t stride, const void *pixels);
uint32_t smt_max_inline_image(const struct smt_ctx *ctx); /* command bytes */

/* Copies a rectangle of src (any drawable, the target itself included:
 * overlapping copies scroll correctly) to the target. */
int smt_copy_area(struct smt_ctx *ctx, uint32_t src_id, int32_t src_x, int32_t src_y,
		uint32_t width, uint32_t height, int32_t dst_x, int32_t dst_y);
/* Porter-Duff composite of src (through the A8 mask, 0: none) onto the target. */
int smt_composite(struct smt_ctx *ctx, uint32_t op, uint32_t src_id, uint32_t mask_id,
		int32_t src_x, int32_t src_y, int32_t mask_x, int32_t mask_y, int32_t dst_x,
		int32_t dst_y, uint32_t width, uint32_t height);
int smt_glyphs(struct smt_ctx *ctx, uint32_t op, uint32_t colour, uint32_t atlas_id,
		int32_t origin_x, int32_t origin_y, size_t n, const struct smt_glyph *glyphs);
/* Raw PRESENT (smt_window_present is the usual way). */
int smt_present(struct smt_ctx *ctx, uint32_t canvas_id, uint32_t serial, uint32_t n,
		const struct smt_rect *damage);
/* A NOOP command of `bytes` (multiple of 8, >= 8): benchmarks. */
int smt_noop(struct smt_ctx *ctx, uint32_t bytes);

/*
 * Batches: room for many commands at once, encoded in place with the
 * smt_encode_* functions of protocol/smt-ring.h, for programs that write
 * thousands of small commands (one reservation and one commit per batch
 * instead of per command). smt_reserve returns where to write and sets
 * *room to the bytes available there: a multiple of 8 from `min` to `max`
 * (max is capped at smt_max_inline_image's bound, the largest command; min
 * must be a multiple of 8 and at most that). It waits for the compositor
 * as a draw call does. smt_commit completes the first `bytes` of the room
 * (a multiple of 8, <= room) holding `commands` whole commands; nothing
 * else may use ctx in between. Errors: smt_reserve returns NULL (errno
 * EINVAL for bad sizes; otherwise the connection failed, see
 * smt_error_message); smt_commit returns -EINVAL for a size it did not
 * grant, or the error of the flush it may do.
 */
void *smt_reserve(struct smt_ctx *ctx, uint32_t min, uint32_t max, uint32_t *room);
int smt_commit(struct smt_ctx *ctx, uint32_t bytes, uint32_t commands);

/* Called with every command the library writes, in order, PADs excepted
 * (so the bytes are a valid submit stream; a batch of smt_commit comes in
 * one call). NULL to stop. */
typedef void (*smt_tap_fn)(void *data, const void *command, size_t size);
void smt_set_tap(struct smt_ctx *ctx, smt_tap_fn fn, void *data);

/* ---- pools: images shared by reference ---------------------------------- */
/*
 * A pool is one memfd the compositor maps once; images live at offsets in
 * it and PUT_IMAGE_POOL names them, so the pixels are never copied through
 * the ring.
 *
 * THE RULE: the compositor reads pool memory when it executes the command,
 * later than the call. Do not overwrite or free a block until a fence
 * written AFTER the last command that uses it has completed. Either wait
 * (smt_sync) and smt_pool_free, or hand it to smt_pool_free_after with
 * the serial of such a fence (smt_fence): the block is reclaimed once the
 * compositor reports that fence.
 *
 * Growing the pool may move its mapping: re-fetch pointers with
 * smt_pool_ptr after any smt_pool_alloc / smt_image_alloc.
 */
struct smt_pool *smt_pool_create(struct smt_ctx *ctx, uint64_t initial_size);
void smt_pool_destroy(struct smt_pool *pool);
uint32_t smt_pool_id(const struct smt_pool *pool);
uint64_t smt_pool_size(const struct smt_pool *pool);
/* 64-byte aligned; grows the pool when full (up to 4 GiB). */
int smt_pool_alloc(struct smt_pool *pool, uint64_t bytes, uint64_t *offset);
int smt_pool_free(struct smt_pool *pool, uint64_t offset);
int smt_pool_free_after(struct smt_pool *pool, uint64_t offset, uint64_t fence_serial);
/* Frees deferred blocks whose fence completed; returns how many. */
int smt_pool_reclaim(struct smt_pool *pool);
void *smt_pool_ptr(struct smt_pool *pool, uint64_t offset);

struct smt_image {
	uint64_t offset;
	uint32_t width, height, stride, format;
	void *data; /* valid until the pool grows (smt_pool_ptr) */
};
int smt_image_alloc(struct smt_pool *pool, uint32_t width, uint32_t height, uint32_t format,
		struct smt_image *out);
/* PUT_IMAGE_POOL of the whole image at (x, y) on the target. */
int smt_put_image_pool(struct smt_ctx *ctx, struct smt_pool *pool, const struct smt_image *img,
		int32_t x, int32_t y);

/* ---- text ----------------------------------------------------------------- */

/* Rasterises ASCII 32..126 of a fontconfig pattern ("monospace",
 * "DejaVu Sans:bold") into an A8 pixmap atlas. NULL on failure. */
struct smt_font *smt_font_load(struct smt_ctx *ctx, const char *pattern, uint32_t pixel_size);
void smt_font_destroy(struct smt_font *font);
struct smt_font_metrics {
	int32_t ascent, descent, line_height, max_advance; /* pixels */
	uint32_t atlas_id;
};
void smt_font_metrics(const struct smt_font *font, struct smt_font_metrics *m);
uint32_t smt_text_width(const struct smt_font *font, const char *utf8);
/* Draws with its baseline starting at (x, y), OVER the target. Characters
 * outside ASCII are drawn as '?'. */
int smt_draw_text(struct smt_ctx *ctx, struct smt_font *font, int32_t x, int32_t y, uint32_t colour,
		const char *utf8);

/* ---- counters ------------------------------------------------------------- */

struct smt_stats {
	enum smt_transport transport;
	uint32_t area_size;
	uint64_t head, published, tail; /* stream positions (bytes) */
	uint64_t last_fence, completed_fence;
	uint64_t commands_written, pads_written;
	uint64_t commands_executed, bytes_executed; /* from the status page */
	uint64_t wakeups_sent;                      /* client -> server eventfd writes */
	uint64_t wakeups_to_client;                 /* server -> client (status page) */
	uint64_t wakeups_from_client;               /* server eventfd reads it observed */
	uint64_t full_waits, sleeps;                /* ring full; times we blocked in poll */
	/* ring waits that spun, whose spin saw the tail reach the need, whose
	 * spin ended because the compositor slept; waits that slept at once
	 * for the spin's back-off, and full-ring waits that did because the
	 * compositor frees half the ring slowly (no spin could pay) */
	uint64_t spins, spins_reached, spins_server_asleep, spin_skips, slow_drain_sleeps;
	uint64_t submits, submit_bytes;     /* socket transport */
	uint32_t server_asleep, generation; /* global status page */
	bool dead;
	uint32_t error_code, error_opcode;
	uint64_t error_offset;
};
int smt_get_stats(struct smt_ctx *ctx, struct smt_stats *out);

#ifdef __cplusplus
}
#endif

#endif

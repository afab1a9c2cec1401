/* libsmt internals shared by its source files (not installed). */
#ifndef SMT_INTERNAL_H
#define SMT_INTERNAL_H

#include <wayland-client.h>

#include "clients/libsmt/chunker.h"
#include "clients/libsmt/ring-writer.h"
#include "clients/libsmt/smt.h"

struct xkb_context;
struct xkb_keymap;
struct xkb_state;

/* Drawable ids below the compositor's default table size (1 << 18). */
#define SMT_DRAWABLE_ID_MAX ((1u << 18) - 1)
#define SMT_POOL_ID_MAX 1023u

/* Socket transport tuning (see transport.c). */
#define SMT_SOCKET_BATCH (32u * 1024u)        /* send when this much is queued */
#define SMT_SOCKET_FENCE_EVERY (256u * 1024u) /* an automatic FENCE this often */
#define SMT_SOCKET_WINDOW \
	(768u * 1024u) /* unacknowledged bytes in flight;
                                              * the compositor allows 1 MiB */
#define SMT_SOCKET_MAX_CMD (256u * 1024u)

/* Recycles small integer ids (a stack of released ones, then a counter). */
struct smt_ids {
	uint32_t next, max;
	uint32_t *free;
	size_t n_free, cap;
};

struct smt_fence_mark {
	uint64_t serial, end_pos; /* stream position after the FENCE */
};

struct smt_ctx {
	struct wl_display *display;
	struct wl_registry *registry;
	/* Library-internal events (ring status and fences, pings, syncs) go to
	 * this queue, so waiting inside a draw call never runs application
	 * callbacks (no re-entrancy); the default queue holds those. */
	struct wl_event_queue *queue;
	struct wl_display *display_q; /* display wrapper bound to queue */
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct wp_viewporter *viewporter;
	struct xdg_wm_base *wm_base;
	struct zxdg_decoration_manager_v1 *decoration;
	struct wl_seat *seat;
	struct wl_pointer *pointer;
	struct wl_keyboard *keyboard;
	struct smt_ring_manager_v1 *manager;
	struct smt_ring_v1 *ring;
	struct wl_buffer *pixel; /* 1x1 buffer every window shows */

	struct smt_options opts;
	enum smt_transport transport;
	uint32_t max_cmd; /* largest command accepted */

	/* shared-memory ring */
	int ring_fd, server_efd, client_efd;
	void *ring_map;
	size_t ring_map_size;
	struct smt_ring_writer w;
	uint64_t full_waits, sleeps, wakeups_sent;
	/* ring_wait_tail's spin back-off: waits left without spinning, and
	 * how many the next failed spin skips (transport.c). */
	uint32_t spin_skip, spin_backoff;
	uint64_t spins, spins_reached, spins_server_asleep, spin_skips;
	uint64_t slow_drain_sleeps; /* smt_ring_writer_drains_slowly */
	uint64_t commands;          /* written, both transports, PADs excepted */

	/* server pages (both transports get them) */
	const struct smt_ring_status *status;
	const struct smt_global_status *global;
	bool got_status;

	/* socket transport: queued whole commands, sbuf[ssent..slen) unsent */
	uint8_t *sbuf;
	size_t slen, scap, ssent;
	struct smt_chunker chunker;
	uint64_t stream_pos, sent_pos, acked_pos, last_fence_pos;
	uint64_t submits, submit_bytes;

	/* fences: marks of FENCEs not yet known complete, oldest first */
	uint64_t next_fence, completed_fence;
	struct smt_fence_mark *marks;
	size_t n_marks, cap_marks;

	struct smt_ids drawables, pool_ids;
	uint32_t target; /* last SET_TARGET (font upload restores it) */
	struct wl_list windows, pools, fonts;

	uint8_t *cur;  /* command being encoded (for the tap) */
	uint32_t room; /* bytes of smt_reserve's room (smt_commit) */
	smt_tap_fn tap;
	void *tap_data;

	/* input */
	struct smt_window *pointer_focus, *keyboard_focus;
	struct xkb_context *xkb;
	struct xkb_keymap *keymap;
	struct xkb_state *xkb_state;

	bool failed;
	char error[256];
};

struct smt_window {
	struct smt_ctx *ctx;
	struct wl_list link;
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	struct zxdg_toplevel_decoration_v1 *decoration;
	struct wp_viewport *viewport;
	struct smt_canvas_v1 *canvas;
	uint32_t canvas_id;
	uint32_t width, height;
	uint32_t pending_w, pending_h, configure_serial;
	bool configured, configure_pending, closed;
	uint32_t present_serial;
	const struct smt_window_listener *listener;
	void *data;
};

/* context.c */
int smt__fail(struct smt_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int smt__check(struct smt_ctx *ctx); /* -EPIPE if dead (also polls DEAD/display) */
uint32_t smt__id_get(struct smt_ids *ids);
void smt__id_put(struct smt_ids *ids, uint32_t id);
/* Waits for the Wayland fd (and extra_fd if >= 0) up to timeout_ms,
 * reading events into their queues and dispatching only the internal
 * queue. want_out: also wake when the socket is writable. */
int smt__wait_io(struct smt_ctx *ctx, int extra_fd, int timeout_ms, bool want_out);
/* Round trip on the internal queue: every request sent so far has been
 * processed by the compositor (ring commands written later cannot
 * overtake it). */
int smt__roundtrip(struct smt_ctx *ctx);
/* Sends pending requests, waiting for POLLOUT rather than overflowing
 * libwayland's 4 KiB buffer. */
int smt__flush_requests(struct smt_ctx *ctx);
void smt__windows_apply_configures(struct smt_ctx *ctx);
/* The window owning a wl_surface (input events), or NULL. */
struct smt_window *smt__window_from_surface(struct smt_ctx *ctx, struct wl_surface *s);

/* An fd of `size` zero bytes for a wl_shm buffer (memfd, else tmpfile). */
int smt__anon_fd(size_t size);

/* transport.c */
int smt__transport_init(struct smt_ctx *ctx);
void smt__transport_fini(struct smt_ctx *ctx);
/* Space for one command of size bytes (multiple of 8, <= max_cmd): NULL
 * if the context died. Encode there, then smt__end with the same size. */
void *smt__begin(struct smt_ctx *ctx, uint32_t size);
int smt__end(struct smt_ctx *ctx, uint32_t size);
uint64_t smt__ring_dead(struct smt_ctx *ctx); /* nonzero: DEAD flag seen */

/* input.c */
void smt__input_seat_bind(struct smt_ctx *ctx, uint32_t name, uint32_t version);
void smt__input_fini(struct smt_ctx *ctx);

/* window.c, pool.c, font.c teardown for smt_disconnect */
void smt__pool_destroy_all(struct smt_ctx *ctx);
void smt__font_destroy_all(struct smt_ctx *ctx);

#endif

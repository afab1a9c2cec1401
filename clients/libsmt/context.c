/* libsmt: connection, globals, event dispatch, errors. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/monotonic_clock.h"
#include "clients/libsmt/smt-internal.h"
#include "smt-ring-v1-client-protocol.h"
#include "viewporter-client-protocol.h"
#include "xdg-decoration-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

/* ---- errors --------------------------------------------------------------- */

int smt__fail(struct smt_ctx *ctx, const char *fmt, ...)
{
	if (ctx->failed)
		return -EPIPE;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ctx->error, sizeof(ctx->error), fmt, ap);
	va_end(ap);
	ctx->failed = true;
	fprintf(stderr, "libsmt: %s\n", ctx->error);
	return -EPIPE;
}

static const char *const error_names[] = {
	"none",
	"bad_head",
	"bad_size",
	"truncated",
	"wrap",
	"too_large",
	"bad_opcode",
	"bad_length",
	"bad_value",
	"bad_geometry",
	"bad_drawable",
	"id_in_use",
	"no_target",
	"bad_format",
	"bad_stride",
	"bad_pool",
	"out_of_bounds",
	"limit",
	"no_memory",
};

int smt__check(struct smt_ctx *ctx)
{
	if (ctx->failed)
		return -EPIPE;
	if (smt__ring_dead(ctx)) {
		uint32_t code = atomic_load_explicit(
				&((struct smt_ring_status *)ctx->status)->error_code,
				memory_order_relaxed);
		return smt__fail(ctx, "the compositor ended the ring: %s (opcode %u, offset %llu)",
				code < sizeof(error_names) / sizeof(*error_names) ?
						error_names[code] :
						"?",
				atomic_load_explicit(&((struct smt_ring_status *)ctx->status)
								      ->error_opcode,
						memory_order_relaxed),
				(unsigned long long)atomic_load_explicit(
						&((struct smt_ring_status *)ctx->status)
								 ->error_offset,
						memory_order_relaxed));
	}
	int err = wl_display_get_error(ctx->display);
	if (err) {
		const struct wl_interface *iface = NULL;
		uint32_t id = 0;
		if (err == EPROTO) {
			uint32_t code = wl_display_get_protocol_error(ctx->display, &iface, &id);
			return smt__fail(ctx, "protocol error %u on %s@%u (message above)", code,
					iface ? iface->name : "?", id);
		}
		return smt__fail(ctx, "Wayland connection lost: %s", strerror(err));
	}
	return 0;
}

const char *smt_error_message(const struct smt_ctx *ctx)
{
	return ctx->error;
}
bool smt_failed(const struct smt_ctx *ctx)
{
	return ctx->failed;
}
enum smt_transport smt_transport(const struct smt_ctx *ctx)
{
	return ctx->transport;
}
bool smt_transport_from_name(const char *name, enum smt_transport *transport)
{
	if (!strcmp(name, "ring"))
		*transport = SMT_TRANSPORT_RING;
	else if (!strcmp(name, "socket"))
		*transport = SMT_TRANSPORT_SOCKET;
	else
		return false;
	return true;
}
const char *smt_transport_name(enum smt_transport transport)
{
	return transport == SMT_TRANSPORT_RING            ? "ring" :
			transport == SMT_TRANSPORT_SOCKET ? "socket" :
							    "auto";
}
int smt_get_fd(struct smt_ctx *ctx)
{
	return wl_display_get_fd(ctx->display);
}

/* ---- ids ------------------------------------------------------------------ */

uint32_t smt__id_get(struct smt_ids *ids)
{
	if (ids->n_free)
		return ids->free[--ids->n_free];
	return ids->next <= ids->max ? ids->next++ : 0;
}

void smt__id_put(struct smt_ids *ids, uint32_t id)
{
	if (ids->n_free == ids->cap) {
		size_t cap = ids->cap ? ids->cap * 2 : 64;
		uint32_t *f = realloc(ids->free, cap * sizeof(*f));
		if (!f)
			return; /* the id leaks; harmless */
		ids->free = f;
		ids->cap = cap;
	}
	ids->free[ids->n_free++] = id;
}

int smt__anon_fd(size_t size)
{
	int fd = memfd_create("smt-buffer", MFD_CLOEXEC);
	if (fd < 0) {
		const char *dir = getenv("XDG_RUNTIME_DIR");
		fd = open(dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	}
	if (fd >= 0 && ftruncate(fd, (off_t)size) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* ---- waiting -------------------------------------------------------------- */

/* A libwayland call failed: report the display's error if it has one. */
static int lost(struct smt_ctx *ctx, const char *what)
{
	int e = errno, r = smt__check(ctx);
	return r ? r : smt__fail(ctx, "%s: %s", what, strerror(e));
}

int smt__wait_io(struct smt_ctx *ctx, int extra_fd, int timeout_ms, bool want_out)
{
	struct wl_display *d = ctx->display;
	while (wl_display_prepare_read_queue(d, ctx->queue) != 0)
		if (wl_display_dispatch_queue_pending(d, ctx->queue) < 0)
			return smt__check(ctx);
	struct pollfd p[2] = {
		{ .fd = wl_display_get_fd(d), .events = POLLIN | (want_out ? POLLOUT : 0) },
		{ .fd = extra_fd, .events = POLLIN },
	};
	ctx->sleeps++;
	int n = poll(p, extra_fd >= 0 ? 2 : 1, timeout_ms);
	int poll_errno = errno;
	if (n > 0 && (p[0].revents & (POLLIN | POLLERR | POLLHUP))) {
		/* read everything; events for the application stay queued */
		if (wl_display_read_events(d) < 0)
			return lost(ctx, "read");
	} else {
		wl_display_cancel_read(d);
	}
	if (n < 0 && poll_errno != EINTR)
		return smt__fail(ctx, "poll: %s", strerror(poll_errno));
	if (wl_display_dispatch_queue_pending(d, ctx->queue) < 0)
		return lost(ctx, "dispatch");
	return smt__check(ctx);
}

int smt__flush_requests(struct smt_ctx *ctx)
{
	for (;;) {
		if (wl_display_flush(ctx->display) >= 0)
			return smt__check(ctx);
		if (errno != EAGAIN)
			return lost(ctx, "flush");
		/* the socket is full: wait until it drains, reading meanwhile so
		 * the compositor is never blocked on us either */
		int r = smt__wait_io(ctx, -1, 1000, true);
		if (r)
			return r;
	}
}

static void sync_done(void *data, struct wl_callback *cb, uint32_t serial)
{
	*(bool *)data = true;
	wl_callback_destroy(cb);
}
static const struct wl_callback_listener sync_listener = { sync_done };

int smt__roundtrip(struct smt_ctx *ctx)
{
	bool done = false;
	int r = smt__check(ctx);
	if (r)
		return r;
	struct wl_callback *cb = wl_display_sync(ctx->display_q);
	wl_callback_add_listener(cb, &sync_listener, &done);
	while (!done) {
		if ((r = smt__flush_requests(ctx)) || (r = smt__wait_io(ctx, -1, 1000, false)))
			return r; /* cb dies with the display */
	}
	return 0;
}

int smt_dispatch(struct smt_ctx *ctx, int timeout_ms)
{
	struct wl_display *d = ctx->display;
	int r = smt_flush(ctx);
	if (r)
		return r;
	int n = wl_display_dispatch_queue_pending(d, ctx->queue);
	int m = wl_display_dispatch_pending(d);
	if (n < 0 || m < 0)
		return lost(ctx, "dispatch");
	n += m;
	if (n == 0 && wl_display_prepare_read(d) == 0) {
		struct pollfd p = { .fd = wl_display_get_fd(d), .events = POLLIN };
		int k = poll(&p, 1, timeout_ms), poll_errno = errno;
		if (k > 0) {
			if (wl_display_read_events(d) < 0)
				return lost(ctx, "read");
		} else {
			wl_display_cancel_read(d);
		}
		if (k < 0 && poll_errno != EINTR)
			return smt__fail(ctx, "poll: %s", strerror(poll_errno));
		n = wl_display_dispatch_queue_pending(d, ctx->queue);
		m = wl_display_dispatch_pending(d);
		if (n < 0 || m < 0)
			return lost(ctx, "dispatch");
		n += m;
	} else if (n == 0) {
		/* prepare_read failed: events arrived meanwhile */
		n = wl_display_dispatch_pending(d);
	}
	smt__windows_apply_configures(ctx);
	r = smt__check(ctx);
	return r ? r : n;
}

int smt_dispatch_until(struct smt_ctx *ctx, uint64_t deadline_ns, const bool *keep_going)
{
	int fd = smt_get_fd(ctx);
	while (!keep_going || *keep_going) {
		int r = smt_dispatch(ctx, 0);
		if (r < 0)
			return r;
		uint64_t t = monotonic_now_ns();
		if (t >= deadline_ns)
			return 0;
		uint64_t left = deadline_ns - t;
		struct timespec timeout = { (time_t)(left / 1000000000u),
			(long)(left % 1000000000u) };
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (ppoll(&p, 1, &timeout, NULL) < 0 && errno != EINTR)
			return smt__fail(ctx, "poll: %s", strerror(errno));
	}
	return 0;
}

/* ---- globals -------------------------------------------------------------- */

static void wm_ping(void *data, struct xdg_wm_base *wm, uint32_t serial)
{
	xdg_wm_base_pong(wm, serial);
}
static const struct xdg_wm_base_listener wm_listener = { wm_ping };

static void *bind(struct wl_registry *reg, uint32_t name, const struct wl_interface *iface,
		uint32_t have, uint32_t want)
{
	return wl_registry_bind(reg, name, iface, have < want ? have : want);
}

static void global_add(void *data, struct wl_registry *reg, uint32_t name, const char *iface,
		uint32_t version)
{
	struct smt_ctx *ctx = data;
	if (!strcmp(iface, wl_compositor_interface.name) && !ctx->compositor) {
		ctx->compositor = bind(reg, name, &wl_compositor_interface, version, 4);
	} else if (!strcmp(iface, wl_shm_interface.name) && !ctx->shm) {
		ctx->shm = bind(reg, name, &wl_shm_interface, version, 1);
	} else if (!strcmp(iface, wp_viewporter_interface.name) && !ctx->viewporter) {
		ctx->viewporter = bind(reg, name, &wp_viewporter_interface, version, 1);
	} else if (!strcmp(iface, xdg_wm_base_interface.name) && !ctx->wm_base) {
		ctx->wm_base = bind(reg, name, &xdg_wm_base_interface, version, 2);
		/* pings are answered even while a draw call waits for the ring */
		wl_proxy_set_queue((struct wl_proxy *)ctx->wm_base, ctx->queue);
		xdg_wm_base_add_listener(ctx->wm_base, &wm_listener, ctx);
	} else if (!strcmp(iface, zxdg_decoration_manager_v1_interface.name) && !ctx->decoration) {
		ctx->decoration = bind(
				reg, name, &zxdg_decoration_manager_v1_interface, version, 1);
	} else if (!strcmp(iface, smt_ring_manager_v1_interface.name) && !ctx->manager) {
		ctx->manager = bind(reg, name, &smt_ring_manager_v1_interface, version, 1);
	} else if (!strcmp(iface, wl_seat_interface.name) && !ctx->seat) {
		smt__input_seat_bind(ctx, name, version);
	}
}

static void global_remove(void *data, struct wl_registry *reg, uint32_t name)
{
}
static const struct wl_registry_listener registry_listener = { global_add, global_remove };

/* The one pixel every window's surface shows under its canvas, scaled to
 * the window by wp_viewporter: real content comes from the canvas. */
static int create_pixel_buffer(struct smt_ctx *ctx)
{
	int fd = smt__anon_fd(4);
	if (fd < 0)
		return smt__fail(ctx, "cannot create a buffer file: %s", strerror(errno));
	uint32_t black = 0xff000000u;
	ssize_t w = pwrite(fd, &black, sizeof(black), 0);
	struct wl_shm_pool *pool = wl_shm_create_pool(ctx->shm, fd, 4);
	ctx->pixel = wl_shm_pool_create_buffer(pool, 0, 1, 1, 4, WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	return w == sizeof(black) ? 0 : smt__fail(ctx, "cannot write the buffer file");
}

static enum smt_transport pick_transport(const struct smt_options *o)
{
	if (o->transport != SMT_TRANSPORT_AUTO)
		return o->transport;
	const char *env = getenv("SMT_TRANSPORT");
	if (env && !strcmp(env, "socket"))
		return SMT_TRANSPORT_SOCKET;
	return SMT_TRANSPORT_AUTO; /* ring, falling back to the socket */
}

struct smt_ctx *smt_connect(const struct smt_options *options)
{
	struct smt_ctx *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return NULL;
	if (options)
		ctx->opts = *options;
	ctx->ring_fd = ctx->server_efd = ctx->client_efd = -1;
	ctx->transport = pick_transport(&ctx->opts);
	ctx->drawables = (struct smt_ids){ .next = 1, .max = SMT_DRAWABLE_ID_MAX };
	ctx->pool_ids = (struct smt_ids){ .next = 1, .max = SMT_POOL_ID_MAX };
	wl_list_init(&ctx->windows);
	wl_list_init(&ctx->pools);
	wl_list_init(&ctx->fonts);

	ctx->display = wl_display_connect(ctx->opts.display);
	if (!ctx->display) {
		fprintf(stderr, "libsmt: cannot connect to Wayland display %s\n",
				ctx->opts.display ? ctx->opts.display :
						getenv("WAYLAND_DISPLAY") ?
						    getenv("WAYLAND_DISPLAY") :
						    "(unset)");
		free(ctx);
		return NULL;
	}
	ctx->queue = wl_display_create_queue(ctx->display);
	ctx->display_q = wl_proxy_create_wrapper(ctx->display);
	wl_proxy_set_queue((struct wl_proxy *)ctx->display_q, ctx->queue);
	ctx->registry = wl_display_get_registry(ctx->display);
	wl_registry_add_listener(ctx->registry, &registry_listener, ctx);
	if (wl_display_roundtrip(ctx->display) < 0) {
		smt__check(ctx);
		goto fail;
	}
	if (!ctx->compositor || !ctx->shm || !ctx->wm_base || !ctx->viewporter || !ctx->manager) {
		smt__fail(ctx, "the compositor lacks %s",
				!ctx->manager                    ? "smt_ring_manager_v1" :
						!ctx->viewporter ? "wp_viewporter" :
						!ctx->wm_base    ? "xdg_wm_base" :
								   "wl_compositor/wl_shm");
		goto fail;
	}
	if (create_pixel_buffer(ctx) || smt__transport_init(ctx))
		goto fail;
	/* seat capabilities, keymap: let them arrive before the app starts */
	if (wl_display_roundtrip(ctx->display) < 0 || smt__check(ctx))
		goto fail;
	return ctx;
fail:
	smt_disconnect(ctx);
	return NULL;
}

void smt_disconnect(struct smt_ctx *ctx)
{
	if (!ctx)
		return;
	if (!ctx->failed)
		smt_flush(ctx);
	struct smt_window *win, *tmp;
	wl_list_for_each_safe (win, tmp, &ctx->windows, link)
		smt_window_destroy(win);
	smt__font_destroy_all(ctx);
	smt__pool_destroy_all(ctx);
	smt__input_fini(ctx);
	smt__transport_fini(ctx);
	if (ctx->pixel)
		wl_buffer_destroy(ctx->pixel);
	if (ctx->manager)
		smt_ring_manager_v1_destroy(ctx->manager);
	if (ctx->decoration)
		zxdg_decoration_manager_v1_destroy(ctx->decoration);
	if (ctx->wm_base)
		xdg_wm_base_destroy(ctx->wm_base);
	if (ctx->viewporter)
		wp_viewporter_destroy(ctx->viewporter);
	if (ctx->shm)
		wl_shm_destroy(ctx->shm);
	if (ctx->compositor)
		wl_compositor_destroy(ctx->compositor);
	if (ctx->registry)
		wl_registry_destroy(ctx->registry);
	if (!ctx->failed)
		wl_display_flush(ctx->display);
	if (ctx->display_q)
		wl_proxy_wrapper_destroy(ctx->display_q);
	if (ctx->queue)
		wl_event_queue_destroy(ctx->queue);
	wl_display_disconnect(ctx->display);
	free(ctx->drawables.free);
	free(ctx->pool_ids.free);
	free(ctx->marks);
	free(ctx->sbuf);
	free(ctx);
}

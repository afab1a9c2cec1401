/*
 * libsmt: windows. Each is an xdg_toplevel whose wl_surface shows a 1x1
 * buffer stretched by wp_viewporter (so the surface has the window's size
 * for input and layout at no cost) with a canvas on top: the canvas is
 * the real content, drawn by ring commands.
 */
#include <errno.h>
#include <stdlib.h>

#include "clients/libsmt/smt-internal.h"
#include "smt-ring-v1-client-protocol.h"
#include "viewporter-client-protocol.h"
#include "xdg-decoration-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

static uint32_t clamp_dim(int32_t v, uint32_t fallback)
{
	if (v <= 0)
		return fallback;
	return (uint32_t)v > SMT_MAX_DIMENSION ? SMT_MAX_DIMENSION : (uint32_t)v;
}

static void toplevel_configure(
		void *data, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *states)
{
	struct smt_window *win = data;
	win->pending_w = clamp_dim(w, 0); /* 0: our choice (keep the size) */
	win->pending_h = clamp_dim(h, 0);
}

static void toplevel_close(void *data, struct xdg_toplevel *t)
{
	struct smt_window *win = data;
	win->closed = true;
	if (win->listener && win->listener->close)
		win->listener->close(win->data, win);
}

static void toplevel_bounds(void *data, struct xdg_toplevel *t, int32_t w, int32_t h)
{
}
static void toplevel_caps(void *data, struct xdg_toplevel *t, struct wl_array *caps)
{
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
	.configure_bounds = toplevel_bounds,
	.wm_capabilities = toplevel_caps,
};

static void surface_configure(void *data, struct xdg_surface *s, uint32_t serial)
{
	struct smt_window *win = data;
	win->configure_serial = serial;
	if (!win->configured) {
		/* the first one is applied by smt_window_create itself */
		xdg_surface_ack_configure(s, serial);
		win->configured = true;
	} else {
		/* resizing issues requests and may draw: done after dispatch,
		 * at the top level, by smt__windows_apply_configures */
		win->configure_pending = true;
	}
}

static const struct xdg_surface_listener surface_listener = { surface_configure };

static void canvas_presented(void *data, struct smt_canvas_v1 *c, uint32_t serial, uint32_t exec_hi,
		uint32_t exec_lo, uint32_t disp_hi, uint32_t disp_lo)
{
	struct smt_window *win = data;
	if (win->listener && win->listener->presented)
		win->listener->presented(win->data, win, serial, (uint64_t)exec_hi << 32 | exec_lo,
				(uint64_t)disp_hi << 32 | disp_lo);
}

static const struct smt_canvas_v1_listener canvas_listener = { canvas_presented };

void smt__windows_apply_configures(struct smt_ctx *ctx)
{
	struct smt_window *win, *tmp;
	wl_list_for_each_safe (win, tmp, &ctx->windows, link) {
		if (!win->configure_pending || ctx->failed)
			continue;
		win->configure_pending = false;
		xdg_surface_ack_configure(win->xdg_surface, win->configure_serial);
		uint32_t w = win->pending_w ? win->pending_w : win->width;
		uint32_t h = win->pending_h ? win->pending_h : win->height;
		if (w == win->width && h == win->height) {
			wl_surface_commit(win->surface);
			continue;
		}
		/* commands written so far target the old size; the compositor
		 * runs them before the resize request */
		smt_flush(ctx);
		smt_canvas_v1_resize(win->canvas, w, h);
		wp_viewport_set_destination(win->viewport, (int32_t)w, (int32_t)h);
		wl_surface_commit(win->surface);
		win->width = w;
		win->height = h;
		/* ring commands travel beside the socket: make sure the resize
		 * was processed before the app draws at the new size */
		if (smt_transport(ctx) == SMT_TRANSPORT_RING && smt__roundtrip(ctx))
			return;
		if (win->listener && win->listener->resize)
			win->listener->resize(win->data, win, w, h);
	}
}

struct smt_window *smt_window_create(struct smt_ctx *ctx, const char *title, const char *app_id,
		uint32_t width, uint32_t height)
{
	if (smt__check(ctx) || !width || !height || width > SMT_MAX_DIMENSION ||
			height > SMT_MAX_DIMENSION)
		return NULL;
	struct smt_window *win = calloc(1, sizeof(*win));
	if (!win)
		return NULL;
	win->ctx = ctx;
	wl_list_insert(&ctx->windows, &win->link);
	win->surface = wl_compositor_create_surface(ctx->compositor);
	win->viewport = wp_viewporter_get_viewport(ctx->viewporter, win->surface);
	win->xdg_surface = xdg_wm_base_get_xdg_surface(ctx->wm_base, win->surface);
	/* children of wm_base inherit the internal queue: their events call
	 * the application, so they belong on the default one */
	wl_proxy_set_queue((struct wl_proxy *)win->xdg_surface, NULL);
	xdg_surface_add_listener(win->xdg_surface, &surface_listener, win);
	win->toplevel = xdg_surface_get_toplevel(win->xdg_surface);
	wl_proxy_set_queue((struct wl_proxy *)win->toplevel, NULL);
	xdg_toplevel_add_listener(win->toplevel, &toplevel_listener, win);
	if (title)
		xdg_toplevel_set_title(win->toplevel, title);
	if (app_id)
		xdg_toplevel_set_app_id(win->toplevel, app_id);
	if (ctx->decoration) {
		/* server-side: the compositor draws the focus border */
		win->decoration = zxdg_decoration_manager_v1_get_toplevel_decoration(
				ctx->decoration, win->toplevel);
		zxdg_toplevel_decoration_v1_set_mode(
				win->decoration, ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
	}
	wl_surface_commit(win->surface);
	while (!win->configured && !ctx->failed)
		if (wl_display_dispatch(ctx->display) < 0 && !smt__check(ctx))
			smt__fail(ctx, "dispatch failed");
	if (ctx->failed) {
		smt_window_destroy(win);
		return NULL;
	}
	win->width = win->pending_w ? win->pending_w : width;
	win->height = win->pending_h ? win->pending_h : height;

	win->canvas_id = smt__id_get(&ctx->drawables);
	win->canvas = smt_ring_v1_get_canvas(
			ctx->ring, win->canvas_id, win->surface, win->width, win->height);
	wl_proxy_set_queue((struct wl_proxy *)win->canvas, NULL);
	smt_canvas_v1_add_listener(win->canvas, &canvas_listener, win);
	wl_surface_attach(win->surface, ctx->pixel, 0, 0);
	wp_viewport_set_destination(win->viewport, (int32_t)win->width, (int32_t)win->height);
	wl_surface_damage_buffer(win->surface, 0, 0, 1, 1);
	wl_surface_commit(win->surface);
	/* the canvas must exist before ring commands name it */
	if (smt__roundtrip(ctx)) {
		smt_window_destroy(win);
		return NULL;
	}
	return win;
}

void smt_window_destroy(struct smt_window *win)
{
	if (!win)
		return;
	struct smt_ctx *ctx = win->ctx;
	if (!ctx->failed)
		smt_flush(ctx); /* commands for this canvas run before it goes */
	if (ctx->pointer_focus == win)
		ctx->pointer_focus = NULL;
	if (ctx->keyboard_focus == win)
		ctx->keyboard_focus = NULL;
	/* canvas ids are not recycled: a pixmap created later under the same
	 * id could race with the canvas's destruction across the two channels */
	if (win->canvas)
		smt_canvas_v1_destroy(win->canvas);
	if (win->decoration)
		zxdg_toplevel_decoration_v1_destroy(win->decoration);
	if (win->toplevel)
		xdg_toplevel_destroy(win->toplevel);
	if (win->xdg_surface)
		xdg_surface_destroy(win->xdg_surface);
	if (win->viewport)
		wp_viewport_destroy(win->viewport);
	if (win->surface)
		wl_surface_destroy(win->surface);
	wl_list_remove(&win->link);
	free(win);
}

void smt_window_set_listener(
		struct smt_window *win, const struct smt_window_listener *l, void *data)
{
	win->listener = l;
	win->data = data;
}

uint32_t smt_window_canvas(const struct smt_window *win)
{
	return win->canvas_id;
}
uint32_t smt_window_width(const struct smt_window *win)
{
	return win->width;
}
uint32_t smt_window_height(const struct smt_window *win)
{
	return win->height;
}
bool smt_window_closed(const struct smt_window *win)
{
	return win->closed;
}

int smt_window_present(
		struct smt_window *win, uint32_t n, const struct smt_rect *damage, uint32_t *serial)
{
	uint32_t s = ++win->present_serial;
	int r = smt_present(win->ctx, win->canvas_id, s, n, damage);
	if (!r && serial)
		*serial = s;
	return r;
}

struct smt_window *smt__window_from_surface(struct smt_ctx *ctx, struct wl_surface *s)
{
	struct smt_window *win;
	wl_list_for_each (win, &ctx->windows, link)
		if (win->surface == s)
			return win;
	return NULL;
}

/*
 * libxcb entry points, interposed.
 *
 * - xcb_put_image(_checked), xcb_get_image(_unchecked) convert like the Xlib
 *   wrappers, for XCB programs (libX11 never calls these, so nothing is
 *   converted twice). An XCB request is never split (a cookie names one
 *   request): images larger than half the segment go plain.
 * - The reply functions hand out the GetImage reply of a converted request.
 * - The event and request-check functions show an error of a converted
 *   request as the core request's. libX11 reads its events through these
 *   same functions, so Xlib error handlers see the rewritten error too.
 * - xcb_disconnect (also reached from XCloseDisplay) frees the state.
 */
#include <stdlib.h>

#include "xwayland-glue/shim/shim_config.h"
#include "xwayland-glue/shim/conn.h"
#include "xwayland-glue/shim/syms.h"
#include "xwayland-glue/shim/transfer.h"

static struct xshim_conn *ready_conn(xcb_connection_t *c)
{
	if (!xshim_syms_load_shm())
		return NULL;
	struct xshim_conn *sc = xshim_conn_get(c, true);
	return sc && xshim_conn_ready(sc) ? sc : NULL;
}

static bool put_try(xcb_connection_t *c, bool checked, uint8_t format, xcb_drawable_t drawable,
		xcb_gcontext_t gc, uint16_t width, uint16_t height, int16_t dst_x, int16_t dst_y,
		uint8_t left_pad, uint8_t depth, uint32_t data_len, const uint8_t *data,
		xcb_void_cookie_t *ck)
{
	const struct xshim_config *cfg = xshim_init();
	if (!cfg->enabled || format != XCB_IMAGE_FORMAT_Z_PIXMAP || left_pad || !data || !width ||
			!height || data_len < cfg->put_min)
		return false;
	struct xshim_conn *sc = ready_conn(c);
	if (!sc)
		return false;
	const struct xshim_format *f = xshim_conn_format(sc, depth);
	if (!f || f->bpp < 8 || f->bpp % 8)
		return false;
	uint32_t pad = f->pad ? f->pad : 32;
	uint64_t stride = ((uint64_t)width * f->bpp + pad - 1) / pad * pad / 8;
	/* A length the server would reject keeps its plain request (BadLength),
	 * as does one too long for the connection (libxcb's own failure). */
	if (stride * height != data_len)
		return false;
	if ((uint64_t)data_len + 24 > sc->max_request_bytes &&
			(uint64_t)data_len + 24 >
					(uint64_t)xshim_real.xcb_get_maximum_request_length(c) * 4)
		return false;
	struct xshim_put_args a = {
		.drawable = drawable,
		.gc = gc,
		.depth = depth,
		.width = width,
		.height = height,
		.dst_x = dst_x,
		.dst_y = dst_y,
		.src = data,
		.src_stride = (size_t)stride,
		.row_bytes = (uint32_t)stride,
		.dst_stride = (uint32_t)stride,
		.checked = checked,
		.max_rows = 0,
	};
	uint32_t seq;
	if (xshim_put(sc, &a, &seq) != height)
		return false;
	ck->sequence = seq;
	return true;
}

XSHIM_EXPORT
xcb_void_cookie_t xcb_put_image(xcb_connection_t *c, uint8_t format, xcb_drawable_t drawable,
		xcb_gcontext_t gc, uint16_t width, uint16_t height, int16_t dst_x, int16_t dst_y,
		uint8_t left_pad, uint8_t depth, uint32_t data_len, const uint8_t *data)
{
	xcb_void_cookie_t ck;
	if (put_try(c, false, format, drawable, gc, width, height, dst_x, dst_y, left_pad, depth,
			    data_len, data, &ck))
		return ck;
	return xshim_real.xcb_put_image(c, format, drawable, gc, width, height, dst_x, dst_y,
			left_pad, depth, data_len, data);
}

XSHIM_EXPORT
xcb_void_cookie_t xcb_put_image_checked(xcb_connection_t *c, uint8_t format,
		xcb_drawable_t drawable, xcb_gcontext_t gc, uint16_t width, uint16_t height,
		int16_t dst_x, int16_t dst_y, uint8_t left_pad, uint8_t depth, uint32_t data_len,
		const uint8_t *data)
{
	xcb_void_cookie_t ck;
	if (put_try(c, true, format, drawable, gc, width, height, dst_x, dst_y, left_pad, depth,
			    data_len, data, &ck))
		return ck;
	return xshim_real.xcb_put_image_checked(c, format, drawable, gc, width, height, dst_x,
			dst_y, left_pad, depth, data_len, data);
}

static bool get_try(xcb_connection_t *c, bool checked, uint8_t format, xcb_drawable_t drawable,
		int16_t x, int16_t y, uint16_t width, uint16_t height, uint32_t plane_mask,
		xcb_get_image_cookie_t *ck)
{
	const struct xshim_config *cfg = xshim_init();
	if (!cfg->enabled || format != XCB_IMAGE_FORMAT_Z_PIXMAP || !width || !height ||
			(uint64_t)width * height * 4 < cfg->get_min)
		return false;
	struct xshim_conn *sc = ready_conn(c);
	uint32_t seq;
	if (!sc || !xshim_get_async(sc, drawable, x, y, width, height, plane_mask, checked, &seq))
		return false;
	ck->sequence = seq;
	return true;
}

XSHIM_EXPORT
xcb_get_image_cookie_t xcb_get_image(xcb_connection_t *c, uint8_t format, xcb_drawable_t drawable,
		int16_t x, int16_t y, uint16_t width, uint16_t height, uint32_t plane_mask)
{
	xcb_get_image_cookie_t ck;
	if (get_try(c, true, format, drawable, x, y, width, height, plane_mask, &ck))
		return ck;
	return xshim_real.xcb_get_image(c, format, drawable, x, y, width, height, plane_mask);
}

XSHIM_EXPORT
xcb_get_image_cookie_t xcb_get_image_unchecked(xcb_connection_t *c, uint8_t format,
		xcb_drawable_t drawable, int16_t x, int16_t y, uint16_t width, uint16_t height,
		uint32_t plane_mask)
{
	xcb_get_image_cookie_t ck;
	if (get_try(c, false, format, drawable, x, y, width, height, plane_mask, &ck))
		return ck;
	return xshim_real.xcb_get_image_unchecked(
			c, format, drawable, x, y, width, height, plane_mask);
}

XSHIM_EXPORT
xcb_get_image_reply_t *xcb_get_image_reply(
		xcb_connection_t *c, xcb_get_image_cookie_t cookie, xcb_generic_error_t **e)
{
	xshim_init();
	void *r = NULL;
	if (xshim_get_collect(c, cookie.sequence, true, &r, e) == XSHIM_COLLECT_DONE)
		return r;
	return xshim_real.xcb_get_image_reply(c, cookie, e);
}

/* An error for a converted put that reaches the application directly. */
static void saw(xcb_connection_t *c, void *response)
{
	if (!response || !atomic_load_explicit(&xshim_any_converted, memory_order_relaxed))
		return;
	struct xshim_conn *sc = xshim_conn_get(c, false);
	if (sc)
		xshim_conn_saw_response(sc, response);
}

/* For checked requests the error comes back here, not as an event: rewrite
 * it, but do not treat it as progress through the event stream. */
static void rewrite_error(xcb_connection_t *c, xcb_generic_error_t *e)
{
	if (!e || !atomic_load_explicit(&xshim_any_converted, memory_order_relaxed))
		return;
	struct xshim_conn *sc = xshim_conn_get(c, false);
	if (sc)
		xshim_conn_rewrite_checked(sc, e);
}

XSHIM_EXPORT
void *xcb_wait_for_reply(xcb_connection_t *c, unsigned int request, xcb_generic_error_t **e)
{
	xshim_init();
	void *r = NULL;
	if (xshim_get_collect(c, request, true, &r, e) == XSHIM_COLLECT_DONE)
		return r;
	r = xshim_real.xcb_wait_for_reply(c, request, e);
	if (e)
		rewrite_error(c, *e);
	return r;
}

XSHIM_EXPORT
void *xcb_wait_for_reply64(xcb_connection_t *c, uint64_t request, xcb_generic_error_t **e)
{
	xshim_init();
	void *r = NULL;
	if (xshim_get_collect(c, (uint32_t)request, true, &r, e) == XSHIM_COLLECT_DONE)
		return r;
	r = xshim_real.xcb_wait_for_reply64(c, request, e);
	if (e)
		rewrite_error(c, *e);
	return r;
}

XSHIM_EXPORT
int xcb_poll_for_reply(xcb_connection_t *c, unsigned int request, void **reply,
		xcb_generic_error_t **error)
{
	xshim_init();
	switch (xshim_get_collect(c, request, false, reply, error)) {
	case XSHIM_COLLECT_DONE:
		return 1;
	case XSHIM_COLLECT_NOT_YET:
		return 0;
	default:
		break;
	}
	int ret = xshim_real.xcb_poll_for_reply(c, request, reply, error);
	if (ret && error)
		rewrite_error(c, *error);
	return ret;
}

XSHIM_EXPORT
int xcb_poll_for_reply64(
		xcb_connection_t *c, uint64_t request, void **reply, xcb_generic_error_t **error)
{
	xshim_init();
	switch (xshim_get_collect(c, (uint32_t)request, false, reply, error)) {
	case XSHIM_COLLECT_DONE:
		return 1;
	case XSHIM_COLLECT_NOT_YET:
		return 0;
	default:
		break;
	}
	int ret = xshim_real.xcb_poll_for_reply64(c, request, reply, error);
	if (ret && error)
		rewrite_error(c, *error);
	return ret;
}

XSHIM_EXPORT
void xcb_discard_reply(xcb_connection_t *c, unsigned int sequence)
{
	xshim_init();
	xshim_get_discard(c, sequence);
	xshim_real.xcb_discard_reply(c, sequence);
}

XSHIM_EXPORT
void xcb_discard_reply64(xcb_connection_t *c, uint64_t sequence)
{
	xshim_init();
	xshim_get_discard(c, (uint32_t)sequence);
	xshim_real.xcb_discard_reply64(c, sequence);
}

XSHIM_EXPORT
xcb_generic_error_t *xcb_request_check(xcb_connection_t *c, xcb_void_cookie_t cookie)
{
	xshim_init();
	xcb_generic_error_t *e = xshim_real.xcb_request_check(c, cookie);
	rewrite_error(c, e);
	return e;
}

XSHIM_EXPORT
xcb_generic_event_t *xcb_poll_for_event(xcb_connection_t *c)
{
	xshim_init();
	xcb_generic_event_t *ev = xshim_real.xcb_poll_for_event(c);
	saw(c, ev);
	return ev;
}

XSHIM_EXPORT
xcb_generic_event_t *xcb_poll_for_queued_event(xcb_connection_t *c)
{
	xshim_init();
	xcb_generic_event_t *ev = xshim_real.xcb_poll_for_queued_event(c);
	saw(c, ev);
	return ev;
}

XSHIM_EXPORT
xcb_generic_event_t *xcb_wait_for_event(xcb_connection_t *c)
{
	xshim_init();
	xcb_generic_event_t *ev = xshim_real.xcb_wait_for_event(c);
	saw(c, ev);
	return ev;
}

XSHIM_EXPORT
void xcb_disconnect(xcb_connection_t *c)
{
	xshim_init();
	if (c)
		xshim_conn_destroy(c);
	xshim_real.xcb_disconnect(c);
}

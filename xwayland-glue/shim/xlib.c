/*
 * XPutImage and XGetImage of libX11, interposed.
 *
 * libX11 builds its PutImage/GetImage requests itself (it never calls
 * xcb_put_image), so a call converted here cannot be converted twice, and a
 * call sent plain goes to the real function with the caller's arguments.
 * Only what the shared-memory requests reproduce exactly is converted:
 * ZPixmap images whose bits per pixel, byte order and depth match the
 * server's pixmap format (what libX11 itself sends without converting).
 * Everything else -- XY formats, depth 1, 4 bpp, foreign byte order,
 * synchronous mode (XSynchronize / XSetAfterFunction) -- goes plain.
 */
#include <X11/Xlib.h>
#include <X11/Xlibint.h>
#include <X11/Xutil.h>

#include <stdlib.h>

#include "xwayland-glue/shim/shim_config.h"
#include "xwayland-glue/shim/conn.h"
#include "xwayland-glue/shim/syms.h"
#include "xwayland-glue/shim/transfer.h"

/* The connection's state if this display can convert now, else NULL. */
static struct xshim_conn *ready_conn(Display *dpy)
{
	/* With a sync handler Xlib rounds-trips after every request; keep that
	 * timing (and the request it reports errors against) exactly. */
	if (dpy->synchandler || !xshim_syms_load_shm())
		return NULL;
	xcb_connection_t *c = xshim_real.XGetXCBConnection(dpy);
	struct xshim_conn *sc = c ? xshim_conn_get(c, true) : NULL;
	return sc && xshim_conn_ready(sc) ? sc : NULL;
}

static bool put_shm(Display *dpy, Drawable d, GC gc, XImage *image, int src_x, int src_y, int x,
		int y, long width, long height)
{
	struct xshim_conn *sc = ready_conn(dpy);
	if (!sc || width > 65535 || height > 65535)
		return false;
	const struct xshim_format *f = xshim_conn_format(sc, image->depth);
	int bpp = image->bits_per_pixel;
	if (!f || f->bpp != bpp || (bpp != 8 && image->byte_order != sc->image_byte_order))
		return false;
	uint32_t pad = f->pad ? f->pad : 32;
	uint32_t stride = (uint32_t)(((uint64_t)width * (uint64_t)bpp + pad - 1) / pad * pad / 8);
	/* libX11 (PutSubImage) sends at most this many bytes of pixels per
	 * request, in bands of whole rows: the same bands here give the same
	 * requests, hence the same errors, as without the shim. */
	long avail = (dpy->max_request_size > 65536 ? 65536L << 2 :
						      (long)dpy->max_request_size << 2) -
			sz_xPutImageReq;
	if (avail < (long)stride)
		return false; /* libX11 would split rows too */
	struct xshim_put_args a = {
		.drawable = (xcb_drawable_t)d,
		.gc = (xcb_gcontext_t)gc->gid,
		.depth = (uint8_t)image->depth,
		.width = (uint16_t)width,
		.height = (uint16_t)height,
		.dst_x = (int16_t)x, /* the request's INT16, as libX11 truncates */
		.dst_y = (int16_t)y,
		.src = (const uint8_t *)image->data +
				(size_t)src_y * (size_t)image->bytes_per_line +
				(size_t)src_x * (size_t)(bpp / 8),
		.src_stride = (size_t)image->bytes_per_line,
		.row_bytes = (uint32_t)(width * (bpp / 8)),
		.dst_stride = stride,
		.checked = false,
		.max_rows = (uint32_t)(avail / (long)stride),
	};

	/* Xlib caches GC changes; the server must have them before our request,
	 * as XPutImage's own FlushGC guarantees. */
	LockDisplay(dpy);
	if (gc->dirty)
		xshim_real._XFlushGCCache(dpy, gc);
	UnlockDisplay(dpy);

	uint32_t seq, rows = xshim_put(sc, &a, &seq);
	if (rows == 0)
		return false;
	if (rows < (uint32_t)height) /* the ring ran out midway: rest plain */
		xshim_real.XPutImage(dpy, d, gc, image, src_x, src_y + (int)rows, x, y + (int)rows,
				(unsigned)width, (unsigned)(height - rows));
	return true;
}

XSHIM_EXPORT
int XPutImage(Display *dpy, Drawable d, GC gc, XImage *image, int src_x, int src_y, int x, int y,
		unsigned int req_width, unsigned int req_height)
{
	const struct xshim_config *cfg = xshim_init();
	if (cfg->enabled && image && image->format == ZPixmap && image->data && gc &&
			image->bits_per_pixel >= 8 && image->bits_per_pixel % 8 == 0 &&
			image->bits_per_pixel <= 32) {
		/* libX11's own clipping of the source rectangle to the image
		 * (negative offsets shrink it; the destination does not move). */
		long width = req_width, height = req_height;
		int sx = src_x, sy = src_y;
		if (sx < 0) {
			width += sx;
			sx = 0;
		}
		if (sy < 0) {
			height += sy;
			sy = 0;
		}
		if (sx + width > image->width)
			width = image->width - sx;
		if (sy + height > image->height)
			height = image->height - sy;
		if (width > 0 && height > 0 &&
				(uint64_t)width * (uint64_t)height *
								(uint64_t)(image->bits_per_pixel /
										8) >=
						cfg->put_min &&
				put_shm(dpy, d, gc, image, sx, sy, x, y, width, height))
			return 0;
	}
	return xshim_real.XPutImage(dpy, d, gc, image, src_x, src_y, x, y, req_width, req_height);
}

static XImage *get_shm(Display *dpy, Drawable d, int x, int y, unsigned int w, unsigned int h,
		unsigned long plane_mask)
{
	struct xshim_conn *sc = ready_conn(dpy);
	if (!sc)
		return NULL;
	struct xshim_get_result res;
	if (xshim_get_sync(sc, (xcb_drawable_t)d, (int16_t)x, (int16_t)y, (uint16_t)w, (uint16_t)h,
			    (uint32_t)plane_mask, &res) != 1)
		return NULL;
	/* Allocated the way libX11 does it, so XDestroyImage frees it. */
	XImage *img = xshim_real.XCreateImage(dpy, xshim_real._XVIDtoVisual(dpy, res.visual),
			res.depth, ZPixmap, 0, (char *)res.data, w, h,
			xshim_real._XGetScanlinePad(dpy, res.depth), 0);
	if (!img) {
		free(res.data);
		return NULL;
	}
	if ((uint32_t)img->bytes_per_line != res.stride) {
		XDestroyImage(img); /* (frees res.data) */
		return NULL;
	}
	return img;
}

XSHIM_EXPORT
XImage *XGetImage(Display *dpy, Drawable d, int x, int y, unsigned int width, unsigned int height,
		unsigned long plane_mask, int format)
{
	const struct xshim_config *cfg = xshim_init();
	/* The size is not known before the reply (the drawable's depth); count
	 * 4 bytes per pixel, the most any depth up to 32 takes. */
	if (cfg->enabled && format == ZPixmap && width && height && width <= 65535 &&
			height <= 65535 && (uint64_t)width * height * 4 >= cfg->get_min) {
		XImage *img = get_shm(dpy, d, x, y, width, height, plane_mask);
		if (img)
			return img;
		/* Not converted, or the server refused: a plain request gets the
		 * same answer, and an error is reported the usual way. */
	}
	return xshim_real.XGetImage(dpy, d, x, y, width, height, plane_mask, format);
}

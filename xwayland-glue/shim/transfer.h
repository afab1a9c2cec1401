/*
 * Moving image bytes through the segment, shared by the Xlib and XCB
 * wrappers: PutImage becomes copy + ShmPutImage; GetImage becomes
 * ShmGetImage + copy out.
 */
#ifndef SMT_X11SHIM_TRANSFER_H
#define SMT_X11SHIM_TRANSFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xcb/xcb.h>

struct xshim_conn;

/* X_PutImage and X_GetImage: what an error for a converted request reports. */
#define XSHIM_CORE_PUT_IMAGE 72
#define XSHIM_CORE_GET_IMAGE 73

struct xshim_put_args {
	xcb_drawable_t drawable;
	xcb_gcontext_t gc;
	uint8_t depth;
	uint16_t width, height;
	int16_t dst_x, dst_y;
	const uint8_t *src;  /* first byte of the first row to send */
	size_t src_stride;   /* bytes between the caller's rows */
	uint32_t row_bytes;  /* bytes of each row that carry pixels */
	uint32_t dst_stride; /* row length the server expects (scanline pad) */
	bool checked;        /* XCB _checked: the error goes to the cookie */
	uint32_t max_rows;   /* 0: one request (XCB: a cookie names one);
				* else exactly this many rows per request --
				* libX11's own split, so that errors come as
				* many times as they would without the shim.
				* Not converted if a request would need more
				* than half the segment. */
};

/* Sends the top rows of an image as ShmPutImage requests (drawing is the
 * same as PutImage: same GC, depth, format; rows are independent). Returns
 * how many rows went through the segment -- 0 if none (send it all plain),
 * fewer than height only when split and the ring ran out midway (send the
 * rest plain). *seq is the sequence of the last request sent. */
uint32_t xshim_put(struct xshim_conn *sc, const struct xshim_put_args *a, uint32_t *seq);

struct xshim_get_result {
	uint8_t depth;
	xcb_visualid_t visual;
	uint32_t stride;
	uint8_t *data; /* malloc'd, stride * height bytes */
	size_t size;
};

/* Synchronous GetImage (ZPixmap) through the segment, for Xlib. 1: done;
 * 0: not converted, send it plain; -1: the server reported an error -- the
 * caller repeats the request plain so the application sees it as usual. */
int xshim_get_sync(struct xshim_conn *sc, xcb_drawable_t d, int16_t x, int16_t y, uint16_t w,
		uint16_t h, uint32_t plane_mask, struct xshim_get_result *res);

/* XCB GetImage: sends ShmGetImage now (request order), keeps the pixels in
 * the segment until the application collects the reply. False: send plain. */
bool xshim_get_async(struct xshim_conn *sc, xcb_drawable_t d, int16_t x, int16_t y, uint16_t w,
		uint16_t h, uint32_t plane_mask, bool checked, uint32_t *seq);

enum xshim_collect {
	XSHIM_COLLECT_NOT_OURS, /* not a converted GetImage: ask libxcb */
	XSHIM_COLLECT_DONE,     /* *reply (an xcb_get_image_reply_t) or error set */
	XSHIM_COLLECT_NOT_YET,  /* non-blocking and the reply has not arrived */
};

/* The reply to a converted XCB GetImage, built like libxcb's own (one
 * malloc'd block, freed with free()). e may be NULL (error dropped). */
enum xshim_collect xshim_get_collect(xcb_connection_t *c, uint32_t seq, bool block, void **reply,
		xcb_generic_error_t **e);

/* The application discards a converted GetImage's reply. */
void xshim_get_discard(xcb_connection_t *c, uint32_t seq);

/* Largest row any pixmap format of the server needs for width w. */
uint32_t xshim_max_row_bytes(const struct xshim_conn *sc, uint32_t w);

#endif

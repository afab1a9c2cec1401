/* PutImage/GetImage through the shared segment; see transfer.h. */
#include "xwayland-glue/shim/transfer.h"

#include <stdlib.h>
#include <string.h>

#include "xwayland-glue/shim/conn.h"
#include "xwayland-glue/shim/syms.h"

uint32_t xshim_max_row_bytes(const struct xshim_conn *sc, uint32_t w)
{
	uint32_t max = 0;
	for (int i = 0; i < sc->nformats; i++) {
		const struct xshim_format *f = &sc->formats[i];
		uint32_t pad = f->pad ? f->pad : 32;
		uint64_t bits = ((uint64_t)w * f->bpp + pad - 1) / pad * pad;
		if (bits / 8 > max)
			max = (uint32_t)(bits / 8);
	}
	return max;
}

/* A root window's image is read the plain way: the X server answers
 * ShmGetImage and GetImage of a root differently (a rootless Xwayland
 * gives GetImage BadMatch but ShmGetImage the root's black pixels), and a
 * program must get what it gets on the socket. Roots are listed in the
 * connection's setup, one per screen (a screen is 40 bytes plus its depths,
 * walked without xcb_screen_next, which the shim does not look up). */
static bool is_root(const struct xshim_conn *sc, xcb_drawable_t d)
{
	if (d == sc->root)
		return true;
	const xcb_setup_t *setup = xshim_real.xcb_get_setup(sc->c);
	xcb_screen_iterator_t it = xshim_real.xcb_setup_roots_iterator(setup);
	for (; it.rem > 0; it.rem--) {
		if (it.data->root == d)
			return true;
		const uint8_t *next = (const uint8_t *)(it.data + 1);
		for (int i = 0; i < it.data->allowed_depths_len; i++) {
			const xcb_depth_t *depth = (const xcb_depth_t *)next;
			next += sizeof(*depth) +
					(size_t)depth->visuals_len * sizeof(xcb_visualtype_t);
		}
		it.data = (xcb_screen_t *)next;
	}
	return false;
}

/* Rows per request: the whole image when it fits in half the segment (so a
 * second one can be copied while the server draws the first), else bands of
 * a quarter. 0: cannot be converted. */
static uint32_t band_rows(
		const struct xshim_conn *sc, uint32_t stride, uint32_t height, bool may_split)
{
	if (stride == 0 || stride > sc->size / 4)
		return 0;
	if ((uint64_t)stride * height <= sc->size / 2)
		return height;
	if (!may_split)
		return 0;
	return sc->size / 4 / stride;
}

static void copy_rows(uint8_t *dst, size_t dst_stride, const uint8_t *src, size_t src_stride,
		size_t row_bytes, uint32_t rows)
{
	if (src_stride == dst_stride && row_bytes == dst_stride) {
		memcpy(dst, src, row_bytes * rows);
		return;
	}
	for (uint32_t i = 0; i < rows; i++)
		memcpy(dst + i * dst_stride, src + i * src_stride, row_bytes);
}

uint32_t xshim_put(struct xshim_conn *sc, const struct xshim_put_args *a, uint32_t *seq)
{
	/* Exactly libX11's bands, or nothing: fewer rows per request would
	 * mean more requests, and more errors for a bad one. */
	uint32_t band = a->max_rows && a->max_rows < a->height ? a->max_rows : a->height;
	if ((uint64_t)band * a->dst_stride > sc->size / 2)
		band = 0;
	uint32_t done = 0;
	while (band && done < a->height) {
		uint32_t rows = a->height - done < band ? a->height - done : band;
		uint32_t bytes = a->dst_stride * rows, off, id;
		if (!xshim_conn_alloc(sc, bytes, &off, &id))
			break;
		/* The copy is what lets the caller reuse its buffer at once. */
		copy_rows(sc->base + off, a->dst_stride, a->src + done * a->src_stride,
				a->src_stride, a->row_bytes, rows);
		__typeof__(xshim_real.xcb_shm_put_image) send = a->checked ?
				xshim_real.xcb_shm_put_image_checked :
				xshim_real.xcb_shm_put_image;
		/* total_width == src_width and src_x == 0: the server takes its
		 * direct PutImage path, exactly what core PutImage runs. */
		xcb_void_cookie_t ck = send(sc->c, a->drawable, a->gc, a->width, (uint16_t)rows, 0,
				0, a->width, (uint16_t)rows, a->dst_x,
				(int16_t)(a->dst_y + (int32_t)done), a->depth,
				XCB_IMAGE_FORMAT_Z_PIXMAP, 0, sc->seg, off);
		*seq = ck.sequence;
		pthread_mutex_lock(&sc->lock);
		if (done == 0)
			sc->st.puts++;
		sc->st.put_requests++;
		sc->st.put_bytes += bytes;
		pthread_mutex_unlock(&sc->lock);
		if (a->checked)
			xshim_conn_add_checked(sc, ck.sequence, XSHIM_CORE_PUT_IMAGE);
		xshim_conn_commit(sc, id, ck.sequence, XSHIM_CORE_PUT_IMAGE, !a->checked, bytes);
		done += rows;
	}
	if (done)
		xshim_conn_sent(sc);
	return done;
}

/* A reply proves that the server has processed every earlier request. */
static void completed(struct xshim_conn *sc, uint32_t seq)
{
	pthread_mutex_lock(&sc->lock);
	xshim_segment_alloc_retire(&sc->space, seq);
	pthread_mutex_unlock(&sc->lock);
}

int xshim_get_sync(struct xshim_conn *sc, xcb_drawable_t d, int16_t x, int16_t y, uint16_t w,
		uint16_t h, uint32_t plane_mask, struct xshim_get_result *res)
{
	uint32_t max_row = xshim_max_row_bytes(sc, w);
	uint32_t band = band_rows(sc, max_row, h, true);
	memset(res, 0, sizeof(*res));
	if (!band || is_root(sc, d))
		return 0;
	for (uint32_t done = 0; done < h;) {
		uint32_t rows = h - done < band ? h - done : band, off, id;
		if (!xshim_conn_alloc(sc, max_row * rows, &off, &id))
			goto plain;
		xcb_shm_get_image_cookie_t ck = xshim_real.xcb_shm_get_image(sc->c, d, x,
				(int16_t)(y + (int32_t)done), w, (uint16_t)rows, plane_mask,
				XCB_IMAGE_FORMAT_Z_PIXMAP, sc->seg, off);
		xcb_generic_error_t *err = NULL;
		xcb_shm_get_image_reply_t *r = xshim_real.xcb_wait_for_reply(
				sc->c, ck.sequence, &err);
		if (!r) {
			xshim_conn_release(sc, id);
			free(err);
			free(res->data);
			res->data = NULL;
			return err ? -1 : 0;
		}
		completed(sc, ck.sequence);
		uint32_t stride = r->size / rows;
		bool ok = r->size % rows == 0 && stride <= max_row &&
				(done == 0 || (stride == res->stride && r->depth == res->depth));
		if (ok && done == 0) {
			res->depth = r->depth;
			res->visual = r->visual;
			res->stride = stride;
			res->size = (size_t)stride * h;
			res->data = malloc(res->size ? res->size : 1);
			ok = res->data != NULL;
		}
		if (ok)
			memcpy(res->data + (size_t)done * stride, sc->base + off, r->size);
		free(r);
		xshim_conn_release(sc, id);
		if (!ok)
			goto plain;
		pthread_mutex_lock(&sc->lock);
		if (done == 0)
			sc->st.gets++;
		sc->st.get_bytes += (uint64_t)stride * rows;
		pthread_mutex_unlock(&sc->lock);
		done += rows;
	}
	return 1;
plain:
	free(res->data);
	res->data = NULL;
	return 0;
}

bool xshim_get_async(struct xshim_conn *sc, xcb_drawable_t d, int16_t x, int16_t y, uint16_t w,
		uint16_t h, uint32_t plane_mask, bool checked, uint32_t *seq)
{
	uint32_t max_row = xshim_max_row_bytes(sc, w), off, id;
	if (!band_rows(sc, max_row, h, false) || is_root(sc, d))
		return false;
	/* Room for the pending-list entry first: nothing to undo after sending. */
	pthread_mutex_lock(&sc->lock);
	if (sc->npending == sc->pending_cap) {
		int cap = sc->pending_cap ? sc->pending_cap * 2 : 8;
		struct xshim_pending_get *p = realloc(sc->pending, (size_t)cap * sizeof(*p));
		if (!p) {
			pthread_mutex_unlock(&sc->lock);
			return false;
		}
		sc->pending = p;
		sc->pending_cap = cap;
	}
	pthread_mutex_unlock(&sc->lock);
	if (!xshim_conn_alloc(sc, max_row * h, &off, &id))
		return false;
	__typeof__(xshim_real.xcb_shm_get_image) send = checked ?
			xshim_real.xcb_shm_get_image :
			xshim_real.xcb_shm_get_image_unchecked;
	xcb_shm_get_image_cookie_t ck = send(
			sc->c, d, x, y, w, h, plane_mask, XCB_IMAGE_FORMAT_Z_PIXMAP, sc->seg, off);
	pthread_mutex_lock(&sc->lock);
	/* Capacity may have been used by another thread meanwhile. */
	if (sc->npending == sc->pending_cap) {
		struct xshim_pending_get *p = realloc(
				sc->pending, (size_t)(sc->pending_cap + 8) * sizeof(*p));
		if (p) {
			sc->pending = p;
			sc->pending_cap += 8;
		}
	}
	bool kept = sc->npending < sc->pending_cap;
	if (kept) {
		sc->pending[sc->npending++] = (struct xshim_pending_get){ ck.sequence, id, off };
		atomic_fetch_add(&xshim_pending_gets, 1);
	} else {
		/* Out of memory: the reply would be unreadable. Impossible in
		 * practice; keep the segment consistent at least. */
		xshim_segment_alloc_commit(&sc->space, id, ck.sequence);
	}
	if (!checked)
		xshim_errtab_add(&sc->errtab, ck.sequence, XSHIM_CORE_GET_IMAGE);
	pthread_mutex_unlock(&sc->lock);
	atomic_store(&xshim_any_converted, true);
	*seq = ck.sequence;
	return kept;
}

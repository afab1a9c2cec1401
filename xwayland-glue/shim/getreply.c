/*
 * Replies of converted XCB GetImage requests: the application holds a
 * GetImage cookie whose sequence is really a ShmGetImage's; when it asks for
 * the reply, build the GetImage reply libxcb would have returned from the
 * pixels waiting in the segment.
 */
#include <stdlib.h>
#include <string.h>

#include "xwayland-glue/shim/conn.h"
#include "xwayland-glue/shim/syms.h"
#include "xwayland-glue/shim/transfer.h"

/* Index of the pending GetImage with this sequence, or -1. Under sc->lock. */
static int find_pending(struct xshim_conn *sc, uint32_t seq)
{
	for (int i = 0; i < sc->npending; i++)
		if (sc->pending[i].seq == seq)
			return i;
	return -1;
}

static void drop_pending(struct xshim_conn *sc, int i)
{
	sc->pending[i] = sc->pending[--sc->npending];
	atomic_fetch_sub(&xshim_pending_gets, 1);
}

static struct xshim_conn *conn_with_pending(xcb_connection_t *c)
{
	if (atomic_load(&xshim_pending_gets) == 0)
		return NULL;
	return xshim_conn_get(c, false);
}

static xcb_get_image_reply_t *build_reply(
		struct xshim_conn *sc, uint32_t off, const xcb_shm_get_image_reply_t *r)
{
	if (r->size > sc->size - off) /* the server wrote beyond what we reserved */
		return NULL;
	xcb_get_image_reply_t *out = malloc(sizeof(*out) + r->size);
	if (!out)
		return NULL;
	memset(out, 0, sizeof(*out));
	out->response_type = 1; /* X_Reply */
	out->depth = r->depth;
	out->sequence = r->sequence;
	out->length = r->size / 4;
	out->visual = r->visual;
	memcpy(out + 1, sc->base + off, r->size);
	return out;
}

enum xshim_collect xshim_get_collect(xcb_connection_t *c, uint32_t seq, bool block, void **reply,
		xcb_generic_error_t **e)
{
	struct xshim_conn *sc = conn_with_pending(c);
	if (!sc)
		return XSHIM_COLLECT_NOT_OURS;
	pthread_mutex_lock(&sc->lock);
	int i = find_pending(sc, seq);
	struct xshim_pending_get pg = i >= 0 ? sc->pending[i] : (struct xshim_pending_get){ 0 };
	pthread_mutex_unlock(&sc->lock);
	if (i < 0)
		return XSHIM_COLLECT_NOT_OURS;

	/* Collect the ShmGetImage reply without the lock (it may block). */
	xcb_generic_error_t *err = NULL;
	xcb_shm_get_image_reply_t *r = NULL;
	if (block) {
		r = xshim_real.xcb_wait_for_reply(c, seq, &err);
	} else {
		void *p = NULL;
		if (!xshim_real.xcb_poll_for_reply(c, seq, &p, &err)) {
			*reply = NULL; /* as libxcb leaves them */
			if (e)
				*e = NULL;
			return XSHIM_COLLECT_NOT_YET;
		}
		r = p;
	}

	*reply = r ? build_reply(sc, pg.off, r) : NULL;
	free(r);
	pthread_mutex_lock(&sc->lock);
	if (err && err->major_code == sc->shm_major) {
		err->major_code = XSHIM_CORE_GET_IMAGE;
		err->minor_code = 0;
		sc->st.errors_rewritten++;
	}
	if (*reply) {
		sc->st.gets++;
		sc->st.get_bytes += (*(xcb_get_image_reply_t **)reply)->length * 4u;
	}
	i = find_pending(sc, seq);
	if (i >= 0)
		drop_pending(sc, i);
	/* The server has written the pixels (or failed): the space is free,
	 * and every earlier request is done too. */
	xshim_segment_alloc_release(&sc->space, pg.alloc_id);
	xshim_segment_alloc_retire(&sc->space, seq);
	pthread_mutex_unlock(&sc->lock);
	if (e)
		*e = err;
	else
		free(err);
	return XSHIM_COLLECT_DONE;
}

void xshim_get_discard(xcb_connection_t *c, uint32_t seq)
{
	struct xshim_conn *sc = conn_with_pending(c);
	if (!sc)
		return;
	pthread_mutex_lock(&sc->lock);
	int i = find_pending(sc, seq);
	if (i >= 0) {
		/* The server may still write there: free it only after a fence
		 * shows the request done. */
		xshim_segment_alloc_commit(&sc->space, sc->pending[i].alloc_id, seq);
		drop_pending(sc, i);
	}
	pthread_mutex_unlock(&sc->lock);
}

/* Per-connection state: registry, ring space, fences, statistics. */
#include "xwayland-glue/shim/conn.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <X11/Xproto.h>

#include "xwayland-glue/shim/shim_config.h"
#include "xwayland-glue/shim/seg.h"
#include "xwayland-glue/shim/syms.h"

/* A stream of more ranges than this with no event dequeued in between is
 * not worth remembering (see errtab.h). */
#define XSHIM_ERRTAB_MAX 4096u

atomic_bool xshim_any_converted;
atomic_int xshim_pending_gets;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xshim_conn **registry;
static int nregistry, registry_cap;
static struct xshim_stats closed_totals; /* of destroyed connections */
static int nclosed;

struct xshim_conn *xshim_conn_get(xcb_connection_t *c, bool create)
{
	struct xshim_conn *sc = NULL;
	pthread_mutex_lock(&registry_lock);
	for (int i = 0; i < nregistry; i++) {
		if (registry[i]->c == c) {
			sc = registry[i];
			break;
		}
	}
	if (!sc && create) {
		if (nregistry == registry_cap) {
			int cap = registry_cap ? registry_cap * 2 : 4;
			struct xshim_conn **r = realloc(registry, (size_t)cap * sizeof(*r));
			if (!r)
				goto out;
			registry = r;
			registry_cap = cap;
		}
		sc = calloc(1, sizeof(*sc));
		if (!sc)
			goto out;
		sc->c = c;
		pthread_mutex_init(&sc->lock, NULL);
		atomic_init(&sc->state, XSHIM_CONN_UNTRIED);
		xshim_errtab_init(&sc->errtab, XSHIM_ERRTAB_MAX);
		registry[nregistry++] = sc;
	}
out:
	pthread_mutex_unlock(&registry_lock);
	return sc;
}

static void go_off(struct xshim_conn *sc, const char *why)
{
	pthread_mutex_lock(&sc->lock);
	sc->off_reason = why;
	pthread_mutex_unlock(&sc->lock);
	atomic_store(&sc->state, XSHIM_CONN_OFF);
	xshim_debug("connection %p stays plain: %s", (void *)sc->c, why);
}

bool xshim_conn_ready(struct xshim_conn *sc)
{
	int st = atomic_load(&sc->state);
	if (st == XSHIM_CONN_ACTIVE)
		return true;
	if (st != XSHIM_CONN_UNTRIED)
		return false;
	/* One thread sets up; the others send plain meanwhile rather than wait. */
	if (!atomic_compare_exchange_strong(&sc->state, &st, XSHIM_CONN_SETUP))
		return false;
	const char *why = NULL;
	if (!xshim_seg_setup(sc, &why)) {
		go_off(sc, why);
		return false;
	}
	pthread_mutex_lock(&sc->lock);
	bool ok = xshim_segment_alloc_init(&sc->space, sc->size);
	sc->st.segments++;
	pthread_mutex_unlock(&sc->lock);
	if (!ok) {
		go_off(sc, "segment too small");
		return false;
	}
	atomic_store(&sc->state, XSHIM_CONN_ACTIVE);
	return true;
}

const struct xshim_format *xshim_conn_format(const struct xshim_conn *sc, int depth)
{
	for (int i = 0; i < sc->nformats; i++)
		if (sc->formats[i].depth == depth)
			return &sc->formats[i];
	return NULL;
}

/* Sends a request whose reply proves that the server has processed all
 * earlier ones. GetInputFocus is the cheapest request with a reply (it is
 * what XSync uses). Called without the lock. */
static void send_fence(struct xshim_conn *sc)
{
	xcb_get_input_focus_cookie_t ck = xshim_real.xcb_get_input_focus(sc->c);
	pthread_mutex_lock(&sc->lock);
	if (sc->nfences < XSHIM_MAX_FENCES) {
		sc->fences[sc->nfences++] = ck.sequence;
		sc->st.fences++;
	} else {
		/* Other threads filled the list meanwhile; the fences there
		 * will do. libxcb must still drop this reply when it comes. */
		xshim_real.xcb_discard_reply(sc->c, ck.sequence);
	}
	xshim_errtab_own(&sc->errtab, ck.sequence);
	pthread_mutex_unlock(&sc->lock);
}

/* Waits for the oldest fence and reclaims what it covers. Called and returns
 * with the lock held; drops it while blocked. False if another thread is
 * already waiting (the caller should not block too). */
static bool wait_oldest_fence(struct xshim_conn *sc)
{
	if (sc->fence_waiter || sc->nfences == 0)
		return false;
	uint32_t f = sc->fences[0];
	sc->fence_waiter = true;
	pthread_mutex_unlock(&sc->lock);

	void *reply = NULL;
	xcb_generic_error_t *err = NULL;
	bool waited = false;
	if (!xshim_real.xcb_poll_for_reply(sc->c, f, &reply, &err)) {
		waited = true;
		reply = xshim_real.xcb_wait_for_reply(sc->c, f, &err);
	}
	free(reply);
	free(err);

	pthread_mutex_lock(&sc->lock);
	sc->fence_waiter = false;
	sc->nfences--;
	memmove(sc->fences, sc->fences + 1, (size_t)sc->nfences * sizeof(sc->fences[0]));
	if (waited)
		sc->st.ring_waits++;
	/* Without a reply the connection is broken; nothing will be reused
	 * any more, but retiring keeps the books straight. */
	xshim_segment_alloc_retire(&sc->space, f);
	return true;
}

bool xshim_conn_alloc(struct xshim_conn *sc, uint32_t len, uint32_t *off, uint32_t *id)
{
	pthread_mutex_lock(&sc->lock);
	/* Each round either finds room, reclaims space behind a fence, or gives
	 * up; a fence always reclaims every committed request before it, so two
	 * rounds without room mean the ring is held by uncollected replies. */
	for (int round = 0; round < 3; round++) {
		if (xshim_segment_alloc_reserve(&sc->space, len, off, id)) {
			pthread_mutex_unlock(&sc->lock);
			return true;
		}
		if (!xshim_segment_alloc_waiting(&sc->space))
			break; /* held by replies not collected yet: nothing to wait for */
		if (sc->nfences == 0) {
			pthread_mutex_unlock(&sc->lock);
			send_fence(sc);
			pthread_mutex_lock(&sc->lock);
		}
		if (!wait_oldest_fence(sc))
			break;
	}
	sc->st.plain++;
	pthread_mutex_unlock(&sc->lock);
	return false;
}

void xshim_conn_commit(struct xshim_conn *sc, uint32_t id, uint32_t seq, uint8_t major,
		bool error_to_queue, uint32_t bytes)
{
	pthread_mutex_lock(&sc->lock);
	xshim_segment_alloc_commit(&sc->space, id, seq);
	if (error_to_queue)
		xshim_errtab_add(&sc->errtab, seq, major);
	sc->since_fence += bytes;
	sc->unflushed += bytes;
	pthread_mutex_unlock(&sc->lock);
	atomic_store_explicit(&xshim_any_converted, true, memory_order_relaxed);
}

void xshim_conn_sent(struct xshim_conn *sc)
{
	pthread_mutex_lock(&sc->lock);
	/* A fence per quarter of the segment: when the ring fills up, the
	 * oldest quarter is usually known to be free already. */
	bool fence = sc->since_fence >= sc->size / 4 && sc->nfences < XSHIM_MAX_FENCES;
	/* Flushing once a request's worth of pixels waits keeps the server
	 * drawing while the client copies the next image (config.h). */
	bool flush = fence || sc->unflushed >= xshim_config()->flush;
	if (fence)
		sc->since_fence = 0;
	if (flush)
		sc->unflushed = 0;
	pthread_mutex_unlock(&sc->lock);
	if (fence)
		send_fence(sc);
	if (flush)
		xshim_real.xcb_flush(sc->c);
}

void xshim_conn_add_checked(struct xshim_conn *sc, uint32_t seq, uint8_t major)
{
	pthread_mutex_lock(&sc->lock);
	sc->checked[sc->checked_next].seq = seq;
	sc->checked[sc->checked_next].major = major;
	sc->checked_next = (sc->checked_next + 1) % XSHIM_MAX_CHECKED;
	pthread_mutex_unlock(&sc->lock);
}

void xshim_conn_rewrite_checked(struct xshim_conn *sc, xcb_generic_error_t *e)
{
	pthread_mutex_lock(&sc->lock);
	for (int i = 0; i < XSHIM_MAX_CHECKED; i++) {
		if (sc->checked[i].major && sc->checked[i].seq == e->full_sequence) {
			if (e->major_code == sc->shm_major) {
				e->major_code = sc->checked[i].major;
				e->minor_code = 0;
				sc->st.errors_rewritten++;
			}
			sc->checked[i].major = 0;
			break;
		}
	}
	pthread_mutex_unlock(&sc->lock);
}

void xshim_conn_release(struct xshim_conn *sc, uint32_t id)
{
	pthread_mutex_lock(&sc->lock);
	xshim_segment_alloc_release(&sc->space, id);
	pthread_mutex_unlock(&sc->lock);
}

void xshim_conn_saw_response(struct xshim_conn *sc, xcb_generic_error_t *ev)
{
	uint8_t type = ev->response_type & 0x7f;
	if (type == XCB_KEYMAP_NOTIFY) /* carries no sequence number */
		return;
	pthread_mutex_lock(&sc->lock);
	if (type == 0 && ev->major_code == sc->shm_major) {
		uint8_t major = xshim_errtab_lookup(&sc->errtab, ev->full_sequence);
		if (major) {
			/* Core requests have no minor opcode. */
			ev->major_code = major;
			ev->minor_code = 0;
			sc->st.errors_rewritten++;
		}
	}
	xshim_errtab_prune(&sc->errtab, ev->full_sequence);
	pthread_mutex_unlock(&sc->lock);
}

static void add_stats(struct xshim_stats *to, const struct xshim_stats *s)
{
	to->puts += s->puts;
	to->put_bytes += s->put_bytes;
	to->put_requests += s->put_requests;
	to->gets += s->gets;
	to->get_bytes += s->get_bytes;
	to->plain += s->plain;
	to->ring_waits += s->ring_waits;
	to->fences += s->fences;
	to->segments += s->segments;
	to->errors_rewritten += s->errors_rewritten;
}

static void print_stats(const char *what, const struct xshim_stats *s, const char *state)
{
	char line[512];
	snprintf(line, sizeof(line),
			"smt-x11shim: pid=%ld %s puts=%" PRIu64 " put_bytes=%" PRIu64
			" put_requests=%" PRIu64 " gets=%" PRIu64 " get_bytes=%" PRIu64
			" plain=%" PRIu64 " segments=%" PRIu64 " ring_waits=%" PRIu64
			" fences=%" PRIu64 " errors_rewritten=%" PRIu64 " state=%s\n",
			(long)getpid(), what, s->puts, s->put_bytes, s->put_requests, s->gets,
			s->get_bytes, s->plain, s->segments, s->ring_waits, s->fences,
			s->errors_rewritten, state);
	xshim_stats_line(line);
}

static const char *state_name(struct xshim_conn *sc)
{
	switch (atomic_load(&sc->state)) {
	case XSHIM_CONN_ACTIVE:
		return "active";
	case XSHIM_CONN_OFF:
		return "off";
	default:
		return "unused";
	}
}

void xshim_conn_destroy(xcb_connection_t *c)
{
	struct xshim_conn *sc = NULL;
	pthread_mutex_lock(&registry_lock);
	for (int i = 0; i < nregistry; i++) {
		if (registry[i]->c == c) {
			sc = registry[i];
			registry[i] = registry[--nregistry];
			add_stats(&closed_totals, &sc->st);
			nclosed++;
			break;
		}
	}
	pthread_mutex_unlock(&registry_lock);
	if (!sc)
		return;

	print_stats("connection", &sc->st, state_name(sc));
	atomic_fetch_sub(&xshim_pending_gets, sc->npending);
	xshim_seg_destroy(sc);
	xshim_segment_alloc_finish(&sc->space);
	xshim_errtab_finish(&sc->errtab);
	free(sc->pending);
	pthread_mutex_destroy(&sc->lock);
	free(sc);
}

/* Totals at exit, including connections the program never closed (most
 * programs just exit). */
__attribute__((destructor)) static void print_totals(void)
{
	if (!xshim_config()->stats)
		return;
	struct xshim_stats total = closed_totals;
	pthread_mutex_lock(&registry_lock);
	for (int i = 0; i < nregistry; i++) {
		pthread_mutex_lock(&registry[i]->lock);
		add_stats(&total, &registry[i]->st);
		pthread_mutex_unlock(&registry[i]->lock);
	}
	char what[64];
	snprintf(what, sizeof(what), "total connections=%d", nclosed + nregistry);
	pthread_mutex_unlock(&registry_lock);
	print_stats(what, &total, xshim_config()->enabled ? "enabled" : "disabled");
}

/*
 * libsmt: the two transports behind smt__begin/smt__end, flushing, fences.
 *
 * Ring: commands go straight into shared memory (ring-writer.c); head is
 * published by smt_flush, when a quarter of the area is unpublished (so
 * the compositor starts while we still write) and before any wait.
 *
 * Socket: commands queue in a local buffer and leave as submit requests of
 * at most SMT_SUBMIT_MAX bytes (chunker.c). The compositor holds at most
 * 1 MiB unexecuted, so the library writes a FENCE every 256 KiB of stream
 * and never has more than 768 KiB beyond the last acknowledged one in
 * flight: a fence is always on its way before that window closes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/cpu_relax.h"
#include "common/monotonic_clock.h"
#include "clients/libsmt/smt-internal.h"
#include "smt-ring-v1-client-protocol.h"

static bool is_ring(const struct smt_ctx *ctx)
{
	return ctx->transport == SMT_TRANSPORT_RING;
}

uint64_t smt__ring_dead(struct smt_ctx *ctx)
{
	return ctx->status &&
			(atomic_load_explicit(&((struct smt_ring_status *)ctx->status)->flags,
					 memory_order_acquire) &
					SMT_SERVER_DEAD);
}

/* ---- fence bookkeeping ---------------------------------------------------- */

/* Retire marks of fences known complete: by serial (status page or fence
 * event) or, on a ring, because tail passed them (a consumed FENCE has
 * executed). Retiring one also acknowledges the socket stream up to it. */
static void retire(struct smt_ctx *ctx, uint64_t serial, uint64_t tail)
{
	size_t i = 0;
	if (serial > ctx->completed_fence)
		ctx->completed_fence = serial;
	while (i < ctx->n_marks &&
			(ctx->marks[i].serial <= ctx->completed_fence ||
					ctx->marks[i].end_pos <= tail)) {
		if (ctx->marks[i].serial > ctx->completed_fence)
			ctx->completed_fence = ctx->marks[i].serial;
		ctx->acked_pos = ctx->marks[i].end_pos;
		i++;
	}
	if (i) {
		memmove(ctx->marks, ctx->marks + i, (ctx->n_marks - i) * sizeof(*ctx->marks));
		ctx->n_marks -= i;
	}
}

uint64_t smt_completed_fence(struct smt_ctx *ctx)
{
	if (is_ring(ctx) && ctx->status) {
		uint64_t c = atomic_load_explicit(
				&((struct smt_ring_status *)ctx->status)->completed_fence,
				memory_order_acquire);
		retire(ctx, c, smt_ring_writer_tail(&ctx->w));
	} else if (!ctx->failed) {
		wl_display_dispatch_queue_pending(ctx->display, ctx->queue); /* fence events */
	}
	return ctx->completed_fence;
}

/* ---- Wayland side --------------------------------------------------------- */

static void ring_status(void *data, struct smt_ring_v1 *ring, int32_t status_fd, int32_t global_fd)
{
	struct smt_ctx *ctx = data;
	void *s = mmap(NULL, SMT_STATUS_MAP_SIZE, PROT_READ, MAP_SHARED, status_fd, 0);
	void *g = mmap(NULL, SMT_STATUS_MAP_SIZE, PROT_READ, MAP_SHARED, global_fd, 0);
	close(status_fd);
	close(global_fd);
	if (s == MAP_FAILED || g == MAP_FAILED) {
		smt__fail(ctx, "cannot map the status pages: %s", strerror(errno));
		return;
	}
	ctx->status = s;
	ctx->global = g;
	ctx->got_status = true;
	if (ctx->status->magic != SMT_STATUS_MAGIC || ctx->global->magic != SMT_GLOBAL_MAGIC)
		smt__fail(ctx, "status pages have a bad magic");
}

static void ring_fence(void *data, struct smt_ring_v1 *ring, uint32_t hi, uint32_t lo)
{
	retire(data, (uint64_t)hi << 32 | lo, 0);
}

static const struct smt_ring_v1_listener ring_listener = { ring_status, ring_fence };

/* 0, -errno of a local failure (the caller may fall back to the socket),
 * or -EPIPE when the context failed. */
static int create_shm_ring(struct smt_ctx *ctx)
{
	uint32_t area = ctx->opts.area_size ? ctx->opts.area_size : SMT_RING_AREA_DEFAULT;
	if (area < SMT_RING_AREA_MIN || area > SMT_RING_AREA_MAX || (area & (area - 1)))
		return smt__fail(ctx, "ring area size %u: not a power of two in [4 KiB, 16 MiB]",
				area);
	int fd = memfd_create("smt-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	ctx->ring_map_size = SMT_RING_HEADER_SIZE + (size_t)area;
	if (ftruncate(fd, (off_t)ctx->ring_map_size) < 0 ||
			fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	void *map = mmap(NULL, ctx->ring_map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ctx->server_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ctx->client_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (map == MAP_FAILED || ctx->server_efd < 0 || ctx->client_efd < 0) {
		int e = -errno;
		if (map != MAP_FAILED)
			munmap(map, ctx->ring_map_size);
		close(fd);
		return e; /* the eventfds are closed by transport_fini */
	}
	ctx->ring_map = map;
	struct smt_ring_header *hdr = map; /* a fresh memfd is zero */
	hdr->magic = SMT_RING_MAGIC;
	hdr->version = SMT_RING_VERSION;
	hdr->area_size = area;
	hdr->header_size = SMT_RING_HEADER_SIZE;
	/* libwayland duplicates the fds while marshalling */
	ctx->ring = smt_ring_manager_v1_create_ring(
			ctx->manager, fd, area, ctx->server_efd, ctx->client_efd);
	close(fd);
	ctx->w.area_size = area;
	return 0;
}

int smt__transport_init(struct smt_ctx *ctx)
{
	if (ctx->transport != SMT_TRANSPORT_SOCKET) {
		int r = create_shm_ring(ctx);
		if (r == -EPIPE)
			return r;
		if (r < 0 && ctx->transport == SMT_TRANSPORT_RING)
			return smt__fail(ctx, "cannot create a shared-memory ring: %s",
					strerror(-r));
		if (r < 0)
			fprintf(stderr, "libsmt: no shared memory (%s): using the socket\n",
					strerror(-r));
		ctx->transport = r < 0 ? SMT_TRANSPORT_SOCKET : SMT_TRANSPORT_RING;
	}
	if (!ctx->ring)
		ctx->ring = smt_ring_manager_v1_create_socket_ring(ctx->manager);
	wl_proxy_set_queue((struct wl_proxy *)ctx->ring, ctx->queue);
	smt_ring_v1_add_listener(ctx->ring, &ring_listener, ctx);

	int r = smt__roundtrip(ctx);
	if (r)
		return r;
	if (!ctx->got_status)
		return smt__fail(ctx, "the compositor sent no ring status");
	uint32_t area = ctx->opts.area_size ? ctx->opts.area_size : SMT_RING_AREA_DEFAULT;
	if (is_ring(ctx)) {
		smt_ring_writer_init(&ctx->w, ctx->ring_map, ctx->status, ctx->global,
				(uint8_t *)ctx->ring_map + SMT_RING_HEADER_SIZE, area);
		ctx->max_cmd = smt_ring_writer_max_cmd(&ctx->w);
	} else {
		ctx->max_cmd = area / 2 < SMT_SOCKET_MAX_CMD ? area / 2 : SMT_SOCKET_MAX_CMD;
		if (ctx->max_cmd < SMT_RING_AREA_MIN / 2)
			ctx->max_cmd = SMT_RING_AREA_MIN / 2;
	}
	return 0;
}

void smt__transport_fini(struct smt_ctx *ctx)
{
	if (ctx->ring)
		smt_ring_v1_destroy(ctx->ring);
	if (ctx->ring_map)
		munmap(ctx->ring_map, ctx->ring_map_size);
	if (ctx->status)
		munmap((void *)ctx->status, SMT_STATUS_MAP_SIZE);
	if (ctx->global)
		munmap((void *)ctx->global, SMT_STATUS_MAP_SIZE);
	if (ctx->server_efd >= 0)
		close(ctx->server_efd);
	if (ctx->client_efd >= 0)
		close(ctx->client_efd);
}

/* ---- ring transport ------------------------------------------------------- */

static void ring_publish(struct smt_ctx *ctx)
{
	if (smt_ring_writer_publish(&ctx->w)) {
		uint64_t one = 1;
		/* EAGAIN would mean the counter is nearly 2^64: already awake */
		if (write(ctx->server_efd, &one, sizeof(one)) == sizeof(one)) {
			ctx->wakeups_sent++;
			atomic_store_explicit(&ctx->w.hdr->wakeups_sent, ctx->wakeups_sent,
					memory_order_relaxed);
		}
	}
}

/* How long a client looks at the tail before it sleeps on its eventfd.
 * The compositor publishes its tail every 16 KiB (at most area/8) of
 * commands it runs, so while it works through a full ring the tail moves
 * every few microseconds; going to sleep instead costs a wakeup (tens of
 * microseconds on a VM) during which the compositor drains the ring and
 * sleeps too (docs/benchmarks.md, "Spinning"). Bounded: a compositor
 * that does not move costs us at most this much CPU per wait. Only while
 * the compositor is awake: one we had to wake starts on another CPU if
 * this one stays busy, and answered a FENCE in ~110 us instead of ~8 us
 * when we slept at once (tests/bench/clients, ping p50, one client).
 * Adaptive: a spin that fails makes the next 1, 2, 4 .. 64 waits sleep at
 * once, a spin that succeeds ends that. With a third busy process on the
 * two CPUs, spinning without it took the CPU the compositor needed:
 * put100 128-146 K/s against 291-304 K/s with the back-off (and 311-327 K/s
 * for the old build, which never spins). A full ring that the compositor
 * drains slowly is not worth a spin at all (smt_ring_writer_drains_slowly). */
#define RING_SPIN_NS 50000u
#define RING_SPIN_BACKOFF_MAX 64u

/* Whether the tail reached need (or the ring died) within RING_SPIN_NS,
 * the compositor awake all along. */
static bool ring_spin_tail(struct smt_ctx *ctx, uint64_t need)
{
	uint64_t start = 0;
	for (unsigned i = 0;; i++) {
		if ((int64_t)(smt_ring_writer_tail(&ctx->w) - need) >= 0 || smt__ring_dead(ctx))
			return true;
		if (atomic_load_explicit(&((struct smt_global_status *)ctx->global)->server_asleep,
				    memory_order_relaxed)) {
			ctx->spins_server_asleep++;
			return false;
		}
		if ((i & 15) == 0) {
			uint64_t t = monotonic_now_ns();
			if (start == 0)
				start = t;
			else if (t - start > RING_SPIN_NS)
				return false;
		}
		cpu_relax();
	}
}

/* Whether a spin may pay: after a failed spin the next 1, 2, 4 .. 64
 * waits sleep at once (RING_SPIN_BACKOFF_MAX). */
static bool ring_spin_due(struct smt_ctx *ctx)
{
	if (ctx->spin_skip == 0)
		return true;
	ctx->spin_skip--;
	ctx->spin_skips++;
	return false;
}

/* Publish, then wait until the server's tail reaches need: spinning first
 * if `spin` (ring_spin_tail), then, if it still has not, asleep until it
 * reaches sleep_need >= need (the client wait of smt-ring.h), reading
 * Wayland events meanwhile. */
static int ring_wait_tail(struct smt_ctx *ctx, uint64_t need, uint64_t sleep_need, bool spin)
{
	ring_publish(ctx);
	if (spin && ring_spin_due(ctx)) {
		ctx->spins++;
		if (ring_spin_tail(ctx, need)) {
			sleep_need = need; /* reached, or dead: the loop returns */
			ctx->spin_backoff = 0;
			ctx->spins_reached++;
		} else {
			ctx->spin_backoff = ctx->spin_backoff ? ctx->spin_backoff * 2 : 1;
			if (ctx->spin_backoff > RING_SPIN_BACKOFF_MAX)
				ctx->spin_backoff = RING_SPIN_BACKOFF_MAX;
			ctx->spin_skip = ctx->spin_backoff;
		}
	}
	for (;;) {
		int r = smt__check(ctx);
		if (r)
			return r;
		if ((int64_t)(smt_ring_writer_tail(&ctx->w) - need) >= 0)
			return 0;
		if (!smt_ring_client_begin_wait(ctx->w.hdr, ctx->status, sleep_need))
			continue; /* reached meanwhile, or dead: re-check */
		/* The timeout only bounds the damage of a server bug: a correct
		 * server always writes the eventfd (Dekker pattern). */
		r = smt__wait_io(ctx, ctx->client_efd, 1000, false);
		uint64_t v;
		if (read(ctx->client_efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			r = r ? r : smt__fail(ctx, "eventfd: %s", strerror(errno));
		smt_ring_client_end_wait(ctx->w.hdr);
		if (r)
			return r;
	}
}

/* ---- socket transport ----------------------------------------------------- */

static int socket_send(struct smt_ctx *ctx)
{
	while (ctx->ssent < ctx->slen) {
		size_t n = smt_chunk_next(&ctx->chunker, ctx->sbuf + ctx->ssent,
				ctx->slen - ctx->ssent, SMT_SUBMIT_MAX);
		/* keep what the compositor must buffer under its 1 MiB limit */
		while (ctx->sent_pos + n > ctx->acked_pos + SMT_SOCKET_WINDOW) {
			int r = smt__flush_requests(ctx);
			if (r || (r = smt__wait_io(ctx, -1, 1000, false)))
				return r;
		}
		struct wl_array a = { .size = n, .alloc = n, .data = ctx->sbuf + ctx->ssent };
		smt_ring_v1_submit(ctx->ring, &a);
		ctx->ssent += n;
		ctx->sent_pos += n;
		ctx->submits++;
		ctx->submit_bytes += n;
		/* one message at a time out of libwayland's 4 KiB buffer: an
		 * overflow there would kill the connection */
		int r = smt__flush_requests(ctx);
		if (r)
			return r;
	}
	ctx->slen = ctx->ssent = 0;
	return 0;
}

static void *socket_begin(struct smt_ctx *ctx, uint32_t size)
{
	if (ctx->slen + size > SMT_SOCKET_BATCH && ctx->slen > 0 && socket_send(ctx))
		return NULL;
	if (ctx->slen + size > ctx->scap) {
		size_t cap = ctx->scap ? ctx->scap : SMT_SOCKET_BATCH;
		while (cap < ctx->slen + size)
			cap *= 2;
		uint8_t *b = realloc(ctx->sbuf, cap);
		if (!b) {
			smt__fail(ctx, "out of memory");
			return NULL;
		}
		ctx->sbuf = b;
		ctx->scap = cap;
	}
	return ctx->sbuf + ctx->slen;
}

/* ---- common --------------------------------------------------------------- */

void *smt__begin(struct smt_ctx *ctx, uint32_t size)
{
	if (ctx->failed || smt__ring_dead(ctx)) {
		smt__check(ctx);
		return NULL;
	}
	if (!is_ring(ctx))
		return ctx->cur = socket_begin(ctx, size);
	for (;;) {
		uint64_t need;
		void *p = smt_ring_writer_reserve(&ctx->w, size, &need);
		if (p)
			return ctx->cur = p;
		ctx->full_waits++;
		atomic_store_explicit(
				&ctx->w.hdr->full_waits, ctx->full_waits, memory_order_relaxed);
		/* Hysteresis for sleeping: ask to be woken when half the area is
		 * free, not as soon as this one command fits, so one wakeup moves
		 * at least area/2 bytes. Measured (docs/benchmarks.md, "Wakeups"):
		 * ~10x fewer wakeups for large commands (500x500 fills 2.9 -> 0.3
		 * per 1000). A spinning wait goes on as soon as the command fits:
		 * it costs no syscall; but a compositor that takes long to free
		 * half the ring would drain it long after we woke, so then we
		 * sleep at once and leave the CPU to others. */
		uint64_t half = ctx->w.head - ctx->w.area_size / 2;
		bool spin = !smt_ring_writer_drains_slowly(&ctx->w, monotonic_now_ns());
		ctx->slow_drain_sleeps += !spin;
		if (ring_wait_tail(ctx, need, (int64_t)(half - need) > 0 ? half : need, spin))
			return NULL;
	}
}

static int emit_fence(struct smt_ctx *ctx, uint64_t *serial);

/* smt__end for `commands` commands in `size` bytes. */
static int end_many(struct smt_ctx *ctx, uint32_t size, uint32_t commands)
{
	if (ctx->tap)
		ctx->tap(ctx->tap_data, ctx->cur, size);
	ctx->commands += commands;
	if (is_ring(ctx)) {
		smt_ring_writer_commit_many(&ctx->w, size, commands);
		if (ctx->w.head - ctx->w.published >= ctx->w.area_size / 4)
			ring_publish(ctx);
		return 0;
	}
	ctx->slen += size;
	ctx->stream_pos += size;
	if (ctx->stream_pos - ctx->last_fence_pos >= SMT_SOCKET_FENCE_EVERY) {
		uint64_t serial;
		return emit_fence(ctx, &serial);
	}
	return 0;
}

int smt__end(struct smt_ctx *ctx, uint32_t size)
{
	return end_many(ctx, size, 1);
}

void *smt_reserve(struct smt_ctx *ctx, uint32_t min, uint32_t max, uint32_t *room)
{
	if (max > ctx->max_cmd)
		max = ctx->max_cmd;
	if (min < 8 || min % 8 || min > max) {
		errno = EINVAL;
		return NULL;
	}
	/* the socket's room is local memory: take all of it at once */
	void *p = smt__begin(ctx, is_ring(ctx) ? min : max);
	if (!p)
		return NULL;
	*room = is_ring(ctx) ? smt_ring_writer_room(&ctx->w, max) : max & ~7u;
	ctx->room = *room;
	return p;
}

int smt_commit(struct smt_ctx *ctx, uint32_t bytes, uint32_t commands)
{
	/* a bad size here would misframe every later command: refuse it
	 * rather than publish it */
	if (bytes % 8 || bytes > ctx->room || (bytes && !commands))
		return -EINVAL;
	ctx->room = 0;
	return bytes ? end_many(ctx, bytes, commands) : 0;
}

static int emit_fence(struct smt_ctx *ctx, uint64_t *serial)
{
	/* drop marks the ring already passed (no shared read: the tail last
	 * seen), so an app that fences without ever waiting stays bounded */
	if (is_ring(ctx))
		retire(ctx, 0, ctx->w.tail_seen);
	if (ctx->n_marks == ctx->cap_marks) {
		size_t cap = ctx->cap_marks ? ctx->cap_marks * 2 : 16;
		struct smt_fence_mark *m = realloc(ctx->marks, cap * sizeof(*m));
		if (!m)
			return smt__fail(ctx, "out of memory");
		ctx->marks = m;
		ctx->cap_marks = cap;
	}
	void *p = smt__begin(ctx, sizeof(struct smt_cmd_fence));
	if (!p)
		return -EPIPE;
	*serial = ++ctx->next_fence;
	smt_encode_fence(p, *serial);
	/* set before smt__end so it does not fence again */
	ctx->last_fence_pos = ctx->stream_pos + sizeof(struct smt_cmd_fence);
	int r = smt__end(ctx, sizeof(struct smt_cmd_fence));
	uint64_t end = is_ring(ctx) ? ctx->w.head : ctx->stream_pos;
	ctx->marks[ctx->n_marks++] = (struct smt_fence_mark){ *serial, end };
	return r;
}

int smt_flush(struct smt_ctx *ctx)
{
	int r = smt__check(ctx);
	if (r)
		return r;
	if (is_ring(ctx))
		ring_publish(ctx);
	else if ((r = socket_send(ctx)))
		return r;
	return smt__flush_requests(ctx);
}

uint64_t smt_fence(struct smt_ctx *ctx)
{
	uint64_t serial = 0;
	return emit_fence(ctx, &serial) ? 0 : serial;
}

int smt_wait_fence(struct smt_ctx *ctx, uint64_t serial)
{
	if (serial == 0 || serial > ctx->next_fence)
		return -EINVAL;
	int r = smt_flush(ctx);
	while (!r && smt_completed_fence(ctx) < serial) {
		if (is_ring(ctx)) {
			/* marks are in serial order; ours is still there */
			size_t i = 0;
			while (i < ctx->n_marks && ctx->marks[i].serial < serial)
				i++;
			if (i == ctx->n_marks)
				return smt__fail(
						ctx, "fence %llu lost", (unsigned long long)serial);
			r = ring_wait_tail(ctx, ctx->marks[i].end_pos, ctx->marks[i].end_pos, true);
		} else {
			r = smt__wait_io(ctx, -1, 1000, false);
		}
	}
	return r;
}

int smt_sync(struct smt_ctx *ctx)
{
	uint64_t s = smt_fence(ctx);
	return s ? smt_wait_fence(ctx, s) : -EPIPE;
}

void smt_set_tap(struct smt_ctx *ctx, smt_tap_fn fn, void *data)
{
	ctx->tap = fn;
	ctx->tap_data = data;
}

int smt_get_stats(struct smt_ctx *ctx, struct smt_stats *o)
{
	struct smt_ring_status *s = (struct smt_ring_status *)ctx->status;
	struct smt_global_status *g = (struct smt_global_status *)ctx->global;
	memset(o, 0, sizeof(*o));
	o->transport = ctx->transport;
	o->area_size = ctx->w.area_size;
	o->last_fence = ctx->next_fence;
	o->completed_fence = smt_completed_fence(ctx);
	o->full_waits = ctx->full_waits;
	o->sleeps = ctx->sleeps;
	o->spins = ctx->spins;
	o->spins_reached = ctx->spins_reached;
	o->spins_server_asleep = ctx->spins_server_asleep;
	o->spin_skips = ctx->spin_skips;
	o->slow_drain_sleeps = ctx->slow_drain_sleeps;
	o->wakeups_sent = ctx->wakeups_sent;
	o->submits = ctx->submits;
	o->commands_written = ctx->commands;
	o->submit_bytes = ctx->submit_bytes;
	if (is_ring(ctx)) {
		o->head = ctx->w.head;
		o->published = ctx->w.published;
		o->tail = smt_ring_writer_tail(&ctx->w);
		o->pads_written = ctx->w.pads;
	} else {
		o->head = ctx->stream_pos;
		o->published = ctx->sent_pos;
		o->tail = ctx->acked_pos; /* known executed: the last fence */
	}
	if (s) {
		o->commands_executed = atomic_load_explicit(
				&s->commands_executed, memory_order_relaxed);
		o->bytes_executed = atomic_load_explicit(&s->bytes_executed, memory_order_relaxed);
		o->wakeups_to_client = atomic_load_explicit(
				&s->wakeups_to_client, memory_order_relaxed);
		o->wakeups_from_client = atomic_load_explicit(
				&s->wakeups_from_client, memory_order_relaxed);
		o->dead = atomic_load_explicit(&s->flags, memory_order_acquire) & SMT_SERVER_DEAD;
		o->error_code = atomic_load_explicit(&s->error_code, memory_order_relaxed);
		o->error_opcode = atomic_load_explicit(&s->error_opcode, memory_order_relaxed);
		o->error_offset = atomic_load_explicit(&s->error_offset, memory_order_relaxed);
	}
	if (g) {
		o->server_asleep = atomic_load_explicit(&g->server_asleep, memory_order_relaxed);
		o->generation = atomic_load_explicit(&g->generation, memory_order_relaxed);
	}
	return ctx->failed ? -EPIPE : 0;
}

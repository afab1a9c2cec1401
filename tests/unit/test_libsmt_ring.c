/*
 * Unit tests for clients/libsmt/ring-writer: PAD at the wrap, the full-ring
 * condition, publishing and the wait helpers of smt-ring.h, over in-memory
 * fake header/status/global pages; the spin-or-sleep choice on a full ring
 * at given clock values; then a two-thread producer/consumer run
 * with the real atomics.
 */
#include "clients/libsmt/ring-writer.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/unit_check.h"

struct fake {
	struct smt_ring_header *hdr;
	struct smt_ring_status *status;
	struct smt_global_status *global;
	uint8_t *area;
	uint32_t area_size;
	struct smt_ring_writer w;
	uint64_t tail; /* the fake server's consumer position */
};

static void fake_init(struct fake *f, uint32_t area_size)
{
	f->hdr = aligned_alloc(64, SMT_RING_HEADER_SIZE);
	f->status = aligned_alloc(64, SMT_STATUS_MAP_SIZE);
	f->global = aligned_alloc(64, SMT_STATUS_MAP_SIZE);
	f->area = aligned_alloc(64, area_size);
	memset(f->hdr, 0, SMT_RING_HEADER_SIZE);
	memset(f->status, 0, SMT_STATUS_MAP_SIZE);
	memset(f->global, 0, SMT_STATUS_MAP_SIZE);
	memset(f->area, 0xcc, area_size);
	f->area_size = area_size;
	f->tail = 0;
	smt_ring_writer_init(&f->w, f->hdr, f->status, f->global, f->area, area_size);
}

static void fake_fini(struct fake *f)
{
	free(f->hdr);
	free(f->status);
	free(f->global);
	free(f->area);
}

/* A NOOP whose payload carries a sequence number (to check order). */
static bool put(struct fake *f, uint32_t size, uint64_t seq)
{
	uint64_t need;
	uint8_t *p = smt_ring_writer_reserve(&f->w, size, &need);
	if (!p)
		return false;
	smt_encode_noop(p, SMT_OP_NOOP, size);
	if (size >= 16)
		memcpy(p + 8, &seq, 8);
	smt_ring_writer_commit(&f->w, size);
	return true;
}

/* The fake server: consume published commands, checking framing like
 * compositor/exec does (no command crosses the end; PAD runs to it). */
static uint64_t consume(struct fake *f, uint64_t max_cmds, uint64_t *seq)
{
	uint64_t head = atomic_load_explicit(&f->hdr->head, memory_order_acquire), n = 0;
	while (f->tail != head && n < max_cmds) {
		uint32_t off = (uint32_t)(f->tail & (f->area_size - 1));
		struct smt_cmd_header h;
		memcpy(&h, f->area + off, sizeof(h));
		CHECK(h.size >= 8 && h.size % 8 == 0 && off + h.size <= f->area_size);
		CHECK(f->tail + h.size <= head);
		if (h.opcode == SMT_OP_PAD) {
			CHECK(off + h.size == f->area_size);
		} else {
			CHECK(h.opcode == SMT_OP_NOOP);
			if (h.size >= 16 && seq) {
				uint64_t s;
				memcpy(&s, f->area + off + 8, 8);
				CHECK(s == *seq);
				++*seq;
			}
			n++;
		}
		if (h.size < 8)
			break;
		f->tail += h.size;
	}
	atomic_store_explicit(&f->status->tail, f->tail, memory_order_release);
	return n;
}

static void test_pad_and_full(void)
{
	struct fake f;
	uint64_t need, seq = 0;
	fake_init(&f, 4096);
	CHECK(smt_ring_writer_max_cmd(&f.w) == 2048);
	for (int i = 0; i < 4; i++)
		CHECK(put(&f, 1000, (uint64_t)i));
	CHECK(f.w.head == 4000 && f.w.pads == 0);
	/* 96 bytes left before the end: a 1000-byte command needs PAD 96 +
	 * 1000, but only 96 are free (tail is 0) */
	CHECK(smt_ring_writer_reserve(&f.w, 1000, &need) == NULL);
	CHECK(need == 4000 + 96 + 1000 - 4096);
	CHECK(f.w.head == 4000); /* nothing written on failure */
	/* an 8-byte command still fits contiguously */
	CHECK(put(&f, 8, 0) && f.w.head == 4008);
	/* now PAD 88 + 1000 are needed: the tail must reach 1000 */
	CHECK(smt_ring_writer_reserve(&f.w, 1000, &need) == NULL);
	CHECK(need == 4008 + 88 + 1000 - 4096 && need == 1000);
	CHECK(smt_ring_writer_publish(&f.w) == false); /* server awake */
	/* the server consumes exactly one command: exactly enough room */
	CHECK(consume(&f, 1, &seq) == 1 && f.tail == 1000);
	uint8_t *p = smt_ring_writer_reserve(&f.w, 1000, &need);
	CHECK(p == f.area); /* wrapped to the start */
	CHECK(f.w.head == 4096 && f.w.pads == 1);
	struct smt_cmd_header h;
	memcpy(&h, f.area + 4008, sizeof(h));
	CHECK(h.opcode == SMT_OP_PAD && h.size == 88);
	smt_encode_noop(p, SMT_OP_NOOP, 1000);
	memcpy(p + 8, &(uint64_t){ 4 }, 8);
	smt_ring_writer_commit(&f.w, 1000);
	/* exactly full is allowed: fill the remaining space */
	smt_ring_writer_publish(&f.w);
	while (consume(&f, 100, NULL))
		;
	CHECK(f.tail == 5096);
	/* fill to exactly full: 2048 + 1048 reach the end, 1000 wrap */
	CHECK(put(&f, 2048, 0) && put(&f, 1048, 0) && f.w.pads == 1);
	CHECK(put(&f, 1000, 0) && f.w.head == 5096 + 4096);
	CHECK(smt_ring_space(f.w.head, f.tail, 4096) == 0);
	CHECK(smt_ring_writer_reserve(&f.w, 8, &need) == NULL && need == f.tail + 8);
	fake_fini(&f);
}

/* Batches: room stops at the end of the area and at the tail, reads the
 * tail again only when the last one seen is short, and a batch of many
 * commands reaches the server whole and in order. */
static void test_batch_room(void)
{
	struct fake f;
	uint64_t need, seq = 0;
	fake_init(&f, 4096);
	CHECK(smt_ring_writer_reserve(&f.w, 16, &need) == f.area);
	CHECK(smt_ring_writer_room(&f.w, 100000) == 4096); /* all of it, nothing more */
	CHECK(smt_ring_writer_room(&f.w, 1001) == 1000);   /* a multiple of 8 */
	/* 60 NOOPs of 16 bytes with sequence numbers, one commit */
	uint8_t *p = f.area;
	for (uint64_t i = 0; i < 60; i++, p += 16) {
		smt_encode_noop(p, SMT_OP_NOOP, 16);
		memcpy(p + 8, &i, 8);
	}
	smt_ring_writer_commit_many(&f.w, 60 * 16, 60);
	CHECK(f.w.head == 960 && f.w.commands == 60);
	smt_ring_writer_publish(&f.w);
	CHECK(consume(&f, 1000, &seq) == 60 && seq == 60 && f.tail == 960);
	/* fill to 4000 with the tail still at 960 as last seen by the writer
	 * (0): room is bounded by the end of the area, 96 bytes */
	for (int i = 0; i < 4; i++)
		CHECK(put(&f, 760, 0));
	CHECK(f.w.head == 4000);
	CHECK(smt_ring_writer_reserve(&f.w, 8, &need) != NULL);
	CHECK(smt_ring_writer_room(&f.w, 4096) == 96);
	/* past the wrap: the tail bounds the room; the writer's last seen
	 * tail is older than the server's, so room reads it again */
	CHECK(put(&f, 96, 0) && f.w.head == 4096);
	CHECK(smt_ring_writer_reserve(&f.w, 8, &need) == f.area);
	CHECK(smt_ring_writer_room(&f.w, 4096) == 960);
	CHECK(f.w.tail_seen == 960);
	fake_fini(&f);
}

static void test_publish_and_wait(void)
{
	struct fake f;
	fake_init(&f, 4096);
	CHECK(smt_ring_writer_publish(&f.w) == false); /* nothing new */
	put(&f, 64, 0);
	atomic_store(&f.global->server_asleep, 1);
	CHECK(smt_ring_writer_publish(&f.w) == true); /* must wake it */
	CHECK(atomic_load(&f.hdr->head) == 64 && f.w.published == 64);
	CHECK(atomic_load(&f.hdr->commands_written) == 1);
	CHECK(smt_ring_writer_publish(&f.w) == false); /* already published */

	/* wait protocol: not reached -> WAITING with the tail it needs */
	CHECK(smt_ring_client_begin_wait(f.hdr, f.status, 64) == true);
	CHECK(atomic_load(&f.hdr->flags) == SMT_CLIENT_WAITING);
	CHECK(atomic_load(&f.hdr->wait_tail) == 64);
	smt_ring_client_end_wait(f.hdr);
	CHECK(atomic_load(&f.hdr->flags) == 0);
	consume(&f, 10, NULL);
	CHECK(smt_ring_client_begin_wait(f.hdr, f.status, 64) == false);
	CHECK(atomic_load(&f.hdr->flags) == 0);
	/* dead: never sleep */
	atomic_store(&f.status->flags, SMT_SERVER_DEAD);
	CHECK(smt_ring_client_begin_wait(f.hdr, f.status, 1 << 20) == false);
	/* a tail beyond head (broken server) is clamped */
	atomic_store(&f.status->tail, 1 << 20);
	CHECK(smt_ring_writer_tail(&f.w) == 64);
	fake_fini(&f);
}

/* Fills the ring with 1 KiB commands, one per free KiB, until full. */
static void fill(struct fake *f)
{
	while (put(f, 1024, 0)) {
	}
	smt_ring_writer_publish(&f->w);
}

/* Spin or sleep on a full ring: the client sleeps at once only when the
 * server, over a window of half the ring (or SMT_RING_SLEEP_WORTH_NS)
 * between full rings, takes at least SMT_RING_SLEEP_WORTH_NS per half
 * ring. The clock is the caller's: these are given instants, nothing here
 * waits. */
static void test_drains_slowly(void)
{
	struct fake f;
	const uint64_t us = 1000, half = 32; /* 1 KiB commands in 64 KiB */
	fake_init(&f, 64 * 1024);
	fill(&f);
	uint64_t t = 5 * us;
	CHECK(!smt_ring_writer_drains_slowly(&f.w, t)); /* no rate known yet */
	/* half the ring in 10 us: a wakeup would find it drained, spin */
	consume(&f, half, NULL);
	fill(&f);
	t += 10 * us;
	CHECK(!smt_ring_writer_drains_slowly(&f.w, t));
	/* one slow command alone is no verdict: the window is not over */
	consume(&f, 1, NULL);
	fill(&f);
	t += 100 * us;
	CHECK(!smt_ring_writer_drains_slowly(&f.w, t));
	/* 8 KiB in 400 us: the window ends slow (half takes 1.6 ms), sleep,
	 * and the verdict holds while the next window runs */
	consume(&f, 7, NULL);
	fill(&f);
	t += 300 * us;
	CHECK(smt_ring_writer_drains_slowly(&f.w, t));
	consume(&f, 4, NULL);
	fill(&f);
	t += 10 * us;
	CHECK(smt_ring_writer_drains_slowly(&f.w, t));
	/* half the ring a little faster than SMT_RING_SLEEP_WORTH_NS: spin
	 * (the window began at the last verdict, 4 KiB ago) */
	consume(&f, half - 4, NULL);
	fill(&f);
	t += SMT_RING_SLEEP_WORTH_NS - 20 * us;
	CHECK(!smt_ring_writer_drains_slowly(&f.w, t));
	/* exactly at the threshold: sleep */
	consume(&f, half, NULL);
	fill(&f);
	t += SMT_RING_SLEEP_WORTH_NS;
	CHECK(smt_ring_writer_drains_slowly(&f.w, t));
	/* the last full ring too long ago to say: a new window, spin */
	consume(&f, 1, NULL);
	fill(&f);
	t += SMT_RING_RATE_MAX_AGE_NS;
	CHECK(!smt_ring_writer_drains_slowly(&f.w, t));
	fake_fini(&f);
}

/* Random sizes against a lazy consumer: order and framing survive many wraps. */
static void test_random(void)
{
	struct fake f;
	uint64_t rng = 12345, wseq = 0, rseq = 0;
	fake_init(&f, 8192);
	for (int i = 0; i < 200000; i++) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		uint32_t size = 16 + (uint32_t)(rng % 4081) / 8 * 8; /* <= area / 2 */
		while (!put(&f, size, wseq)) {
			smt_ring_writer_publish(&f.w);
			consume(&f, 1 + rng % 3, &rseq);
		}
		wseq++;
		if (rng % 7 == 0) {
			smt_ring_writer_publish(&f.w);
			consume(&f, rng % 5, &rseq);
		}
	}
	smt_ring_writer_publish(&f.w);
	consume(&f, UINT64_MAX, &rseq);
	CHECK(rseq == wseq && f.tail == f.w.head);
	fake_fini(&f);
}

/* The real thing with two threads: acquire/release on head and tail. */
struct thr {
	struct fake *f;
	uint64_t n;
	uint64_t got;
};

static void *consumer(void *arg)
{
	struct thr *t = arg;
	uint64_t seq = 0;
	while (seq < t->n) {
		if (!consume(t->f, 64, &seq))
			sched_yield();
	}
	t->got = seq;
	return NULL;
}

static void test_threads(void)
{
	struct fake f;
	fake_init(&f, 4096);
	struct thr t = { &f, 300000, 0 };
	pthread_t th;
	pthread_create(&th, NULL, consumer, &t);
	for (uint64_t i = 0; i < t.n; i++) {
		uint32_t size = 16 + (uint32_t)(i % 61) * 8;
		while (!put(&f, size, i)) {
			smt_ring_writer_publish(&f.w);
			sched_yield();
		}
		if (i % 16 == 0)
			smt_ring_writer_publish(&f.w);
	}
	smt_ring_writer_publish(&f.w);
	pthread_join(th, NULL);
	CHECK(t.got == t.n);
	fake_fini(&f);
}

int main(void)
{
	test_pad_and_full();
	test_batch_room();
	test_publish_and_wait();
	test_drains_slowly();
	test_random();
	test_threads();
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}

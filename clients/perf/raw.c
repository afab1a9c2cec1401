/*
 * smt-perf --raw: the ring's own limit, without the compositor.
 *
 * The same ring writer libsmt uses (batches of NOOPs encoded in place,
 * head published every quarter of the area, as libsmt publishes) feeds a
 * forked consumer over the same shared mapping, on the other core. Neither
 * side ever sleeps: both spin, so the figures are what the memory and the
 * code move, not what the kernel's wakeups cost. Three consumers:
 *   lines  loads one word of every 64-byte line published and moves its
 *          tail to head: the bytes crossing between the cores, no
 *          framing at all (commands are not looked at);
 *   touch  reads each command's header and steps over it by its size,
 *          no checks: one load per command, each address depending on
 *          the size loaded before it;
 *   frame  the compositor's reader (compositor/exec/ring_reader.c:
 *          begin, skip_noops, publish): every header read once and framed
 *          with the checks the compositor makes, but no executor, no event
 *          loop, no scheduler.
 * Against `smt-perf -t ring -c noop --objects 1` (the compositor), the
 * difference is what the compositor's loop adds per command; against
 * touch, what framing a hostile stream costs.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "protocol/smt-ring.h"
#include "compositor/exec/ring_reader.h"
#include "clients/libsmt/ring-writer.h"
#include "clients/perf/perf.h"

/* What both processes share besides the ring: where the writer stopped. */
struct raw_control {
	_Atomic uint64_t stop_at; /* 0: still writing; else the final head */
};

struct raw_shared {
	uint8_t *ring_mem; /* header page + area */
	struct smt_ring_status *status;
	struct smt_global_status *global;
	struct raw_control *control;
	uint32_t area;
};

static void *shared_zeroed(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static uint64_t head_acquire(const struct smt_ring_header *h)
{
	return atomic_load_explicit(&h->head, memory_order_acquire);
}

static bool writer_done(const struct raw_shared *s, uint64_t tail)
{
	uint64_t end = atomic_load_explicit(&s->control->stop_at, memory_order_acquire);
	return end != 0 && end == tail;
}

/* Consumer "lines": every published line loaded once, nothing framed. */
static _Noreturn void consume_lines(const struct raw_shared *s)
{
	const struct smt_ring_header *h = (const void *)s->ring_mem;
	const uint8_t *area = s->ring_mem + SMT_RING_HEADER_SIZE;
	uint64_t tail = 0, mask = s->area - 1, sum = 0;
	for (;;) {
		uint64_t head = head_acquire(h);
		if (head == tail) {
			if (writer_done(s, tail))
				_exit(sum == 1); /* keeps the loads; never true */
			cpu_relax();
			continue;
		}
		for (uint64_t at = tail & ~(uint64_t)63; at < head; at += 64) {
			uint64_t word;
			memcpy(&word, area + (at & mask), sizeof(word));
			sum += word;
		}
		tail = head;
		atomic_store_explicit(&s->status->tail, tail, memory_order_release);
	}
}

/* Consumer "touch": one header load per command, nothing validated. */
static _Noreturn void consume_touch(const struct raw_shared *s)
{
	const struct smt_ring_header *h = (const void *)s->ring_mem;
	const uint8_t *area = s->ring_mem + SMT_RING_HEADER_SIZE;
	uint64_t tail = 0, mask = s->area - 1;
	for (;;) {
		uint64_t head = head_acquire(h);
		if (head == tail) {
			if (writer_done(s, tail))
				_exit(0);
			cpu_relax();
			continue;
		}
		while (tail != head) {
			uint32_t size;
			memcpy(&size, area + (tail & mask) + 4, sizeof(size));
			tail += size < 8 ? 8 : size;
		}
		atomic_store_explicit(&s->status->tail, tail, memory_order_release);
	}
}

/* Consumer "frame": the compositor's reader over the same bytes. */
static _Noreturn void consume_frame(const struct raw_shared *s)
{
	struct smt_ring_reader r;
	if (smt_ring_reader_init(
			    &r, s->ring_mem, SMT_RING_HEADER_SIZE + s->area, s->area, s->status))
		_exit(2);
	for (;;) {
		struct smt_fault f;
		if (smt_ring_reader_begin(&r, &f))
			_exit(3);
		uint32_t count;
		uint64_t bytes;
		if (smt_ring_reader_skip_noops(&r, UINT32_MAX, &count, &bytes, &f))
			_exit(3);
		smt_ring_reader_publish(&r);
		if (count == 0) {
			if (writer_done(s, r.tail))
				_exit(0);
			cpu_relax();
		}
	}
}

/* Writes NOOPs of `size` bytes for `secs`; returns commands per second
 * (every one consumed when the clock stops). */
enum raw_consumer {
	RAW_LINES,
	RAW_TOUCH,
	RAW_FRAME
};

static double raw_run(enum raw_consumer consumer, uint32_t size, double secs)
{
	struct raw_shared s = { .area = SMT_RING_AREA_DEFAULT };
	s.ring_mem = shared_zeroed(SMT_RING_HEADER_SIZE + s.area);
	s.status = shared_zeroed(SMT_STATUS_MAP_SIZE);
	s.global = shared_zeroed(SMT_STATUS_MAP_SIZE);
	s.control = shared_zeroed(sizeof(*s.control));
	smt_global_init(s.global);
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (consumer == RAW_LINES)
			consume_lines(&s);
		if (consumer == RAW_TOUCH)
			consume_touch(&s);
		consume_frame(&s);
	}
	struct smt_ring_writer w;
	smt_ring_writer_init(&w, (struct smt_ring_header *)s.ring_mem, s.status, s.global,
			s.ring_mem + SMT_RING_HEADER_SIZE, s.area);
	uint64_t start = monotonic_now_ns(), stop = start + (uint64_t)(secs * 1e9);
	uint64_t unpublished = 0;
	for (uint64_t round = 0;; round++) {
		if ((round & 63) == 0 && monotonic_now_ns() >= stop)
			break;
		uint64_t need;
		uint8_t *p = smt_ring_writer_reserve(&w, size, &need);
		if (p == NULL) {
			smt_ring_writer_publish(&w);
			unpublished = 0;
			while ((int64_t)(smt_ring_writer_tail(&w) - need) < 0)
				cpu_relax();
			continue;
		}
		uint32_t room = smt_ring_writer_room(&w, 256 * size), n = room / size;
		for (uint32_t k = 0; k < n; k++)
			smt_encode_noop(p + (size_t)k * size, SMT_OP_NOOP, size);
		smt_ring_writer_commit_many(&w, n * size, n);
		unpublished += n * size;
		if (unpublished >= s.area / 4) {
			smt_ring_writer_publish(&w);
			unpublished = 0;
		}
	}
	smt_ring_writer_publish(&w);
	while (smt_ring_writer_tail(&w) != w.head)
		cpu_relax();
	double elapsed = (double)(monotonic_now_ns() - start) / 1e9;
	atomic_store_explicit(&s.control->stop_at, w.head, memory_order_release);
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("raw consumer failed");
	uint64_t commands = w.commands;
	munmap(s.ring_mem, SMT_RING_HEADER_SIZE + s.area);
	munmap(s.status, SMT_STATUS_MAP_SIZE);
	munmap(s.global, SMT_STATUS_MAP_SIZE);
	munmap(s.control, sizeof(*s.control));
	return (double)commands / elapsed;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int raw_limit(double secs, int rounds, const char *csv)
{
	FILE *out = csv ? fopen(csv, "w") : NULL;
	if (csv && !out)
		die("cannot write the csv");
	if (out)
		fprintf(out, "consumer,bytes,commands_per_s\n");
	printf("# smt-perf --raw: NOOPs through a %u KiB ring between two processes, both"
	       " spinning (median of %d rounds of %.2f s)\n",
			SMT_RING_AREA_DEFAULT / 1024, rounds, secs);
	printf("%-8s %6s %14s %10s\n", "consumer", "bytes", "commands/s", "ns/cmd");
	static const uint32_t sizes[] = { 8, 16 };
	static const char *const names[] = { "lines", "touch", "frame" };
	for (int c = RAW_LINES; c <= RAW_FRAME; c++) {
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			double r[16];
			for (int k = 0; k < rounds; k++)
				r[k] = raw_run((enum raw_consumer)c, sizes[i], secs);
			qsort(r, (size_t)rounds, sizeof(r[0]), cmp_double);
			double med = r[rounds / 2];
			const char *name = names[c];
			printf("%-8s %6u %14.1f %10.2f\n", name, sizes[i], med, 1e9 / med);
			if (out)
				fprintf(out, "%s,%u,%.1f\n", name, sizes[i], med);
		}
	}
	if (out)
		fclose(out);
	return 0;
}

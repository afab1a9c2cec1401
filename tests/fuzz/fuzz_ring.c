/*
 * libFuzzer target: arbitrary bytes as a hostile client's ring contents or
 * socket submits, run through ring_reader + decoder + executor with a canvas,
 * an A8 canvas and a pool registered.
 *
 * pixman is not built with ASan, so an out-of-bounds write inside pixman
 * would go unseen; the canvases, the pool and the ring therefore live in
 * mmap'd memory that ends exactly at a PROT_NONE guard page, so running
 * off their end faults at once. (The executor also asserts every box it
 * hands pixman.)
 *
 * Input: byte 0 flags (bit 0: submit path; bits 1-2: area 4 KiB << n;
 * bit 3: toggle canvas 2 between chunks), byte 1 pixel budget (0: none,
 * else 1 << (b % 24) per run), then chunks of [u16 length][bytes]. In ring
 * mode each chunk is written at head (wrapping, with no regard for PAD or
 * free space — a hostile client) and head += length is published; in
 * submit mode each chunk is one submit of whole commands, written into a
 * socket ring's area (ring/submit_area.h) and run from there.
 *
 * Inputs without a pixel budget run twice, the second time one command
 * per call (a budget of one command never forms a run of FILL_RECTS,
 * executor.c): both must end with the same error (or none) and the same
 * canvas bytes, so a run stops and fails exactly where single commands do.
 */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compositor/exec/executor.h"
#include "tests/fuzz/guarded_memory.h"
#include "compositor/exec/ring_reader.h"
#include "protocol/smt-ring-client.h"
#include "compositor/ring/submit_area.h"

/* FUZZ_RING_VERBOSE=1 prints how each input ends (for triage and seeds). */
static void report(const struct smt_exec_result *res)
{
	static int verbose = -1;
	if (verbose < 0)
		verbose = getenv("FUZZ_RING_VERBOSE") != NULL;
	if (verbose)
		fprintf(stderr, "stop %d: %s\n", res->stop,
				res->stop == SMT_EXEC_ERROR ? res->error.message : "");
}

/* How an input ended: the error, and the canvases' bytes. */
struct outcome {
	struct smt_exec_error error;
	uint8_t canvas[67 * 45 * 4], alpha[32 * 17], xrgb[20 * 9 * 4];
};

/* calls: how many a chunk may take (a budget may stop every element). */
static void run_all(struct smt_exec_ctx *ctx, struct smt_ring_reader *ring,
		const struct smt_exec_budget *b, int calls, struct outcome *o)
{
	struct smt_exec_result res;
	for (int i = 0; i < calls; i++) {
		enum smt_exec_stop s = smt_exec_run(ctx, ring, b, &res);
		if (s == SMT_EXEC_ERROR)
			o->error = res.error;
		if (s == SMT_EXEC_EMPTY || s == SMT_EXEC_ERROR)
			break;
	}
	report(&res);
}

static void copy_bits(uint8_t *to, size_t len, pixman_image_t *img)
{
	size_t have = (size_t)pixman_image_get_stride(img) * (size_t)pixman_image_get_height(img);
	memcpy(to, pixman_image_get_data(img), have < len ? have : len);
}

static void run_input(const uint8_t *data, size_t size, uint8_t flags,
		const struct smt_exec_budget *budget, int calls, struct outcome *o)
{
	struct smt_exec_config cfg;
	smt_exec_config_defaults(&cfg);
	cfg.max_pixmap_bytes = 4u << 20; /* keep executions fast */
	cfg.max_drawable_id = 4096;
	struct smt_exec_ctx *ctx = smt_exec_create(&cfg);

	struct guarded gc, ga, gx, gp, gr;
	pixman_image_t *canvas = guarded_image(&gc, PIXMAN_a8r8g8b8, 67, 45, 0x33);
	pixman_image_t *alpha = guarded_image(&ga, PIXMAN_a8, 31, 17, 0x33);
	pixman_image_t *xrgb = guarded_image(&gx, PIXMAN_x8r8g8b8, 20, 9, 0x33);
	uint8_t *pool = guarded_alloc(&gp, 8192);
	for (int i = 0; i < 8192; i++)
		pool[i] = (uint8_t)(i * 7);
	smt_exec_register_canvas(ctx, 1, canvas);
	smt_exec_register_canvas(ctx, 2, alpha);
	smt_exec_register_canvas(ctx, 3, xrgb);
	smt_exec_register_pool(ctx, 1, pool, 8192);
	bool alpha_registered = true;

	uint32_t area = 4096u << ((flags >> 1) & 3);
	struct smt_ring_status *status = aligned_alloc(4096, SMT_STATUS_MAP_SIZE);
	memset(status, 0, SMT_STATUS_MAP_SIZE);
	uint8_t *mem = guarded_alloc(&gr, SMT_RING_HEADER_SIZE + area);
	memset(mem, 0, SMT_RING_HEADER_SIZE + area);
	struct smt_ring_header *hdr = (struct smt_ring_header *)mem;
	uint8_t *area_ptr = mem + SMT_RING_HEADER_SIZE;
	struct smt_ring_reader reader;
	bool submit = flags & 1;
	/* Submits: a socket ring's server-owned area (its own reader). */
	struct submit_area *socket = submit ? submit_area_create(&reader, NULL, NULL) : NULL;
	if (submit ? socket == NULL :
		     smt_ring_reader_init(
				     &reader, mem, SMT_RING_HEADER_SIZE + area, area, status) != 0)
		abort();

	uint64_t head = 0;
	while (size >= 2) {
		size_t len = (size_t)data[0] | (size_t)data[1] << 8;
		data += 2;
		size -= 2;
		if (len == 0xffff && (flags & 8)) {
			if (alpha_registered)
				smt_exec_unregister_canvas(ctx, 2);
			else
				smt_exec_register_canvas(ctx, 2, alpha);
			alpha_registered = !alpha_registered;
			continue;
		}
		if (len > size)
			len = size;
		if (submit) {
			struct smt_exec_result res;
			struct smt_fault fault;
			if (submit_area_write(socket, &reader, data, len, &fault) < 0) {
				smt_exec_fail(ctx, &reader, &fault, &res);
				o->error = res.error;
				report(&res);
				break;
			}
			run_all(ctx, &reader, budget, calls, o);
		} else {
			for (size_t i = 0; i < len; i++) /* hostile raw write */
				area_ptr[(head + i) & (area - 1)] = data[i];
			head += len;
			smt_ring_client_publish(hdr, &(struct smt_global_status){ 0 }, head);
			run_all(ctx, &reader, budget, calls, o);
		}
		data += len;
		size -= len;
	}

	copy_bits(o->canvas, sizeof(o->canvas), canvas);
	copy_bits(o->alpha, sizeof(o->alpha), alpha);
	copy_bits(o->xrgb, sizeof(o->xrgb), xrgb);
	if (submit)
		submit_area_destroy(socket, &reader);
	else
		smt_ring_reader_fini(&reader);
	smt_exec_destroy(ctx);
	pixman_image_unref(canvas);
	pixman_image_unref(alpha);
	pixman_image_unref(xrgb);
	guarded_free(&gc);
	guarded_free(&ga);
	guarded_free(&gx);
	guarded_free(&gp);
	guarded_free(&gr);
	free(status);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct outcome runs, single;
	if (size < 2)
		return 0;
	struct smt_exec_budget budget = { 0, data[1] ? 1ull << (data[1] % 24) : 0, 0, NULL };
	/* Without a budget only PRESENT stops a call before the chunk is
	 * done; one command per call takes one call per command (a chunk
	 * holds at most 64 KiB of 8-byte commands): both run to the end. */
	memset(&runs, 0, sizeof(runs));
	run_input(data + 2, size - 2, data[0], &budget, budget.max_pixels ? 64 : 1 << 14, &runs);
	if (budget.max_pixels)
		return 0;
	const struct smt_exec_budget one = { .max_commands = 1 };
	memset(&single, 0, sizeof(single));
	run_input(data + 2, size - 2, data[0], &one, 1 << 14, &single);
	if (runs.error.code != single.error.code || runs.error.offset != single.error.offset ||
			strcmp(runs.error.message, single.error.message) != 0 ||
			memcmp(runs.canvas, single.canvas, sizeof(runs.canvas)) != 0 ||
			memcmp(runs.alpha, single.alpha, sizeof(runs.alpha)) != 0 ||
			memcmp(runs.xrgb, single.xrgb, sizeof(runs.xrgb)) != 0) {
		fprintf(stderr, "runs and single commands differ: '%s' vs '%s'\n",
				runs.error.message, single.error.message);
		abort();
	}
	return 0;
}

/*
 * libFuzzer target: the socket-submit path as the Wayland glue drives it
 * (compositor/ring/ring.c, ring_handle_submit): arbitrary smt_ring_v1.submit
 * arrays go through submit_area_submit (ring/submit_area.h: the part of a
 * command not yet whole waits, at most SMT_SUBMIT_PARTIAL_MAX; whole
 * commands are written into the ring's server-owned area, at most
 * SMT_SUBMIT_QUEUE_MAX waiting, growing the area), and the scheduler runs
 * the ring's reader with a budget at points of its own choosing. Pools are
 * unregistered and re-registered smaller in between (pool destroy / shrink
 * while commands wait), canvases replaced (resize).
 *
 * Input: byte 0 pixel budget (0: none, else 1 << (b % 24)), and when odd a
 * 1 MiB memory limit on the area's charges; then records of
 * [u8 action][u16 length][length bytes]: action % 4 == 0 a submit of the
 * bytes, 1 a scheduler run, 2 pool 1 unregistered / re-registered with
 * 256 << (byte % 6) bytes, 3 canvas 1 replaced by a fresh one.
 *
 * After every submit the area's accounting is checked: what waits (PADs not
 * counted) never exceeds SMT_SUBMIT_QUEUE_MAX; at the end every byte it
 * charged is released.
 */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compositor/exec/executor.h"
#include "tests/fuzz/guarded_memory.h"
#include "protocol/smt-ring-client.h"
#include "compositor/ring/submit_area.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct smt_exec_budget budget = { 0, data[0] ? 1ull << (data[0] % 24) : 0, 0, NULL };
	data++;
	size--;

	struct smt_exec_config cfg;
	smt_exec_config_defaults(&cfg);
	cfg.max_pixmap_bytes = 4u << 20;
	cfg.max_drawable_id = 4096;
	struct smt_exec_ctx *ctx = smt_exec_create(&cfg);

	struct guarded gc = { 0 }, gc2 = { 0 }, gp = { 0 };
	pixman_image_t *canvas = guarded_image(&gc, PIXMAN_a8r8g8b8, 61, 37, 0x44);
	pixman_image_t *canvas2 = NULL;
	smt_exec_register_canvas(ctx, 1, canvas);
	size_t pool_size = 8192;
	uint8_t *pool = guarded_alloc(&gp, pool_size);
	memset(pool, 0x5a, pool_size);
	smt_exec_register_pool(ctx, 1, pool, pool_size);
	bool pool_registered = true;

	struct smt_ring_reader reader;
	/* Odd budget bytes: the area's memory is charged against a 1 MiB
	 * limit, so its growth is refused (LIMIT) on the way. */
	struct smt_usage usage = { .level = SMT_LEVEL_CLIENT };
	usage.max[SMT_RES_MEMORY] = data[-1] & 1 ? 1u << 20 : 0;
	struct smt_usage_refusal why;
	struct submit_area *socket = submit_area_create(&reader, &usage, &why);
	if (socket == NULL)
		abort();
	bool dead = false;
	struct smt_exec_result res;
	struct smt_fault fault;

	while (size >= 3 && !dead) {
		uint8_t action = data[0];
		size_t len = (size_t)data[1] | (size_t)data[2] << 8;
		data += 3;
		size -= 3;
		if (len > size)
			len = size;
		switch (action & 3) {
		case 0:
			switch (submit_area_submit(socket, &reader, data, len, &fault)) {
			case SUBMIT_OK:
				break;
			case SUBMIT_FAULT:
				if (smt_exec_fail(ctx, &reader, &fault, &res) != SMT_EXEC_ERROR)
					abort();
				dead = true;
				break;
			case SUBMIT_TOO_MUCH: /* the glue kills the ring (LIMIT) */
				dead = true;
				break;
			case SUBMIT_NO_MEMORY:
				abort();
			}
			if (submit_area_pending(socket, &reader) > SMT_SUBMIT_QUEUE_MAX)
				abort();
			break;
		case 1:
			for (int i = 0; i < 1 + (action >> 2); i++) {
				enum smt_exec_stop s = smt_exec_run(ctx, &reader, &budget, &res);
				if (s == SMT_EXEC_ERROR)
					dead = true;
				if (s == SMT_EXEC_EMPTY || s == SMT_EXEC_ERROR)
					break;
			}
			break;
		case 2:
			if (pool_registered) {
				smt_exec_unregister_pool(ctx, 1);
				guarded_free(&gp);
			} else {
				pool_size = (size_t)256 << (action >> 2) % 6;
				pool = guarded_alloc(&gp, pool_size);
				memset(pool, 0x3c, pool_size);
				smt_exec_register_pool(ctx, 1, pool, pool_size);
			}
			pool_registered = !pool_registered;
			break;
		case 3: {
			struct guarded g = { 0 };
			pixman_image_t *img = guarded_image(&g, PIXMAN_a8r8g8b8,
					1 + (action >> 2) % 97, 1 + len % 53, 0x44);
			smt_exec_replace_canvas(ctx, 1, img);
			if (canvas2 != NULL) {
				pixman_image_unref(canvas2);
				guarded_free(&gc2);
			}
			canvas2 = img;
			gc2 = g;
			break;
		}
		}
		data += (action & 3) == 0 ? len : 0;
		size -= (action & 3) == 0 ? len : 0;
	}
	/* drain what is left, as the compositor does before a destroy */
	for (int i = 0; i < 256 && !dead; i++) {
		enum smt_exec_stop s = smt_exec_run(ctx, &reader, &budget, &res);
		if (s == SMT_EXEC_EMPTY || s == SMT_EXEC_ERROR)
			break;
	}
	submit_area_destroy(socket, &reader);
	if (usage.used[SMT_RES_MEMORY] != 0)
		abort(); /* every byte charged is released */
	smt_exec_destroy(ctx);
	pixman_image_unref(canvas);
	if (canvas2 != NULL)
		pixman_image_unref(canvas2);
	guarded_free(&gc);
	guarded_free(&gc2);
	guarded_free(&gp);
	return 0;
}

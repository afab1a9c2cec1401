/*
 * smt-replay: executes a recorded command stream (smt-demo --dump) in-process
 * with the compositor's own executor on a canvas of the given size, and
 * writes what the screen would show (the canvas after its last PRESENT) as
 * a PPM. Integration tests compare it with a grim screenshot, pixel by pixel.
 *
 *   smt-replay DUMP CANVAS_ID WIDTH HEIGHT POOL_ID POOL_FILE OUT.ppm
 *   (POOL_ID 0 and POOL_FILE - when the stream uses no pool)
 */
#include <inttypes.h>
#include <pixman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compositor/exec/executor.h"
#include "compositor/ring/submit_area.h"

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		perror(path);
		exit(1);
	}
	size_t cap = 1 << 16, used = 0;
	unsigned char *data = malloc(cap);
	size_t n;
	while (data != NULL && (n = fread(data + used, 1, cap - used, f)) > 0) {
		used += n;
		if (used == cap) {
			unsigned char *grown = realloc(data, cap *= 2);
			if (grown == NULL) {
				free(data);
				data = NULL;
			}
			data = grown;
		}
	}
	fclose(f);
	if (data == NULL) {
		fputs("smt-replay: out of memory\n", stderr);
		exit(1);
	}
	*len = used;
	return data;
}

static uint32_t parse_u32(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v > 100000) {
		fprintf(stderr, "smt-replay: bad number '%s'\n", s);
		exit(2);
	}
	return (uint32_t)v;
}

int main(int argc, char *argv[])
{
	if (argc != 8) {
		fputs("usage: smt-replay DUMP CANVAS_ID WIDTH HEIGHT POOL_ID POOL_FILE OUT.ppm\n",
				stderr);
		return 2;
	}
	uint32_t canvas_id = parse_u32(argv[2]), width = parse_u32(argv[3]);
	uint32_t height = parse_u32(argv[4]), pool_id = parse_u32(argv[5]);
	size_t stream_len = 0, pool_len = 0;
	unsigned char *stream = read_file(argv[1], &stream_len);
	unsigned char *pool = pool_id != 0 ? read_file(argv[6], &pool_len) : NULL;

	struct smt_exec_ctx *ctx = smt_exec_create(NULL);
	pixman_image_t *back = pixman_image_create_bits(
			PIXMAN_a8r8g8b8, (int)width, (int)height, NULL, 0);
	pixman_image_t *front = pixman_image_create_bits(
			PIXMAN_a8r8g8b8, (int)width, (int)height, NULL, 0);
	if (ctx == NULL || back == NULL || front == NULL ||
			smt_exec_register_canvas(ctx, canvas_id, back) != 0 ||
			(pool != NULL &&
					smt_exec_register_pool(ctx, pool_id, pool, pool_len) !=
							0)) {
		fputs("smt-replay: cannot set up the executor\n", stderr);
		return 1;
	}
	/* The stream is written into a socket ring's area, as the compositor
	 * writes submits (whole commands, at most SMT_SUBMIT_QUEUE_MAX bytes);
	 * PRESENT copies damage to the front. */
	struct smt_ring_reader reader;
	struct submit_area *area = submit_area_create(&reader, NULL, NULL);
	if (area == NULL) {
		fputs("smt-replay: out of memory\n", stderr);
		return 1;
	}
	struct smt_exec_result out;
	struct smt_fault fault;
	enum smt_exec_stop stop = submit_area_write(area, &reader, stream, stream_len, &fault) < 0 ?
			smt_exec_fail(ctx, &reader, &fault, &out) :
			smt_exec_run(ctx, &reader, NULL, &out);
	for (;;) {
		if (stop == SMT_EXEC_ERROR) {
			fprintf(stderr, "smt-replay: %s\n", out.error.message);
			return 1;
		}
		if (stop == SMT_EXEC_PRESENT && out.present.canvas_id == canvas_id) {
			int n = 0;
			const pixman_box32_t *r = pixman_region32_rectangles(
					(pixman_region32_t *)out.present.damage, &n);
			for (int i = 0; i < n; i++) {
				pixman_image_composite32(PIXMAN_OP_SRC, back, NULL, front, r[i].x1,
						r[i].y1, 0, 0, r[i].x1, r[i].y1, r[i].x2 - r[i].x1,
						r[i].y2 - r[i].y1);
			}
		}
		if (stop == SMT_EXEC_EMPTY) {
			break;
		}
		stop = smt_exec_run(ctx, &reader, NULL, &out);
	}
	FILE *f = fopen(argv[7], "wb");
	if (f == NULL) {
		perror(argv[7]);
		return 1;
	}
	fprintf(f, "P6\n%u %u\n255\n", width, height);
	const uint32_t *px = pixman_image_get_data(front);
	int stride = pixman_image_get_stride(front) / 4;
	for (uint32_t y = 0; y < height; y++) {
		for (uint32_t x = 0; x < width; x++) {
			uint32_t p = px[(size_t)y * (size_t)stride + x];
			unsigned char rgb[3] = { (unsigned char)(p >> 16), (unsigned char)(p >> 8),
				(unsigned char)p };
			fwrite(rgb, 1, 3, f);
		}
	}
	fclose(f);
	pixman_image_unref(back);
	pixman_image_unref(front);
	submit_area_destroy(area, &reader);
	smt_exec_destroy(ctx);
	free(stream);
	free(pool);
	return 0;
}

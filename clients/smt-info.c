/*
 * smt-info — create a ring, run a small workload and show the ring's
 * status and counters.
 *
 *   smt-info [--transport ring|socket] [--count N] [--area BYTES] [--json]
 *
 * The workload (no window needed: it draws into a pixmap) is N commands,
 * alternately NOOP and FILL_RECTS, with a FENCE every 1000 and a final
 * wait, so every counter has moved when they are printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clients/libsmt/smt.h"

static int usage(void)
{
	fprintf(stderr,
			"usage: smt-info [--transport ring|socket] [--count N] [--area BYTES] "
			"[--json]\n");
	return 2;
}

struct row {
	const char *key;
	unsigned long long value;
	const char *what;
};

int main(int argc, char **argv)
{
	struct smt_options opts = { 0 };
	unsigned long count = 10000;
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--transport") && i + 1 < argc) {
			if (!smt_transport_from_name(argv[++i], &opts.transport))
				return usage();
		} else if (!strcmp(argv[i], "--count") && i + 1 < argc)
			count = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--area") && i + 1 < argc)
			opts.area_size = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--json"))
			json = true;
		else
			return usage();
	}
	struct smt_ctx *ctx = smt_connect(&opts);
	if (!ctx)
		return 1;

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint32_t pix = smt_create_pixmap(ctx, 256, 256, SMT_FORMAT_XRGB8888);
	int r = pix ? smt_set_target(ctx, pix) : -1;
	for (unsigned long i = 0; !r && i < count; i++) {
		if (i % 2)
			r = smt_fill_rect(ctx, SMT_PAINT_SRC,
					0xff000000u | (uint32_t)i * 2654435761u, (int32_t)(i % 200),
					(int32_t)(i % 190), 56, 66);
		else
			r = smt_noop(ctx, 8);
		if (!r && i % 1000 == 999)
			r = smt_fence(ctx) ? 0 : -1;
	}
	if (!r)
		r = smt_free_pixmap(ctx, pix);
	if (!r)
		r = smt_sync(ctx);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

	struct smt_stats s;
	smt_get_stats(ctx, &s);
	const struct row rows[] = {
		{ "area_size", s.area_size, "command area bytes (0: socket)" },
		{ "head", s.head, "bytes written" },
		{ "published", s.published, "bytes made visible (ring) / sent (socket)" },
		{ "tail", s.tail, "bytes consumed (socket: up to the last fence)" },
		{ "last_fence", s.last_fence, "last FENCE serial written" },
		{ "completed_fence", s.completed_fence, "last FENCE serial executed" },
		{ "commands_written", s.commands_written, "commands written (PADs excepted)" },
		{ "pads_written", s.pads_written, "PADs at the wrap" },
		{ "commands_executed", s.commands_executed, "status page" },
		{ "bytes_executed", s.bytes_executed, "status page" },
		{ "wakeups_client_to_server", s.wakeups_sent, "server eventfd writes" },
		{ "wakeups_from_client_seen", s.wakeups_from_client,
				"server eventfd reads (status)" },
		{ "wakeups_server_to_client", s.wakeups_to_client,
				"client eventfd writes (status)" },
		{ "full_waits", s.full_waits, "times the ring was full" },
		{ "client_sleeps", s.sleeps, "times the client blocked in poll" },
		{ "submits", s.submits, "socket submit messages" },
		{ "submit_bytes", s.submit_bytes, "bytes in submit messages" },
		{ "server_asleep", s.server_asleep, "global page, now" },
		{ "generation", s.generation, "times the server went to sleep" },
		{ "dead", s.dead, "ring killed by the compositor" },
	};
	const char *transport = smt_transport_name(s.transport);
	size_t n = sizeof(rows) / sizeof(*rows);
	if (json) {
		printf("{\"transport\": \"%s\", \"workload_commands\": %lu, \"seconds\": %.6f",
				transport, count, secs);
		for (size_t i = 0; i < n; i++)
			printf(", \"%s\": %llu", rows[i].key, rows[i].value);
		printf(", \"error\": \"%s\"}\n", r ? "workload failed" : "");
	} else {
		printf("transport %s, %lu commands in %.3f s (%.0f commands/s)\n\n", transport,
				count, secs, (double)count / secs);
		for (size_t i = 0; i < n; i++)
			printf("  %-26s %14llu  %s\n", rows[i].key, rows[i].value, rows[i].what);
		if (s.dead)
			printf("\n  error code %u, opcode %u, offset %llu\n", s.error_code,
					s.error_opcode, (unsigned long long)s.error_offset);
	}
	if (r)
		fprintf(stderr, "smt-info: %s\n", smt_error_message(ctx));
	smt_disconnect(ctx);
	return r ? 1 : 0;
}

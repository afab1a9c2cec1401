/*
 * libFuzzer target: one ring connection's reads as stream_fds.c makes them
 * (xwayland-glue/stream), over every interleaving of ring bytes, fd
 * messages, REVERTs, lying counts, epoll reports and reads a script can
 * make. The model and its checks are tests/fuzz/x11fds_model.h; the first
 * byte chooses an honest client (order, positions and bytes checked too)
 * or a hostile one (safety, fd accounting and readiness checked).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/fuzz/x11fds_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *failure = model_run(data + 1, size - 1, data[0] & 1);
	if (failure) {
		fprintf(stderr, "x11fds: %s\n", failure);
		abort();
	}
	return 0;
}

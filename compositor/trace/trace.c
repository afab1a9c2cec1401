/* The event trace (trace.h). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include "compositor/trace/trace.h"
#include "common/monotonic_clock.h"

/* 2^20 events of 32 bytes (32 MiB, only when asked for): a bench round
 * of 12 flooders with one worker records ~7K events per second. Events
 * past the end are counted, not kept. */
#define TRACE_CAPACITY (1u << 20)

struct trace_entry {
	uint64_t t;
	uint64_t arg;
	/* The thread's CPU time: between two events of a thread, wall time
	 * minus CPU time is time it did not run (waiting for a CPU, or
	 * blocked). */
	uint64_t cpu;
	int32_t pid;
	uint16_t tid_low; /* which thread: low bits of its tid */
	uint16_t event;
};

bool trace_enabled;
static struct trace_entry *entries;
static atomic_uint_fast64_t next;
static char *path;

static const char *const names[TRACE_EVENT_COUNT] = {
	[TRACE_READY] = "ready",
	[TRACE_REPORTED] = "reported",
	[TRACE_INPUT] = "input",
	[TRACE_YIELD_RAISED] = "yield_raised",
	[TRACE_PICK] = "pick",
	[TRACE_PIECE_END] = "piece_end",
	[TRACE_RUN_END] = "run_end",
	[TRACE_WAKE_MAIN] = "wake_main",
	[TRACE_MAIN_SLEEP] = "main_sleep",
	[TRACE_MAIN_WOKE] = "main_woke",
	[TRACE_SETTLE_BEGIN] = "settle_begin",
	[TRACE_SETTLE_END] = "settle_end",
	[TRACE_PRESENT_EXEC] = "present_exec",
	[TRACE_RENDER_BEGIN] = "render_begin",
	[TRACE_RENDER_END] = "render_end",
};

void trace_record(enum trace_event event, int32_t pid, uint64_t arg)
{
	uint64_t i = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
	if (i >= TRACE_CAPACITY) {
		return;
	}
	static _Thread_local uint16_t tid;
	if (tid == 0) {
		tid = (uint16_t)(gettid() | 1);
	}
	entries[i] = (struct trace_entry){ .t = monotonic_now_ns(),
		.arg = arg,
		.cpu = thread_cpu_now_ns(),
		.pid = pid,
		.tid_low = tid,
		.event = (uint16_t)event };
}

void trace_init(void)
{
	const char *p = getenv("SMTWC_TRACE");
	if (p == NULL || p[0] == '\0') {
		return;
	}
	entries = calloc(TRACE_CAPACITY, sizeof(*entries));
	path = realpath(p, NULL);
	if (path == NULL) {
		path = strdup(p);
	}
	if (entries == NULL || path == NULL) {
		wlr_log(WLR_ERROR, "SMTWC_TRACE: no memory for the trace");
		free(entries);
		free(path);
		entries = NULL;
		path = NULL;
		return;
	}
	trace_enabled = true;
	wlr_log(WLR_INFO, "tracing events to %s at exit", path);
}

void trace_finish(void)
{
	if (!trace_enabled) {
		return;
	}
	trace_enabled = false;
	uint64_t n = atomic_load(&next);
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		wlr_log_errno(WLR_ERROR, "SMTWC_TRACE: %s", path);
	} else {
		/* t_ns tid event pid arg cpu_ns; the main thread's tid is our
		 * pid */
		fprintf(f, "# smtwc trace: main tid %u, %llu events, %llu dropped\n",
				(unsigned)(uint16_t)(getpid() | 1),
				(unsigned long long)(n < TRACE_CAPACITY ? n : TRACE_CAPACITY),
				(unsigned long long)(n > TRACE_CAPACITY ? n - TRACE_CAPACITY : 0));
		for (uint64_t i = 0; i < n && i < TRACE_CAPACITY; i++) {
			const struct trace_entry *e = &entries[i];
			fprintf(f, "%llu %u %s %d %llu %llu\n", (unsigned long long)e->t,
					(unsigned)e->tid_low, names[e->event], e->pid,
					(unsigned long long)e->arg, (unsigned long long)e->cpu);
		}
		fclose(f);
	}
	free(entries);
	free(path);
	entries = NULL;
	path = NULL;
}

/*
 * An event trace for latency questions that counters cannot answer (which
 * frame waited for what, in what order, on which thread): off unless the
 * environment names a file, SMTWC_TRACE=FILE, and then a fixed in-memory
 * array filled with one atomic add per event and written out as text at
 * exit (trace_finish). Off, an event costs one predictable branch; no log
 * line is written per command either way. tests/bench/workers/trace.py
 * reads the file beside the clients' CSVs (docs/benchmarks.md, "Ring
 * worker threads").
 */
#ifndef SMTWC_TRACE_H
#define SMTWC_TRACE_H

#include <stdbool.h>
#include <stdint.h>

/* Each event names a client by its process id (a ring's pid) where it has
 * one; `arg` is the event's own (see trace.c's names). */
enum trace_event {
	TRACE_READY,        /* main thread saw a ring become ready */
	TRACE_REPORTED,     /* a worker reported an idle ring's publish */
	TRACE_INPUT,        /* input sent to the client (the boost) */
	TRACE_YIELD_RAISED, /* a runner asked to end its piece: arg = waiter's pid */
	TRACE_PICK,         /* a worker picked it: arg = slice us | lone << 32 */
	TRACE_PIECE_END,    /* a piece ended: arg = 1 if a raised yield was seen */
	TRACE_RUN_END,      /* arg = handed | still << 1 | pause << 2 */
	TRACE_WAKE_MAIN,    /* a worker wrote the main thread's eventfd: arg = why */
	TRACE_MAIN_SLEEP,   /* the main thread blocks in its event loop */
	TRACE_MAIN_WOKE,    /* ... and returned from it */
	TRACE_SETTLE_BEGIN, /* the main thread settles a handed run */
	TRACE_SETTLE_END,   /* arg = done */
	TRACE_PRESENT_EXEC, /* a PRESENT's execution time stamped: arg = serial */
	TRACE_RENDER_BEGIN, /* an output frame's render */
	TRACE_RENDER_END,
	TRACE_EVENT_COUNT,
};

/* Why a worker woke the main thread (TRACE_WAKE_MAIN's arg). */
enum trace_wake_reason {
	TRACE_WAKE_HANDOFF,  /* a run handed something over */
	TRACE_WAKE_RUN_END,  /* a run left its ring idle while the main thread slept */
	TRACE_WAKE_REPORTED, /* a worker reported a light client's publish (since
			      * session 31 not a flooder's) */
	TRACE_WAKE_POSTED,   /* a worker copied a PRESENT and posted it (session 32) */
};

extern bool trace_enabled;

void trace_record(enum trace_event event, int32_t pid, uint64_t arg);

static inline void trace_event(enum trace_event event, int32_t pid, uint64_t arg)
{
	if (__builtin_expect(trace_enabled, 0)) {
		trace_record(event, pid, arg);
	}
}

/* From the environment, once, before any thread starts. */
void trace_init(void);
/* Writes the file (after every thread stopped) and frees the array. */
void trace_finish(void);

#endif

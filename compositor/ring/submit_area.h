/*
 * submit_area — where a socket ring's commands go: a ring area the
 * compositor allocates for the ring and never shares, written by the same
 * writer libsmt uses for a shared ring (clients/libsmt/ring-writer.h) and
 * read by the ring's one reader, as a shared ring is. So a ring has one
 * command stream whatever carries it, and ordered requests, limits and
 * framing are those of every ring. Pure: no Wayland, no wlroots (the
 * fuzzer fuzz_submit links it alone).
 *
 * The bytes of smt_ring_v1.submit requests arrive in pieces of ~4 KiB; a
 * command may span several. The part of a command not yet complete waits
 * in a private buffer, and only whole commands are written and published
 * (a command counts as published when its last byte has arrived,
 * docs/protocol.md). The area starts at SMT_RING_AREA_MIN and doubles
 * when a write does not fit, up to twice SMT_SUBMIT_QUEUE_MAX, which
 * always holds what the bound below lets wait (a PAD is always smaller
 * than the command after it); it never shrinks, as the queue it replaced.
 */
#ifndef SMTWC_SUBMIT_AREA_H
#define SMTWC_SUBMIT_AREA_H

#include <stddef.h>
#include <stdint.h>

#include "compositor/exec/resource_usage.h"
#include "compositor/exec/ring_reader.h"

/* Command bytes written and not yet run: a submit beyond this is
 * SMT_ERROR_LIMIT ("submit queue full"); the PADs the writer adds do not
 * count. The client must FENCE and wait now and then (libsmt keeps 768 KiB
 * in flight at most). */
#define SMT_SUBMIT_QUEUE_MAX (1u << 20)
/* Bytes of an incomplete command: a submit that would make more wait
 * here ends the ring (submit_area_submit: SUBMIT_TOO_MUCH). */
#define SMT_SUBMIT_PARTIAL_MAX (SMT_SUBMIT_QUEUE_MAX + SMT_CMD_CONTROL_MAX)

struct submit_area;

/* A fresh area, r initialised to read it (its status is private to the
 * area: a socket ring's client-visible page holds only counters) and to
 * show its faults' offsets as the client counts them
 * (submit_area_client_offset). Its
 * memory, the area with its header page and the buffer of an incomplete
 * command (8 KiB at first, at most ~3.1 MiB), is charged to usage
 * (SMT_RES_MEMORY; NULL: to nobody) before it is allocated; a growth the
 * limits refuse is a LIMIT fault naming the limit. NULL without memory,
 * or (why->asked set) when the first 8 KiB are refused. */
struct submit_area *submit_area_create(
		struct smt_ring_reader *r, struct smt_usage *usage, struct smt_usage_refusal *why);
/* Finishes r too. */
void submit_area_destroy(struct submit_area *a, struct smt_ring_reader *r);

enum submit_result {
	SUBMIT_OK = 0,
	SUBMIT_FAULT,    /* *f: bad framing, the queue's bound or a memory
			    * limit (LIMIT) */
	SUBMIT_TOO_MUCH, /* more than SMT_SUBMIT_PARTIAL_MAX incomplete */
	SUBMIT_NO_MEMORY,
};
/* One smt_ring_v1.submit: appends bytes to the incomplete command, if
 * any, and writes and publishes every command now whole. A header whose
 * size no command can have (0, not a multiple of 8: BAD_SIZE; above
 * SMT_SUBMIT_QUEUE_MAX: TOO_LARGE) is a fault at once. Nothing is
 * published on a fault (the ring dies with it: nothing may be written
 * after). */
enum submit_result submit_area_submit(struct submit_area *a, struct smt_ring_reader *r,
		const void *bytes, size_t len, struct smt_fault *f);
/* Writes and publishes bytes holding whole commands only (framed by the
 * same walk as submit_area_submit: a command that spans the end is
 * TRUNCATED). 0, or -1 with *f. */
int submit_area_write(struct submit_area *a, struct smt_ring_reader *r, const void *bytes,
		size_t len, struct smt_fault *f);
/* Command bytes written and not yet run (PADs not counted). */
size_t submit_area_pending(const struct submit_area *a, const struct smt_ring_reader *r);
/* The PADs the writer added that the reader has passed since the last
 * call: the ring's counters count only the client's commands. */
void submit_area_pads_passed(struct submit_area *a, const struct smt_ring_reader *r,
		uint64_t *count, uint64_t *bytes);
/* A stream position of the area (a reader's fault) as the client counts
 * it: the bytes it submitted before, without the PADs the writer added. */
uint64_t submit_area_client_offset(const struct submit_area *a, uint64_t pos);

#endif

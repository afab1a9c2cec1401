/*
 * ring_reader — the consumer side of a command stream (no pixman, no wlroots).
 *
 * One source: a ring (header page + power-of-two area). A shared ring is
 * the client's memory, mapped read-only; a socket ring's is the
 * compositor's own, written from smt_ring_v1.submit requests
 * (compositor/ring/submit_area.h), and read the same way. The reader keeps
 * its position privately and only publishes it to a server-owned
 * smt_ring_status.
 *
 * Every command is framed from a private copy of its header; its control
 * bytes (everything but NOOP/PAD payloads and PUT_IMAGE pixels) are copied
 * into a private scratch buffer before anything looks at them, so a racing
 * client cannot change what was validated (Xen XSA-155). The shared pages'
 * rules (head, tail, wake-up, death certificate) are smt-ring-server.h's.
 */
#ifndef SMT_RING_READER_H
#define SMT_RING_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/smt-ring-server.h"

struct smt_cmd {
	uint16_t opcode;
	uint32_t size;      /* validated total size */
	uint64_t offset;    /* stream position of the first byte */
	const uint8_t *ctl; /* private copy: header + control payload */
	uint32_t ctl_len;
	const uint8_t *data; /* the command in source memory (pixels only) */
};

struct smt_fault {
	uint32_t code;    /* enum smt_error */
	uint16_t opcode;  /* raw opcode from the header (0xffff: none) */
	uint64_t offset;  /* stream position */
	const char *what; /* static string */
	uint32_t index;   /* array element, or UINT32_MAX */
};

/* Where the executor stopped inside the pending command: the next array
 * element, and inside that element (or inside a single-element command)
 * the rows already drawn, so one huge element can end a slice too. */
struct smt_resume {
	uint32_t element;
	uint32_t row;
};

struct smt_ring_reader {
	const uint8_t *area; /* command area */
	uint64_t area_size;  /* power of two */
	/* The client's header page, our status page, the tail published
	 * and the wake-ups sent (the protocol's server half). */
	struct smt_server_ring shared;

	uint64_t tail; /* next byte to execute (stream position) */
	/* Commands at or beyond this stream position wait (UINT64_MAX: none):
	 * a Wayland request that changes a pool or canvas takes effect
	 * exactly between the commands published before it and after it. */
	uint64_t limit;
	uint64_t head; /* batch snapshot: end of readable bytes */

	bool pending; /* cmd copied + framed, not yet consumed */
	struct smt_cmd cmd;
	struct smt_resume resume; /* executor's cursor inside cmd */

	uint8_t *scratch;
	uint32_t scratch_cap;

	uint64_t commands, bytes, wakeups_to_client, wakeups_from_client;

	/* A fault's stream position as the client counts it (NULL: as is).
	 * A socket ring's area holds PADs its client never wrote, so the
	 * glue that writes the area gives the translation
	 * (smt_ring_reader_show_offsets); the executor applies it before it
	 * formats the error. */
	uint64_t (*client_offset)(const void *data, uint64_t pos);
	const void *client_offset_data;

	/* The death certificate held for smt_ring_reader_publish_end (a
	 * glue that posts its protocol error first: docs/protocol.md, "What a
	 * client sees first"). */
	bool end_deferred, end_held;
	struct smt_fault end;
};

/* ring_mem: the whole ring (header + area); a client's mapping already
 * checked by the caller to be sealed and at least ring_mem_size long.
 * status: a zeroed server page. Returns 0, or -1 (bad sizes / no memory). */
int smt_ring_reader_init(struct smt_ring_reader *r, const void *ring_mem, size_t ring_mem_size,
		uint32_t area_size, struct smt_ring_status *status);
/* A server-owned ring moved to new memory (a socket ring's area grew):
 * the same stream positions, the waiting bytes copied to where the new
 * size's mask puts them. Never for a client's ring. */
void smt_ring_reader_move_area(struct smt_ring_reader *r, const void *ring_mem, uint32_t area_size);
void smt_ring_reader_fini(struct smt_ring_reader *r);
/* Faults' positions are shown to the client through fn(data, pos) from now
 * on. fn runs where the ring runs, with the same exclusion as the glue's
 * writes to the area it translates for. */
void smt_ring_reader_show_offsets(struct smt_ring_reader *r,
		uint64_t (*fn)(const void *data, uint64_t pos), const void *data);
/* A stream position of this ring as its client counts it. */
uint64_t smt_ring_reader_client_offset(const struct smt_ring_reader *r, uint64_t pos);

/* Start a batch: reads head exactly once (acquire) and validates it. */
int smt_ring_reader_begin(struct smt_ring_reader *r, struct smt_fault *f);
/* The current command: 1 = *cmd set, 0 = nothing available, -1 = fault.
 * Returns the same private copy until consumed (no re-fetch on resume). */
int smt_ring_reader_peek(
		struct smt_ring_reader *r, const struct smt_cmd **cmd, struct smt_fault *f);
void smt_ring_reader_consume(struct smt_ring_reader *r);
/* Consume up to max consecutive NOOP/PAD commands in one pass, each header
 * read once and framed exactly as peek frames it; stops at the first other
 * opcode (left for peek). *count and *bytes: what was consumed. Returns
 * 0, or -1 with *f for a bad header (the run before it is consumed). */
int smt_ring_reader_skip_noops(struct smt_ring_reader *r, uint32_t max, uint32_t *count,
		uint64_t *bytes, struct smt_fault *f);

/*
 * A run: consecutive small commands of one opcode, framed in one pass,
 * each header read once and checked exactly as peek checks it, their
 * bytes copied back to back into the private scratch (ctl_len == size:
 * SMT_COPY_WHOLE opcodes only). Nothing is consumed: the executor runs
 * them from the copy, then consumes what it ran (consume_run), or makes
 * the one it stopped inside the pending command (hold).
 */
#define SMT_RUN_CMD_MAX 128u /* larger commands are framed by peek */
#define SMT_RUN_MAX 256u     /* commands per run */
struct smt_cmd_run {
	const uint8_t *ctl; /* the copies, back to back */
	uint64_t offset;    /* stream position of the first */
	uint32_t count;
	/* The header after the run failed its framing (*f set): it is the
	 * fault, once the run before it has run. */
	bool bad;
};
/* Frame at most max commands of `opcode`, not starting one at or beyond
 * max_bytes past the tail; stops before any other opcode or a command
 * larger than SMT_RUN_CMD_MAX (left for peek). An empty run (count 0)
 * when a command is pending or without memory (peek reports it). */
void smt_ring_reader_frame_run(struct smt_ring_reader *r, uint16_t opcode, uint32_t max,
		uint64_t max_bytes, struct smt_cmd_run *run, struct smt_fault *f);
/* Consume the first count commands (bytes) of the run framed last. */
void smt_ring_reader_consume_run(struct smt_ring_reader *r, uint32_t count, uint64_t bytes);
/* The run's next unconsumed command, cmd (its copy in the run), stopped
 * inside at `resume`: it is now pending, as if peek had returned it. */
void smt_ring_reader_hold(
		struct smt_ring_reader *r, const struct smt_cmd *cmd, struct smt_resume resume);

/* Stop before stream position `limit` (UINT64_MAX: no limit). */
void smt_ring_reader_set_limit(struct smt_ring_reader *r, uint64_t limit);
/* The position a limit should hold for "everything published so far":
 * head read once (a value that cannot be a valid head gives the current
 * tail: the ring fails on it at its next batch anyway). */
uint64_t smt_ring_reader_published(const struct smt_ring_reader *r);

/* Publish tail + counters; returns true if the client waits
 * for a tail we have now reached and its eventfd must be written. */
bool smt_ring_reader_publish(struct smt_ring_reader *r);
/* Re-check used around the server-asleep flag: unconsumed bytes? */
bool smt_ring_reader_has_work(const struct smt_ring_reader *r);
void smt_ring_reader_complete_fence(struct smt_ring_reader *r, uint64_t serial);
/* The DEAD mark with the fault on the status page, or held until
 * smt_ring_reader_publish_end after smt_ring_reader_defer_end. */
void smt_ring_reader_set_dead(struct smt_ring_reader *r, const struct smt_fault *f);
void smt_ring_reader_defer_end(struct smt_ring_reader *r);
/* Publishes the held DEAD mark, if any. */
void smt_ring_reader_publish_end(struct smt_ring_reader *r);
void smt_ring_reader_count_wakeups(
		struct smt_ring_reader *r, uint64_t to_client, uint64_t from_client);

/* The global page and the error and opcode names are the protocol's
 * server half: smt-ring-server.h. */

#endif

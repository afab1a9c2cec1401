/*
 * executor — runs one client's ring commands with pixman. Pure: no wlroots,
 * no Wayland, no syscalls but clock_gettime.
 *
 * Per client: a drawable table (pixmaps it owns, canvases the glue
 * registers), a pool table (mappings the glue registers), the current
 * target and clip. Work is bounded by a budget of time and pixels, not
 * commands: long array commands (FILL_RECTS, POINTS, SEGMENTS, GLYPHS) are
 * resumable between elements, so one command cannot monopolise the
 * compositor, and they resume from the private copy without re-reading
 * shared memory.
 *
 * PRESENT stops a run: the glue must copy the reported damage from the
 * canvas to what is on screen BEFORE running further commands, which may
 * already draw the next frame into the canvas. That is how a half-drawn
 * frame never reaches the screen.
 *
 * An error is final: the context stays dead and every later call reports
 * the same error; the glue sends the protocol error and disconnects.
 */
#ifndef SMT_EXECUTOR_H
#define SMT_EXECUTOR_H

#include <pixman.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compositor/exec/resource_usage.h"
#include "compositor/exec/ring_reader.h"

struct smt_exec_ctx;

struct smt_exec_config {
	uint64_t max_pixmap_bytes; /* default 64 MiB (pixels + overhead) */
	uint32_t max_pixmaps;      /* default 100000 */
	uint32_t max_drawable_id;  /* ids 1..n-1; default 1 << 18 */
	uint32_t max_pool_id;      /* default 1024 */
	/* Pixmap memory is also charged here: the client's and the
	 * compositor's limits (resource_usage.h). NULL: none. */
	struct smt_usage *usage;
};

/* A run stops once the deadline passes or max_pixels/max_commands is
 * reached, checked between elements (the clock every 64 elements or 256K
 * pixels). A deadline already past at the start runs nothing; any other
 * budget runs at least one element, so runs always make progress. */
struct smt_exec_budget {
	uint64_t deadline_ns;  /* CLOCK_MONOTONIC; 0 = no time limit */
	uint64_t max_pixels;   /* 0 = unlimited */
	uint32_t max_commands; /* 0 = unlimited (fifo mode uses 10) */
	/* Another thread may raise it to end the run early, as if the
	 * deadline had passed; looked at where the clock is (a worker's
	 * piece ended for a more favoured client, ring_workers.c). NULL:
	 * none. Only with a deadline. */
	const atomic_bool *yield;
};

/* The budget's time is spent: it has a deadline and that passed, or
 * another thread raised yield (the executor's clock checks and a worker's
 * run between PRESENTs, ring.c, ask the same). */
static inline bool smt_exec_budget_time_spent(const struct smt_exec_budget *b, uint64_t now_ns)
{
	return b->deadline_ns != 0 &&
			(now_ns >= b->deadline_ns ||
					(b->yield != NULL &&
							atomic_load_explicit(b->yield,
									memory_order_relaxed)));
}

enum smt_exec_stop {
	SMT_EXEC_EMPTY = 0,   /* no more complete commands */
	SMT_EXEC_BUDGET = 1,  /* budget used up; call again later */
	SMT_EXEC_PRESENT = 2, /* out->present is valid; act, call again */
	SMT_EXEC_ERROR = 3,   /* out->error is valid; the client is dead */
};

struct smt_exec_error {
	uint32_t code;   /* enum smt_error */
	uint16_t opcode; /* raw opcode; 0xffff if none */
	uint64_t offset; /* stream position of the command */
	char message[192];
};

struct smt_exec_result {
	enum smt_exec_stop stop;
	uint64_t commands, bytes, pixels;
	uint32_t fences; /* FENCEs executed in this call */
	uint64_t last_fence;
	bool wake_client; /* write the client's eventfd */
	struct {
		uint32_t canvas_id, serial;
		/* clipped to the canvas; owned by the context (until
		 * smt_exec_take_damage), valid until
		 * the next run call */
		const pixman_region32_t *damage;
	} present;
	struct smt_exec_error error;
};

void smt_exec_config_defaults(struct smt_exec_config *cfg);
struct smt_exec_ctx *smt_exec_create(const struct smt_exec_config *cfg); /* NULL cfg: defaults */
void smt_exec_destroy(struct smt_exec_ctx *ctx);

/* Glue side. Canvas images must be a8r8g8b8, x8r8g8b8 or a8 bits images
 * no larger than SMT_MAX_DIMENSION; the executor keeps a reference.
 * Return 0, or an enum smt_error (ID_IN_USE, BAD_DRAWABLE, ...). Unregister
 * a canvas the client destroyed only once the commands it queued earlier
 * have run (the reader's limit stops the stream there), so they find it. */
uint32_t smt_exec_register_canvas(struct smt_exec_ctx *ctx, uint32_t id, pixman_image_t *image);
uint32_t smt_exec_unregister_canvas(struct smt_exec_ctx *ctx, uint32_t id);
/* Canvas resize: the id now names `image`. If it is the current target it
 * stays the target, with its clip reset to the new bounds (unregister +
 * register would leave the client without a target). */
uint32_t smt_exec_replace_canvas(struct smt_exec_ctx *ctx, uint32_t id, pixman_image_t *image);
/* Teardown in pieces, for a context whose client is gone: frees pixmaps
 * (and drops canvas entries) until about max_bytes are freed or the clock
 * passed deadline_ns (0: none), at least one; true once none is left. Freeing a client's 256 MiB
 * of small pixmaps at once took tens of ms. smt_exec_destroy still frees
 * whatever is left. */
bool smt_exec_free_pixmaps(struct smt_exec_ctx *ctx, uint64_t max_bytes, uint64_t deadline_ns);
/* base/size: memory that is no file's (tests, in-process benchmarks); 0 or -1. */
int smt_exec_register_pool(struct smt_exec_ctx *ctx, uint32_t id, const void *base, uint64_t size);
/* base/size: the glue's mapping of the memfd fd, which stays open while
 * the pool is registered and must be sealed against writes: a range with
 * pages not in the file is read with pread (pool_view.h). 0 or -1 (also
 * for an fd without the seal). */
int smt_exec_register_pool_file(
		struct smt_exec_ctx *ctx, uint32_t id, const void *base, uint64_t size, int fd);
int smt_exec_unregister_pool(struct smt_exec_ctx *ctx, uint32_t id);
/* The executor's image for a drawable id (tests, screenshots), or NULL. */
pixman_image_t *smt_exec_drawable_image(struct smt_exec_ctx *ctx, uint32_t id);
uint64_t smt_exec_pixmap_bytes(const struct smt_exec_ctx *ctx);
uint32_t smt_exec_pixmap_count(const struct smt_exec_ctx *ctx);
/* What the drawable table itself holds (charged like pixmaps). */
uint64_t smt_exec_table_bytes(const struct smt_exec_ctx *ctx);
/* What the clip and the last PRESENT's damage hold (charged like pixmaps). */
uint64_t smt_exec_region_bytes(const struct smt_exec_ctx *ctx);
/* After a PRESENT stop: moves its damage into *out (initialised here) and
 * returns the bytes of the client's memory it is charged (to cfg.usage),
 * leaving the ring none: the taker holds the charge and releases it with
 * the region (the copy to the screen and its report, ring/canvas.c). */
uint64_t smt_exec_take_damage(struct smt_exec_ctx *ctx, pixman_region32_t *out);
/* After smt_exec_register_canvas returned SMT_ERROR_LIMIT: the limit that
 * refused the table's growth, or NULL. */
const struct smt_usage_refusal *smt_exec_last_refusal(const struct smt_exec_ctx *ctx);

/* Execute from a ring until it is empty, a PRESENT ran, the budget is used
 * up or an error. Publishes the tail (and the error) to the ring status. */
enum smt_exec_stop smt_exec_run(struct smt_exec_ctx *ctx, struct smt_ring_reader *ring,
		const struct smt_exec_budget *budget, struct smt_exec_result *out);

/* A fault found in a ring's bytes before the reader read them (a socket
 * submit's framing, or the bound on what may wait: ring/submit_area.h):
 * the context dies with it as if the reader had found it. f's offset is
 * already as the client counts it (the glue's own faults are); the faults
 * smt_exec_run finds go through smt_ring_reader_client_offset. */
enum smt_exec_stop smt_exec_fail(struct smt_exec_ctx *ctx, struct smt_ring_reader *ring,
		const struct smt_fault *f, struct smt_exec_result *out);

#endif

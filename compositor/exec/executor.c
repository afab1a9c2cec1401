/* The executor's context, run loop, budget and state commands. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "compositor/exec/exec_internal.h"
#include "compositor/exec/region_bound.h"
#include "common/monotonic_clock.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void smt_exec_config_defaults(struct smt_exec_config *cfg)
{
	*cfg = (struct smt_exec_config){
		.max_pixmap_bytes = 64ull << 20,
		.max_pixmaps = 100000,
		.max_drawable_id = 1u << 18,
		.max_pool_id = 1024,
	};
}

struct smt_exec_ctx *smt_exec_create(const struct smt_exec_config *cfg)
{
	struct smt_exec_ctx *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return NULL;
	if (cfg)
		ctx->cfg = *cfg;
	else
		smt_exec_config_defaults(&ctx->cfg);
	smt_drawables_init(&ctx->drawables, ctx->cfg.max_drawable_id, ctx->cfg.max_pixmaps,
			ctx->cfg.max_pixmap_bytes);
	ctx->drawables.usage = ctx->cfg.usage;
	smt_pools_init(&ctx->pools, ctx->cfg.max_pool_id);
	pixman_region32_init(&ctx->clip);
	pixman_region32_init(&ctx->damage);
	return ctx;
}

void smt_exec_destroy(struct smt_exec_ctx *ctx)
{
	if (!ctx)
		return;
	smt_drawables_fini(&ctx->drawables);
	smt_pools_fini(&ctx->pools);
	if (ctx->cfg.usage)
		smt_usage_release(ctx->cfg.usage, SMT_RES_MEMORY,
				ctx->clip_bytes + ctx->damage_bytes);
	pixman_region32_fini(&ctx->clip);
	pixman_region32_fini(&ctx->damage);
	free(ctx->mask_buf);
	free(ctx);
}

bool smt_exec_free_pixmaps(struct smt_exec_ctx *ctx, uint64_t max_bytes, uint64_t deadline_ns)
{
	ctx->target_id = 0; /* nothing draws any more; no target left dangling */
	return smt_drawables_free_some(&ctx->drawables, max_bytes, deadline_ns);
}

/* malloc's own header per block, counted with the region's boxes. */
#define REGION_ALLOC_OVERHEAD 16u

/* What a region holds on the heap: pixman's header and the boxes it
 * allocated (data->size, at least numRects). A rectangle or an empty
 * region keeps its box inline and holds nothing. */
static uint64_t region_heap_bytes(const pixman_region32_t *region)
{
	if (region->data == NULL || region->data->size <= 0)
		return 0;
	return sizeof(*region->data) + (uint64_t)region->data->size * sizeof(pixman_box32_t) +
			REGION_ALLOC_OVERHEAD;
}

static void release_region(struct smt_exec_ctx *ctx, uint64_t *charged)
{
	if (ctx->cfg.usage && *charged)
		smt_usage_release(ctx->cfg.usage, SMT_RES_MEMORY, *charged);
	*charged = 0;
}

/* Charges what region holds now, *charged being what it was charged
 * before (0 after release_region): the client's memory pays for a clip or
 * damage it keeps with the ring (up to 256 KiB each), as for its pixmaps.
 * -1 with a LIMIT fault naming the limit when refused (*charged kept). */
static int charge_region(
		struct smt_exec_ctx *ctx, const pixman_region32_t *region, uint64_t *charged)
{
	uint64_t now = region_heap_bytes(region);
	struct smt_usage *u = ctx->cfg.usage;
	if (u && now > *charged) {
		struct smt_usage_refusal why;
		if (!smt_usage_charge(u, SMT_RES_MEMORY, now - *charged, &why)) {
			smt_usage_describe(&why, ctx->limit_message, sizeof(ctx->limit_message));
			return exec_fail(ctx, SMT_ERROR_LIMIT, ctx->limit_message, UINT32_MAX);
		}
	} else if (u && now < *charged) {
		smt_usage_release(u, SMT_RES_MEMORY, *charged - now);
	}
	*charged = now;
	return 0;
}

static void reset_target(struct smt_exec_ctx *ctx, uint32_t id)
{
	struct smt_drawable *d = smt_drawables_get(&ctx->drawables, id);
	ctx->target_id = d ? id : 0;
	pixman_region32_fini(&ctx->clip);
	if (d)
		pixman_region32_init_rect(
				&ctx->clip, 0, 0, (unsigned)d->width, (unsigned)d->height);
	else
		pixman_region32_init(&ctx->clip);
	release_region(ctx, &ctx->clip_bytes);
}

uint32_t smt_exec_register_canvas(struct smt_exec_ctx *ctx, uint32_t id, pixman_image_t *image)
{
	return image ? smt_drawables_add_canvas(&ctx->drawables, id, image) :
		       SMT_ERROR_BAD_DRAWABLE;
}

uint32_t smt_exec_replace_canvas(struct smt_exec_ctx *ctx, uint32_t id, pixman_image_t *image)
{
	uint32_t err = image ? smt_drawables_replace_canvas(&ctx->drawables, id, image) :
			       SMT_ERROR_BAD_DRAWABLE;
	if (!err && ctx->target_id == id)
		reset_target(ctx, id); /* still the target; clip = new bounds */
	return err;
}

uint32_t smt_exec_unregister_canvas(struct smt_exec_ctx *ctx, uint32_t id)
{
	uint32_t err = smt_drawables_remove_canvas(&ctx->drawables, id);
	if (!err && ctx->target_id == id)
		reset_target(ctx, 0);
	return err;
}

int smt_exec_register_pool(struct smt_exec_ctx *ctx, uint32_t id, const void *base, uint64_t size)
{
	return smt_pools_register(&ctx->pools, id, base, size, -1);
}

int smt_exec_register_pool_file(
		struct smt_exec_ctx *ctx, uint32_t id, const void *base, uint64_t size, int fd)
{
	return smt_pools_register(&ctx->pools, id, base, size, fd);
}

int smt_exec_unregister_pool(struct smt_exec_ctx *ctx, uint32_t id)
{
	return smt_pools_unregister(&ctx->pools, id);
}

pixman_image_t *smt_exec_drawable_image(struct smt_exec_ctx *ctx, uint32_t id)
{
	struct smt_drawable *d = smt_drawables_get(&ctx->drawables, id);
	return d ? d->image : NULL;
}

uint64_t smt_exec_pixmap_bytes(const struct smt_exec_ctx *ctx)
{
	return ctx->drawables.bytes;
}
uint32_t smt_exec_pixmap_count(const struct smt_exec_ctx *ctx)
{
	return ctx->drawables.pixmaps;
}
uint64_t smt_exec_table_bytes(const struct smt_exec_ctx *ctx)
{
	return ctx->drawables.table_bytes;
}
uint64_t smt_exec_region_bytes(const struct smt_exec_ctx *ctx)
{
	return ctx->clip_bytes + ctx->damage_bytes;
}

uint64_t smt_exec_take_damage(struct smt_exec_ctx *ctx, pixman_region32_t *out)
{
	*out = ctx->damage; /* its rectangles move with it */
	pixman_region32_init(&ctx->damage);
	uint64_t charged = ctx->damage_bytes;
	ctx->damage_bytes = 0;
	return charged;
}

const struct smt_usage_refusal *smt_exec_last_refusal(const struct smt_exec_ctx *ctx)
{
	return ctx->drawables.refusal.asked != 0 ? &ctx->drawables.refusal : NULL;
}

static bool op_is_bounded(pixman_op_t op)
{
	/* op(transparent source, dst) == dst: a zero mask leaves dst alone. */
	switch (op) {
	case PIXMAN_OP_SRC:
	case PIXMAN_OP_CLEAR:
	case PIXMAN_OP_IN:
	case PIXMAN_OP_IN_REVERSE:
	case PIXMAN_OP_OUT:
	case PIXMAN_OP_ATOP_REVERSE:
		return false;
	default:
		return true;
	}
}

int exec_composite_shaped(pixman_op_t op, pixman_image_t *src, pixman_image_t *mask,
		pixman_image_t *dst, int32_t sx, int32_t sy, int32_t mx, int32_t my, int32_t x,
		int32_t y, int32_t w, int32_t h)
{
	if (op_is_bounded(op)) {
		pixman_image_composite32(op, src, mask, dst, sx, sy, mx, my, x, y, w, h);
		return 0;
	}
	/* dst = lerp(mask, op(src, dst), dst): compute op(src, dst) on a copy,
	 * cut the shape out of dst, add the copy back through the shape. */
	pixman_image_t *tmp = pixman_image_create_bits(pixman_image_get_format(dst), w, h, NULL, 0);
	if (!tmp)
		return -1;
	pixman_image_composite32(PIXMAN_OP_SRC, dst, NULL, tmp, x, y, 0, 0, 0, 0, w, h);
	pixman_image_composite32(op, src, NULL, tmp, sx, sy, 0, 0, 0, 0, w, h);
	pixman_image_composite32(PIXMAN_OP_OUT_REVERSE, mask, NULL, dst, mx, my, 0, 0, x, y, w, h);
	pixman_image_composite32(PIXMAN_OP_ADD, tmp, mask, dst, 0, 0, mx, my, x, y, w, h);
	pixman_image_unref(tmp);
	return 0;
}

int exec_fail(struct smt_exec_ctx *ctx, uint32_t code, const char *what, uint32_t index)
{
	ctx->fault.code = code;
	ctx->fault.what = what;
	ctx->fault.index = index;
	return -1;
}

int exec_no_target(struct smt_exec_ctx *ctx)
{
	return exec_fail(ctx, SMT_ERROR_NO_TARGET, "no target drawable", UINT32_MAX);
}

bool exec_charge_clock(struct smt_exec_ctx *ctx)
{
	ctx->run.since_check = 0;
	ctx->run.pixels_at_check = ctx->run.pixels;
	/* (only asked with a deadline: exec_charge_units) */
	ctx->run.exhausted = smt_exec_budget_time_spent(ctx->run.budget, monotonic_now_ns());
	return ctx->run.exhausted;
}

/* Region of rects clamped to [0,w)x[0,h), dropping empty ones first (pixman
 * logs "Invalid rectangle" for malformed boxes, which a client could spam),
 * refused if its union could have more than SMT_REGION_BOXES_MAX boxes
 * (region_bound.h: a grid of rows and columns makes millions). */
static int region_from_rects(struct smt_exec_ctx *ctx, pixman_region32_t *out,
		const struct smt_rect *r, uint32_t n, int32_t w, int32_t h)
{
	pixman_box32_t *boxes = malloc((size_t)n * sizeof(*boxes) + 1);
	if (!boxes)
		return exec_fail(ctx, SMT_ERROR_NO_MEMORY, "out of memory", UINT32_MAX);
	int k = 0;
	for (uint32_t i = 0; i < n; i++) { /* int64: x + width cannot wrap */
		int64_t x1 = r[i].x, y1 = r[i].y;
		int64_t x2 = x1 + r[i].width, y2 = y1 + r[i].height;
		x1 = x1 < 0 ? 0 : x1;
		y1 = y1 < 0 ? 0 : y1;
		x2 = x2 > w ? w : x2;
		y2 = y2 > h ? h : y2;
		if (x1 < x2 && y1 < y2)
			boxes[k++] = (pixman_box32_t){ (int32_t)x1, (int32_t)y1, (int32_t)x2,
				(int32_t)y2 };
	}
	if (smt_region_boxes_bound(boxes, k) > SMT_REGION_BOXES_MAX) {
		free(boxes);
		static_assert(SMT_REGION_BOXES_MAX == 16384, "the message names it");
		return exec_fail(ctx, SMT_ERROR_LIMIT,
				"rectangles whose union could have more than 16384 boxes",
				UINT32_MAX);
	}
	/* init_rects merges overlaps in O(n log n + the boxes it makes). */
	bool ok = pixman_region32_init_rects(out, boxes, k);
	free(boxes);
	return ok ? 0 : exec_fail(ctx, SMT_ERROR_NO_MEMORY, "out of memory", UINT32_MAX);
}

static int set_clip(struct smt_exec_ctx *ctx, const struct smt_decoded *d)
{
	struct smt_drawable *t;
	if (exec_target(ctx, &t))
		return -1;
	uint32_t n = (uint32_t)d->array_len;
	const struct smt_rect *r = d->array;
	reset_target(ctx, ctx->target_id);
	if (n == 0)
		return 0; /* no clip: the whole target */
	pixman_region32_t rects;
	if (region_from_rects(ctx, &rects, r, n, t->width, t->height))
		return -1;
	pixman_region32_intersect(&ctx->clip, &ctx->clip, &rects);
	pixman_region32_fini(&rects);
	if (charge_region(ctx, &ctx->clip, &ctx->clip_bytes)) {
		reset_target(ctx, ctx->target_id);
		return -1;
	}
	exec_charge(ctx, n);
	return 0;
}

static int present(
		struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_exec_result *out)
{
	const struct smt_cmd_present *c = &d->u.present;
	struct smt_drawable *cv = smt_drawables_get(&ctx->drawables, c->canvas_id);
	if (!cv || cv->kind != SMT_DRAWABLE_CANVAS)
		return exec_fail(
				ctx, SMT_ERROR_BAD_DRAWABLE, "PRESENT of a non-canvas", UINT32_MAX);
	pixman_region32_fini(&ctx->damage);
	pixman_region32_init_rect(&ctx->damage, 0, 0, (unsigned)cv->width, (unsigned)cv->height);
	release_region(ctx, &ctx->damage_bytes);
	uint32_t n = (uint32_t)d->array_len;
	if (n) {
		pixman_region32_t rects;
		if (region_from_rects(ctx, &rects, d->array, n, cv->width, cv->height))
			return -1;
		pixman_region32_intersect(&ctx->damage, &ctx->damage, &rects);
		pixman_region32_fini(&rects);
		if (charge_region(ctx, &ctx->damage, &ctx->damage_bytes)) {
			pixman_region32_fini(&ctx->damage);
			pixman_region32_init(&ctx->damage);
			return -1;
		}
	}
	out->present.canvas_id = c->canvas_id;
	out->present.serial = c->serial;
	out->present.damage = &ctx->damage;
	exec_charge(ctx, n);
	return 0;
}

/* ---- dispatch: one op_<fixed> per row of the opcode table (smt-ring.h);
 * each returns 0 done, EXEC_PARTIAL (resume at r->resume), or -1 fault. */

#define OP_ARGS                                                                           \
	struct smt_exec_ctx *ctx, struct smt_ring_reader *r, const struct smt_decoded *d, \
			struct smt_exec_result *out

static inline int op_header(OP_ARGS)
{
	(void)ctx;
	(void)r;
	(void)d;
	(void)out;
	return 0; /* NOOP, PAD */
}

static inline int op_create_pixmap(OP_ARGS)
{
	(void)r;
	(void)out;
	uint32_t err = smt_drawables_create_pixmap(&ctx->drawables, d->u.create.id,
			d->u.create.width, d->u.create.height, d->u.create.format);
	if (err == SMT_ERROR_LIMIT && ctx->drawables.refusal.asked != 0) {
		smt_usage_describe(&ctx->drawables.refusal, ctx->limit_message,
				sizeof(ctx->limit_message));
		return exec_fail(ctx, err, ctx->limit_message, UINT32_MAX);
	}
	return err ? exec_fail(ctx, err,
				     err == SMT_ERROR_LIMIT ? "pixmap count or memory limit" :
							      "cannot create pixmap",
				     UINT32_MAX) :
		     0;
}

static inline int op_free_pixmap(OP_ARGS)
{
	(void)r;
	(void)out;
	uint32_t err = smt_drawables_free_pixmap(&ctx->drawables, d->u.free_pixmap.id);
	if (err)
		return exec_fail(ctx, err, "not a pixmap of this client", UINT32_MAX);
	if (ctx->target_id == d->u.free_pixmap.id)
		reset_target(ctx, 0);
	return 0;
}

static inline int op_set_target(OP_ARGS)
{
	(void)r;
	(void)out;
	if (d->u.set_target.id && !smt_drawables_get(&ctx->drawables, d->u.set_target.id))
		return exec_fail(ctx, SMT_ERROR_BAD_DRAWABLE, "unknown drawable", UINT32_MAX);
	reset_target(ctx, d->u.set_target.id);
	return 0;
}

static inline int op_set_clip(OP_ARGS)
{
	(void)r;
	(void)out;
	return set_clip(ctx, d);
}

static inline int op_fill_rects(OP_ARGS)
{
	(void)out;
	return exec_fill_rects(ctx, d, &r->resume);
}

static inline int op_points(OP_ARGS)
{
	(void)out;
	return exec_points(ctx, d, &r->resume);
}

static inline int op_segments(OP_ARGS)
{
	(void)out;
	return d->u.segments.line_width > 1 ? exec_wide_segments(ctx, d, &r->resume) :
					      exec_thin_segments(ctx, d, &r->resume);
}

static inline int op_put_image(OP_ARGS)
{
	(void)out;
	return exec_put_image(ctx, d, &r->resume);
}

static inline int op_put_image_pool(OP_ARGS)
{
	(void)out;
	return exec_put_image_pool(ctx, d, &r->resume);
}

static inline int op_copy_area(OP_ARGS)
{
	(void)out;
	return exec_copy_area(ctx, d, &r->resume);
}

static inline int op_composite(OP_ARGS)
{
	(void)out;
	return exec_composite(ctx, d, &r->resume);
}

static inline int op_glyphs(OP_ARGS)
{
	(void)out;
	return exec_glyphs(ctx, d, &r->resume);
}

static inline int op_present(OP_ARGS)
{
	(void)r;
	return present(ctx, d, out);
}

static inline int op_fence(OP_ARGS)
{
	(void)ctx;
	out->fences++;
	out->last_fence = d->u.fence.serial;
	smt_ring_reader_complete_fence(r, d->u.fence.serial);
	return 0;
}

static int exec_one(OP_ARGS)
{
	switch (d->opcode) {
#define DISPATCH_(name, number, fixed, element, copy) \
	case SMT_OP_##name:                           \
		return op_##fixed(ctx, r, d, out);
		SMT_OPCODES(DISPATCH_)
#undef DISPATCH_
	default:
		return exec_fail(ctx, SMT_ERROR_BAD_OPCODE, "unknown opcode", UINT32_MAX);
	}
}

/* f's offset is as the client counts it (client_offset below). */
static enum smt_exec_stop die(struct smt_exec_ctx *ctx, struct smt_ring_reader *r,
		const struct smt_fault *f, struct smt_exec_result *out)
{
	struct smt_exec_error *e = &ctx->dead_error;
	e->code = f->code;
	e->opcode = f->opcode;
	e->offset = f->offset;
	int len = snprintf(e->message, sizeof(e->message), "%s: %s (opcode %s, offset %" PRIu64,
			smt_error_name(f->code), f->what ? f->what : "?",
			smt_opcode_name(f->opcode), f->offset);
	if (len > 0 && (size_t)len < sizeof(e->message))
		snprintf(e->message + len, sizeof(e->message) - (size_t)len,
				f->index != UINT32_MAX ? ", element %" PRIu32 ")" : ")", f->index);
	ctx->dead = true;
	smt_ring_reader_set_dead(r, f);
	out->error = *e;
	return out->stop = SMT_EXEC_ERROR;
}

/* A fault the reader or a command found, at a position of the ring's
 * stream, moved to the client's count (a socket ring's PADs are not its). */
static struct smt_fault *client_fault(const struct smt_ring_reader *r, struct smt_fault *f)
{
	f->offset = smt_ring_reader_client_offset(r, f->offset);
	return f;
}

/* NOOP/PAD commands per pass of smt_ring_reader_skip_noops, and per unit
 * of work: a NOOP costs a few ns, a drawing command tens. */
#define NOOP_RUN 512u
#define NOOP_PER_UNIT 8u
/* The tail is published (and a waiting client checked for) every
 * PUBLISH_STEP bytes run, at most every area/8: a client spinning on a full
 * ring must see room within its spin (libsmt: 50 us). With area/8 alone, a
 * 512 KiB ring of 1000-rectangle fills published every ~60 us and the
 * client slept on every other full ring (rect1, x11perf batching: 357-380
 * server-to-client wakeups per 10k commands against 45-63 at 256 KiB).
 * A publish is a store, a fence and a load: ~1% of 16 KiB of NOOPs. */
#define PUBLISH_STEP (16u * 1024u)
#define PUBLISH_PER_AREA 8u

static enum smt_exec_stop run(struct smt_exec_ctx *ctx, struct smt_ring_reader *r,
		const struct smt_exec_budget *budget, struct smt_exec_result *out)
{
	static const struct smt_exec_budget unlimited = { 0, 0, 0, NULL };
	struct smt_fault f;
	enum smt_exec_stop stop = SMT_EXEC_EMPTY;

	memset(&ctx->run, 0, sizeof(ctx->run));
	ctx->run.budget = budget ? budget : &unlimited;
	/* A deadline already past runs nothing; otherwise at least one
	 * element runs, so a short slice still makes progress. */
	if (ctx->run.budget->deadline_ns && monotonic_now_ns() >= ctx->run.budget->deadline_ns)
		return out->stop = SMT_EXEC_BUDGET;
	if (smt_ring_reader_begin(r, &f) < 0)
		return die(ctx, r, client_fault(r, &f), out);
	uint64_t step = r->area_size / PUBLISH_PER_AREA < PUBLISH_STEP ?
			r->area_size / PUBLISH_PER_AREA :
			PUBLISH_STEP;
	uint64_t next_publish = r->tail + step;
	for (;;) {
		const struct smt_cmd *cmd;
		struct smt_decoded d;
		if (ctx->run.budget->max_commands &&
				out->commands >= ctx->run.budget->max_commands) {
			stop = SMT_EXEC_BUDGET;
			break;
		}
		int rc = smt_ring_reader_peek(r, &cmd, &f);
		if (rc == 0)
			break;
		if (rc < 0 || smt_decode(cmd, &d, &f) < 0)
			goto fail;
		/* exec_fail fills code, what and index, opcode and offset are
		 * set below; code alone says "failed" to drawing code. */
		ctx->fault.code = SMT_ERROR_NONE;
		rc = exec_one(ctx, r, &d, out);
		if (rc < 0) {
			f = ctx->fault;
			f.opcode = cmd->opcode;
			f.offset = cmd->offset;
			goto fail;
		}
		if (rc == EXEC_PARTIAL) {
			stop = SMT_EXEC_BUDGET;
			break;
		}
		out->commands++;
		out->bytes += cmd->size;
		smt_ring_reader_consume(r);
		if (d.opcode == SMT_OP_PRESENT) {
			stop = SMT_EXEC_PRESENT;
			break;
		}
		if (exec_charge(ctx, 0)) {
			stop = SMT_EXEC_BUDGET;
			break;
		}
		if (d.opcode == SMT_OP_NOOP || d.opcode == SMT_OP_PAD) {
			/* The rest of a run of NOOP/PAD in one pass: nothing to
			 * draw, so each costs only its framing checks. At most
			 * NOOP_RUN a pass, one unit of work per NOOP_PER_UNIT. */
			uint32_t max = NOOP_RUN, skipped;
			uint64_t skipped_bytes;
			if (ctx->run.budget->max_commands &&
					ctx->run.budget->max_commands - out->commands < max)
				max = (uint32_t)(ctx->run.budget->max_commands - out->commands);
			int bad = smt_ring_reader_skip_noops(r, max, &skipped, &skipped_bytes, &f);
			out->commands += skipped;
			out->bytes += skipped_bytes;
			if (bad)
				goto fail;
			if (exec_charge_units(ctx, (skipped + NOOP_PER_UNIT - 1) / NOOP_PER_UNIT,
					    0)) {
				stop = SMT_EXEC_BUDGET;
				break;
			}
		} else if (d.opcode == SMT_OP_FILL_RECTS && (int64_t)(r->tail - next_publish) < 0) {
			/* The small FILL_RECTS after it in one pass (exec_fill.c),
			 * none past the next publish point or the command budget. */
			uint32_t max = SMT_RUN_MAX;
			if (ctx->run.budget->max_commands &&
					ctx->run.budget->max_commands - out->commands < max)
				max = (uint32_t)(ctx->run.budget->max_commands - out->commands);
			int ran = exec_fill_rects_run(ctx, r, out, max, next_publish - r->tail, &f);
			if (ran < 0)
				goto fail;
			if (ran == EXEC_PARTIAL) {
				stop = SMT_EXEC_BUDGET;
				break;
			}
		}
		/* Every `step` bytes the tail is published (the fenced publish
		 * of smt-ring.h): a client spinning on a full ring (libsmt's
		 * ring_wait_tail) refills behind us instead of waiting for the
		 * run's end. A client asleep on the tail we passed is woken at
		 * once, and the run ends: it refills while the rest of the ring
		 * keeps us busy, instead of after we drained it and slept, when
		 * its next publish has to wake us (one client-to-server eventfd
		 * write per ring-full). */
		if ((int64_t)(r->tail - next_publish) >= 0) {
			next_publish = r->tail + step;
			if (smt_ring_reader_publish(r)) {
				out->wake_client = true;
				stop = SMT_EXEC_BUDGET;
				break;
			}
		}
	}
	out->pixels = ctx->run.pixels;
	out->wake_client |= smt_ring_reader_publish(r);
	return out->stop = stop;
fail:
	out->pixels = ctx->run.pixels;
	smt_ring_reader_publish(r);
	return die(ctx, r, client_fault(r, &f), out);
}

static bool already_dead(struct smt_exec_ctx *ctx, struct smt_exec_result *out)
{
	memset(out, 0, sizeof(*out));
	if (!ctx->dead)
		return false;
	out->error = ctx->dead_error;
	out->stop = SMT_EXEC_ERROR;
	return true;
}

enum smt_exec_stop smt_exec_run(struct smt_exec_ctx *ctx, struct smt_ring_reader *ring,
		const struct smt_exec_budget *budget, struct smt_exec_result *out)
{
	if (already_dead(ctx, out))
		return SMT_EXEC_ERROR;
	return run(ctx, ring, budget, out);
}

enum smt_exec_stop smt_exec_fail(struct smt_exec_ctx *ctx, struct smt_ring_reader *ring,
		const struct smt_fault *f, struct smt_exec_result *out)
{
	if (already_dead(ctx, out))
		return SMT_EXEC_ERROR;
	return die(ctx, ring, f, out);
}

/*
 * Security-critical: the first code that reads a hostile client's shared
 * memory (ring_reader.h). It defends against a client that rewrites the
 * ring while the compositor reads it (Xen XSA-155's double fetch): head is
 * read once per batch and must lie within one ring size after the tail,
 * every index is masked, each header is copied out once and only the copy
 * is trusted, control bytes are copied to private scratch before anything
 * validates them; a command that wraps, runs past head or is too large is
 * a fault (opcode, offset, reason), never a read out of bounds. The
 * consumer position is kept privately and only published to a
 * server-owned page. Reading and bounding head, publishing the tail, the
 * wake-up and the death certificate are the protocol's server half
 * (protocol/smt-ring-server.c), which the X ring shares; what is here is
 * command framing and copy-out.
 */
#include "compositor/exec/ring_reader.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static int fault(struct smt_fault *f, uint32_t code, uint16_t opcode, uint64_t offset,
		const char *what)
{
	f->code = code;
	f->opcode = opcode;
	f->offset = offset;
	f->what = what;
	f->index = UINT32_MAX;
	return -1;
}

int smt_ring_reader_init(struct smt_ring_reader *r, const void *ring_mem, size_t ring_mem_size,
		uint32_t area_size, struct smt_ring_status *status)
{
	memset(r, 0, sizeof(*r));
	if (area_size < SMT_RING_AREA_MIN || area_size > SMT_RING_AREA_MAX ||
			(area_size & (area_size - 1)) != 0 ||
			ring_mem_size < (size_t)SMT_RING_HEADER_SIZE + area_size ||
			((uintptr_t)ring_mem & 7) != 0 || !status)
		return -1;
	r->area = (const uint8_t *)ring_mem + SMT_RING_HEADER_SIZE;
	r->area_size = area_size;
	r->limit = UINT64_MAX;
	smt_server_ring_init(&r->shared, ring_mem, status);
	return 0;
}

void smt_ring_reader_move_area(struct smt_ring_reader *r, const void *ring_mem, uint32_t area_size)
{
	r->shared.hdr = ring_mem;
	r->area = (const uint8_t *)ring_mem + SMT_RING_HEADER_SIZE;
	r->area_size = area_size;
}

void smt_ring_reader_fini(struct smt_ring_reader *r)
{
	free(r->scratch);
	memset(r, 0, sizeof(*r));
}

void smt_ring_reader_show_offsets(struct smt_ring_reader *r,
		uint64_t (*fn)(const void *data, uint64_t pos), const void *data)
{
	r->client_offset = fn;
	r->client_offset_data = data;
}

uint64_t smt_ring_reader_client_offset(const struct smt_ring_reader *r, uint64_t pos)
{
	return r->client_offset ? r->client_offset(r->client_offset_data, pos) : pos;
}

void smt_ring_reader_set_limit(struct smt_ring_reader *r, uint64_t limit)
{
	r->limit = limit;
}

uint64_t smt_ring_reader_published(const struct smt_ring_reader *r)
{
	uint64_t head = smt_server_load_head(&r->shared);
	if (smt_server_head_avail(head, r->tail, r->area_size, 8) == SMT_HEAD_IMPOSSIBLE)
		return r->tail;
	return head;
}

int smt_ring_reader_begin(struct smt_ring_reader *r, struct smt_fault *f)
{
	/* The one read of head for this batch. Acquire: the command bytes the
	 * client wrote before its release store are visible below. */
	uint64_t head = smt_server_load_head(&r->shared);
	if (smt_server_head_avail(head, r->tail, r->area_size, 8) == SMT_HEAD_IMPOSSIBLE ||
			head < r->head)
		return fault(f, SMT_ERROR_BAD_HEAD, 0xffff, r->tail,
				"head behind tail, beyond tail + area size, or unaligned");
	/* A limit never lets the reader past what the client published. */
	r->head = head > r->limit && r->limit >= r->tail ? r->limit : head;
	return 0;
}

/* Per opcode, from the table: what peek copies out, and the fixed part
 * that is all SMT_COPY_FIXED copies (a multiple of 8, as ctl_len must be:
 * smt-ring.h asserts it for every fixed part). */
#define COPY_RULE_(name, number, fixed, element, copy) [SMT_OP_##name] = copy,
static const uint8_t copy_rule[SMT_OP_COUNT] = { SMT_OPCODES(COPY_RULE_) };
#undef COPY_RULE_
#define FIXED_SIZE_(name, number, fixed, element, copy) \
	[SMT_OP_##name] = sizeof(struct smt_cmd_##fixed),
static const uint8_t fixed_size[SMT_OP_COUNT] = { SMT_OPCODES(FIXED_SIZE_) };
#undef FIXED_SIZE_

/*
 * A command's first len bytes into private memory: our copy of its header
 * h (the header is fetched once), then the rest from src. Control parts
 * are a few words: copied inline, not via a call, in 16-byte pieces from
 * offset 8 (then words), the way the decoder reads them back
 * (command_decode.c): a read that spans two of these stores cannot be
 * forwarded from them and waits for them to retire. Always inlined: peek
 * and frame_run copy every command through it.
 */
static inline __attribute__((always_inline)) void copy_control(
		uint8_t *out, const struct smt_cmd_header *h, const uint8_t *src, uint32_t len)
{
	memcpy(out, h, sizeof(*h));
	if (len <= 128) {
		uint32_t i = sizeof(*h);
		for (; i + 16 <= len; i += 16)
			memcpy(out + i, src + i, 16);
		for (; i < len; i += 8)
			memcpy(out + i, src + i, 8);
	} else {
		memcpy(out + sizeof(*h), src + sizeof(*h), len - sizeof(*h));
	}
	/* Compiler barrier: nothing after reads the client's bytes again. */
	atomic_signal_fence(memory_order_seq_cst);
}

static int grow_scratch(struct smt_ring_reader *r, uint32_t need)
{
	if (need <= r->scratch_cap)
		return 0;
	uint32_t cap = r->scratch_cap ? r->scratch_cap : 256;
	while (cap < need)
		cap *= 2;
	uint8_t *s = realloc(r->scratch, cap);
	if (!s)
		return -1;
	r->scratch = s;
	r->scratch_cap = cap;
	return 0;
}

/* Framing checks every command's header passes, in this order (peek and
 * skip_noops must refuse a header with the same fault). */
static int check_frame(const struct smt_cmd_header *h, uint64_t off, uint64_t remaining,
		uint64_t contig, struct smt_fault *f)
{
	if (h->size == 0)
		return fault(f, SMT_ERROR_BAD_SIZE, h->opcode, off, "size 0");
	if (h->size % 8)
		return fault(f, SMT_ERROR_BAD_SIZE, h->opcode, off, "size not a multiple of 8");
	if (h->size > remaining)
		return fault(f, SMT_ERROR_TRUNCATED, h->opcode, off, "size runs past head");
	if (h->size > contig)
		return fault(f, SMT_ERROR_WRAP, h->opcode, off,
				"command runs past the end of the area (missing PAD)");
	if (h->opcode >= SMT_OP_COUNT)
		return fault(f, SMT_ERROR_BAD_OPCODE, h->opcode, off, "unknown opcode");
	if (h->flags != 0)
		return fault(f, SMT_ERROR_BAD_VALUE, h->opcode, off, "header flags must be 0");
	return 0;
}

int smt_ring_reader_skip_noops(struct smt_ring_reader *r, uint32_t max, uint32_t *count,
		uint64_t *bytes, struct smt_fault *f)
{
	uint64_t tail = r->tail, end = r->head;
	uint32_t n = 0;
	int rc = 0;
	*count = 0;
	*bytes = 0;
	if (r->pending)
		return 0;
	while (n < max && tail != end) {
		uint64_t pos = tail & (r->area_size - 1);
		struct smt_cmd_header h;
		memcpy(&h, r->area + pos, sizeof(h));
		/* Compiler barrier: h is the only copy we trust from here on. */
		atomic_signal_fence(memory_order_seq_cst);
		if (h.opcode != SMT_OP_NOOP && h.opcode != SMT_OP_PAD)
			break; /* peek reads it again, on its own */
		if ((rc = check_frame(&h, tail, end - tail, r->area_size - pos, f)) < 0)
			break;
		tail += h.size;
		n++;
	}
	/* The run before a bad header ran, as if one command at a time. */
	*count = n;
	*bytes = tail - r->tail;
	r->tail = tail;
	r->commands += n;
	r->bytes += *bytes;
	return rc;
}

int smt_ring_reader_peek(struct smt_ring_reader *r, const struct smt_cmd **out, struct smt_fault *f)
{
	uint64_t pos = r->tail & (r->area_size - 1); /* mask every index */
	uint64_t contig = r->area_size - pos;
	if (r->pending) {
		/* Resume: the control bytes are still in scratch; only the
		 * in-place pointer is recomputed (a socket ring's area may
		 * have moved: smt_ring_reader_move_area). */
		r->cmd.data = r->area + pos;
		*out = &r->cmd;
		return 1;
	}
	uint64_t remaining = r->head - r->tail;
	if (remaining == 0)
		return 0;

	struct smt_cmd_header h;
	memcpy(&h, r->area + pos, sizeof(h));
	/* Compiler barrier: h is the only copy we trust from here on. */
	atomic_signal_fence(memory_order_seq_cst);

	uint64_t off = r->tail;
	if (check_frame(&h, off, remaining, contig, f) < 0)
		return -1;

	/* What to copy out is the opcode table's copy rule (smt-ring.h). */
	uint32_t ctl_len = h.size;
	enum smt_copy_rule copy = copy_rule[h.opcode];
	if (copy == SMT_COPY_HEADER) {
		ctl_len = sizeof(h);
	} else {
		if (h.size > r->area_size / 2)
			return fault(f, SMT_ERROR_TOO_LARGE, h.opcode, off,
					"command larger than half the ring (use a pool)");
		if (copy == SMT_COPY_FIXED) {
			if (ctl_len > fixed_size[h.opcode])
				ctl_len = fixed_size[h.opcode];
		} else if (ctl_len > SMT_CMD_CONTROL_MAX) {
			return fault(f, SMT_ERROR_TOO_LARGE, h.opcode, off,
					"command larger than SMT_CMD_CONTROL_MAX");
		}
	}
	if (grow_scratch(r, ctl_len) < 0)
		return fault(f, SMT_ERROR_NO_MEMORY, h.opcode, off, "out of memory");
	copy_control(r->scratch, &h, r->area + pos, ctl_len);

	r->cmd = (struct smt_cmd){
		.opcode = h.opcode,
		.size = h.size,
		.offset = off,
		.ctl = r->scratch,
		.ctl_len = ctl_len,
		.data = r->area + pos,
	};
	r->pending = true;
	r->resume = (struct smt_resume){ 0, 0 };
	*out = &r->cmd;
	return 1;
}

void smt_ring_reader_consume(struct smt_ring_reader *r)
{
	if (!r->pending)
		return;
	r->tail += r->cmd.size;
	r->commands++;
	r->bytes += r->cmd.size;
	r->pending = false;
	r->resume = (struct smt_resume){ 0, 0 };
}

/* What peek would check beyond check_frame cannot refuse a run's command:
 * it is no larger than half the smallest ring nor the control limit, and
 * the scratch holds the whole run (grown once, before the first). */
static_assert(SMT_RUN_CMD_MAX <= SMT_RING_AREA_MIN / 2, "a run's command fits half a ring");
static_assert(SMT_RUN_CMD_MAX <= SMT_CMD_CONTROL_MAX, "a run's command is copied whole");

void smt_ring_reader_frame_run(struct smt_ring_reader *r, uint16_t opcode, uint32_t max,
		uint64_t max_bytes, struct smt_cmd_run *run, struct smt_fault *f)
{
	uint64_t tail = r->tail, end = r->head;
	uint32_t n = 0;
	*run = (struct smt_cmd_run){ .offset = tail };
	if (max > SMT_RUN_MAX)
		max = SMT_RUN_MAX;
	if (r->pending || opcode >= SMT_OP_COUNT || copy_rule[opcode] != SMT_COPY_WHOLE ||
			grow_scratch(r, max * SMT_RUN_CMD_MAX) < 0)
		return;
	/* Locals: the copies below could alias *r as far as C knows. */
	uint8_t *out = r->scratch;
	const uint8_t *const area = r->area;
	const uint64_t size = r->area_size, start = r->tail, mask = size - 1;
	while (n < max && tail != end && tail - start < max_bytes) {
		uint64_t pos = tail & mask; /* mask every index */
		struct smt_cmd_header h;
		memcpy(&h, area + pos, sizeof(h));
		/* Compiler barrier: h is the only copy we trust from here on. */
		atomic_signal_fence(memory_order_seq_cst);
		if (h.opcode != opcode || h.size > SMT_RUN_CMD_MAX)
			break; /* peek reads it again, on its own */
		if (check_frame(&h, tail, end - tail, size - pos, f) < 0) {
			run->bad = true;
			break;
		}
		copy_control(out, &h, area + pos, h.size);
		out += h.size;
		tail += h.size;
		n++;
	}
	run->ctl = r->scratch;
	run->count = n;
}

void smt_ring_reader_consume_run(struct smt_ring_reader *r, uint32_t count, uint64_t bytes)
{
	assert(!r->pending);
	r->tail += bytes;
	r->commands += count;
	r->bytes += bytes;
}

void smt_ring_reader_hold(
		struct smt_ring_reader *r, const struct smt_cmd *cmd, struct smt_resume resume)
{
	assert(!r->pending && cmd->offset == r->tail);
	uint64_t pos = r->tail & (r->area_size - 1);
	r->cmd = *cmd;
	r->cmd.data = r->area + pos;
	r->pending = true;
	r->resume = resume;
}

bool smt_ring_reader_publish(struct smt_ring_reader *r)
{
	return smt_server_publish(&r->shared, r->tail, r->commands, r->bytes);
}

bool smt_ring_reader_has_work(const struct smt_ring_reader *r)
{
	if (r->tail >= r->limit)
		return false;
	return smt_server_load_head(&r->shared) != r->tail;
}

void smt_ring_reader_complete_fence(struct smt_ring_reader *r, uint64_t serial)
{
	smt_server_complete_fence(&r->shared, serial);
}

void smt_ring_reader_set_dead(struct smt_ring_reader *r, const struct smt_fault *f)
{
	if (r->end_deferred) {
		r->end = *f;
		r->end_held = true;
		return;
	}
	smt_server_end(&r->shared, f->code, f->opcode, f->offset);
}

void smt_ring_reader_defer_end(struct smt_ring_reader *r)
{
	r->end_deferred = true;
}

void smt_ring_reader_publish_end(struct smt_ring_reader *r)
{
	if (r->end_held) {
		r->end_held = false;
		smt_server_end(&r->shared, r->end.code, r->end.opcode, r->end.offset);
	}
}

void smt_ring_reader_count_wakeups(
		struct smt_ring_reader *r, uint64_t to_client, uint64_t from_client)
{
	r->wakeups_to_client += to_client;
	r->wakeups_from_client += from_client;
	smt_server_count_wakeups(&r->shared, r->wakeups_to_client, r->wakeups_from_client);
}

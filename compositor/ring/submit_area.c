/*
 * A socket ring's server-owned area (submit_area.h). The submitted bytes
 * are the compositor's private copy, so reading their headers here is
 * safe; the reader still treats the area as it treats a client's ring.
 */
#include "compositor/ring/submit_area.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "clients/libsmt/ring-writer.h"

/* The area holds twice what may wait: every PAD the writer adds is
 * smaller than the command after it, which waits too. */
#define AREA_MAX (2u * SMT_SUBMIT_QUEUE_MAX)
static_assert(AREA_MAX <= SMT_RING_AREA_MAX, "a valid ring area");
static_assert(SMT_SUBMIT_QUEUE_MAX <= AREA_MAX / 2, "any command is at most half the area");
/* PADs between the reader and the writer: at most one per area size the
 * area had (each ends at a multiple of that size, and what waits is
 * shorter than the area it was written into): 4 KiB to 2 MiB is 10. */
#define PADS_MAX 16u

struct submit_area {
	uint8_t *mem; /* header page + area, never shared */
	uint32_t area_size;
	struct smt_ring_writer writer;
	struct smt_ring_status status;   /* the reader's: tail, for the writer */
	struct smt_global_status global; /* never asleep: nobody to wake */
	/* PADs the writer added, not yet passed by the reader, oldest first */
	struct {
		uint64_t end;
		uint32_t size;
	} pads[PADS_MAX];
	uint32_t pads_first, pads_count;
	uint64_t pad_bytes_live;
	/* PADs passed so far, and as many as the counters were told of */
	uint64_t passed_count, passed_bytes, reported_count, reported_bytes;
	/* The start of a command not yet whole (submits split commands). */
	uint8_t *partial;
	size_t partial_len, partial_cap;
	/* Memory the client causes: the block (header page + area) and the
	 * partial buffer's capacity, charged before they are allocated. */
	struct smt_usage *usage;
	uint64_t charged;
	char refused[160]; /* the fault's text when a charge is refused */
};

/* Charges n more bytes; on refusal *f is the LIMIT fault naming the limit. */
static int charge(struct submit_area *a, uint64_t n, uint64_t offset, struct smt_fault *f)
{
	struct smt_usage_refusal why;
	if (a->usage != NULL && !smt_usage_charge(a->usage, SMT_RES_MEMORY, n, &why)) {
		smt_usage_describe(&why, a->refused, sizeof(a->refused));
		*f = (struct smt_fault){ SMT_ERROR_LIMIT, 0xffff, offset, a->refused, UINT32_MAX };
		return -1;
	}
	a->charged += n;
	return 0;
}

/* The reader's translation of its faults' positions (submit_area_create). */
static uint64_t client_offset_of(const void *area, uint64_t pos)
{
	return submit_area_client_offset(area, pos);
}

static uint8_t *area_alloc(uint32_t area_size)
{
	uint8_t *mem = aligned_alloc(
			SMT_RING_HEADER_SIZE, SMT_RING_HEADER_SIZE + (size_t)area_size);
	if (mem != NULL)
		memset(mem, 0, SMT_RING_HEADER_SIZE);
	return mem;
}

struct submit_area *submit_area_create(
		struct smt_ring_reader *r, struct smt_usage *usage, struct smt_usage_refusal *why)
{
	struct submit_area *a = calloc(1, sizeof(*a));
	if (a == NULL)
		return NULL;
	a->area_size = SMT_RING_AREA_MIN;
	uint64_t size = SMT_RING_HEADER_SIZE + (uint64_t)a->area_size;
	if (usage != NULL && !smt_usage_charge(usage, SMT_RES_MEMORY, size, why)) {
		free(a);
		return NULL;
	}
	a->usage = usage;
	a->charged = size;
	a->mem = area_alloc(a->area_size);
	if (a->mem == NULL ||
			smt_ring_reader_init(r, a->mem, (size_t)size, a->area_size, &a->status) !=
					0) {
		if (usage != NULL)
			smt_usage_release(usage, SMT_RES_MEMORY, size);
		free(a->mem);
		free(a);
		return NULL;
	}
	smt_ring_writer_init(&a->writer, (struct smt_ring_header *)a->mem, &a->status, &a->global,
			a->mem + SMT_RING_HEADER_SIZE, a->area_size);
	smt_ring_reader_show_offsets(r, client_offset_of, a);
	return a;
}

void submit_area_destroy(struct submit_area *a, struct smt_ring_reader *r)
{
	smt_ring_reader_fini(r);
	if (a == NULL)
		return;
	if (a->usage != NULL)
		smt_usage_release(a->usage, SMT_RES_MEMORY, a->charged);
	free(a->mem);
	free(a->partial);
	free(a);
}

/* Twice the area, the waiting bytes at the same stream positions: a
 * command that did not cross a multiple of the old size crosses no
 * multiple of the new one, so the reader finds every command whole (the
 * old PADs stay, as PADs in the middle of the area). */
static int grow(struct submit_area *a, struct smt_ring_reader *r, uint64_t offset,
		struct smt_fault *f)
{
	uint32_t old_size = a->area_size, new_size = old_size * 2;
	if (charge(a, new_size - old_size, offset, f) < 0)
		return -1;
	uint8_t *mem = area_alloc(new_size);
	if (mem == NULL) {
		if (a->usage != NULL)
			smt_usage_release(a->usage, SMT_RES_MEMORY, new_size - old_size);
		a->charged -= new_size - old_size;
		*f = (struct smt_fault){ SMT_ERROR_NO_MEMORY, 0xffff, offset, "out of memory",
			UINT32_MAX };
		return -1;
	}
	const uint8_t *old_area = a->mem + SMT_RING_HEADER_SIZE;
	uint8_t *new_area = mem + SMT_RING_HEADER_SIZE;
	memcpy(mem, a->mem, sizeof(struct smt_ring_header));
	uint64_t tail = r->tail, head = a->writer.head;
	uint32_t n = (uint32_t)(head - tail);
	uint32_t off = (uint32_t)(tail & (old_size - 1));
	uint32_t first = old_size - off < n ? old_size - off : n;
	smt_stream_copy_in(new_area, new_size, tail, old_area + off, first);
	smt_stream_copy_in(new_area, new_size, tail + first, old_area, n - first);
	free(a->mem);
	a->mem = mem;
	a->area_size = new_size;
	a->writer.hdr = (struct smt_ring_header *)mem;
	a->writer.area = new_area;
	a->writer.area_size = new_size;
	smt_ring_reader_move_area(r, mem, new_size);
	return 0;
}

/* The PADs the reader has passed leave the list (and the bound). */
static void pop_passed(struct submit_area *a, uint64_t tail)
{
	while (a->pads_count > 0 && a->pads[a->pads_first].end <= tail) {
		a->passed_count++;
		a->passed_bytes += a->pads[a->pads_first].size;
		a->pad_bytes_live -= a->pads[a->pads_first].size;
		a->pads_first = (a->pads_first + 1) % PADS_MAX;
		a->pads_count--;
	}
}

/* Room for a command of size bytes (the bound was checked), growing the
 * area when the writer finds none; NULL with *f if it cannot grow. */
static void *reserve(struct submit_area *a, struct smt_ring_reader *r, uint32_t size,
		uint64_t offset, struct smt_fault *f)
{
	for (;;) {
		uint64_t need, before = a->writer.head;
		void *at = size <= smt_ring_writer_max_cmd(&a->writer) ?
				smt_ring_writer_reserve(&a->writer, size, &need) :
				NULL;
		if (at != NULL) {
			if (a->writer.head != before) {
				/* A PAD up to the end of the area, just before the command. */
				assert(a->pads_count < PADS_MAX);
				uint32_t i = (a->pads_first + a->pads_count++) % PADS_MAX;
				a->pads[i].end = a->writer.head;
				a->pads[i].size = (uint32_t)(a->writer.head - before);
				a->pad_bytes_live += a->pads[i].size;
			}
			return at;
		}
		if (a->area_size >= AREA_MAX) {
			/* Cannot happen within the bound (AREA_MAX's comment). */
			*f = (struct smt_fault){ SMT_ERROR_LIMIT, 0xffff, offset,
				"submit queue full", UINT32_MAX };
			return NULL;
		}
		if (grow(a, r, offset, f) < 0)
			return NULL;
	}
}

size_t submit_area_pending(const struct submit_area *a, const struct smt_ring_reader *r)
{
	/* PADs the reader passed but pop_passed has not seen are behind the
	 * tail: only those still ahead count. */
	uint64_t pads = a->pad_bytes_live;
	for (uint32_t k = 0; k < a->pads_count; k++) {
		uint32_t i = (a->pads_first + k) % PADS_MAX;
		if (a->pads[i].end <= r->tail)
			pads -= a->pads[i].size;
	}
	return (size_t)(a->writer.head - r->tail - pads);
}

void submit_area_pads_passed(struct submit_area *a, const struct smt_ring_reader *r,
		uint64_t *count, uint64_t *bytes)
{
	pop_passed(a, r->tail);
	*count = a->passed_count - a->reported_count;
	*bytes = a->passed_bytes - a->reported_bytes;
	a->reported_count = a->passed_count;
	a->reported_bytes = a->passed_bytes;
}

uint64_t submit_area_client_offset(const struct submit_area *a, uint64_t pos)
{
	uint64_t pads = a->passed_bytes;
	for (uint32_t k = 0; k < a->pads_count; k++) {
		uint32_t i = (a->pads_first + k) % PADS_MAX;
		if (a->pads[i].end <= pos)
			pads += a->pads[i].size;
	}
	return pos - pads;
}

static int fault(struct smt_fault *f, uint32_t code, uint16_t opcode, uint64_t offset,
		const char *what)
{
	*f = (struct smt_fault){ code, opcode, offset, what, UINT32_MAX };
	return -1;
}

/* Copies len bytes of `commands` whole, checked commands into the area
 * and publishes them; end is the client's offset of the first. Most
 * submits fit before the area's end and go in one copy without a walk
 * (a NOOP is 8 bytes: each walk over them costs as much as running them);
 * only where the area wraps are the commands walked to find the last one
 * that fits. */
static int copy_in(struct submit_area *a, struct smt_ring_reader *r, const uint8_t *in, size_t len,
		uint32_t commands, uint64_t end, struct smt_fault *f)
{
	if (submit_area_pending(a, r) + len > SMT_SUBMIT_QUEUE_MAX)
		return fault(f, SMT_ERROR_LIMIT, 0xffff, end, "submit queue full");
	for (size_t off = 0; off < len;) {
		struct smt_cmd_header h;
		memcpy(&h, in + off, sizeof(h));
		void *at = reserve(a, r, h.size, end + off, f);
		if (at == NULL)
			return -1;
		uint32_t room = smt_ring_writer_room(&a->writer, (uint32_t)(len - off));
		uint32_t bytes = h.size, count = 1;
		if (room >= len - off) {
			bytes = (uint32_t)(len - off);
			count = commands;
		} else {
			while (off + bytes < len) {
				memcpy(&h, in + off + bytes, sizeof(h));
				if (h.size > room - bytes)
					break;
				bytes += h.size;
				count++;
			}
		}
		memcpy(at, in + off, bytes);
		smt_ring_writer_commit_many(&a->writer, bytes, count);
		commands -= count;
		off += bytes;
	}
	/* The one store of head for these commands: the reader's next batch
	 * sees them all (nobody sleeps on it: the global page is private). */
	smt_ring_writer_publish(&a->writer);
	return 0;
}

/* Where the one walk over a submit's bytes stopped (frame). */
struct framing {
	size_t whole;      /* bytes of the whole commands at the start */
	uint32_t commands; /* their count */
	bool bad;          /* stopped at a header no command can have */
};

/* The one walk over submitted bytes, for both entry points: the whole
 * commands at the start of buf, up to the end of the bytes, a command they
 * end inside, or a header no command can have (size 0, not a multiple of
 * 8, above SMT_SUBMIT_QUEUE_MAX). It only counts: every instruction here
 * is paid per command, and a NOOP is 8 bytes (extra walks on this path
 * cost -noop 21% once). framing_fault names where it stopped. */
static struct framing frame(const uint8_t *buf, size_t len)
{
	struct framing fr = { 0, 0, false };
	while (len - fr.whole >= sizeof(struct smt_cmd_header)) {
		uint32_t size;
		memcpy(&size, buf + fr.whole + offsetof(struct smt_cmd_header, size), sizeof(size));
		if (size < sizeof(struct smt_cmd_header) || size % 8 != 0 ||
				size > SMT_SUBMIT_QUEUE_MAX) {
			fr.bad = true;
			break;
		}
		if (size > len - fr.whole)
			break;
		fr.whole += size;
		fr.commands++;
	}
	return fr;
}

/* The fault of the command frame stopped at, before the end of the len
 * bytes of buf (the header is read again: once, only on a fault); base is
 * the client's offset of buf[0]. Always -1. */
static int framing_fault(const uint8_t *buf, size_t len, const struct framing *fr, uint64_t base,
		struct smt_fault *f)
{
	uint64_t at = base + fr->whole;
	if (len - fr->whole < sizeof(struct smt_cmd_header))
		return fault(f, SMT_ERROR_TRUNCATED, 0xffff, at,
				"submit ends inside a command header");
	struct smt_cmd_header h;
	memcpy(&h, buf + fr->whole, sizeof(h));
	if (h.size == 0)
		return fault(f, SMT_ERROR_BAD_SIZE, h.opcode, at, "size 0");
	if (h.size % 8 != 0)
		return fault(f, SMT_ERROR_BAD_SIZE, h.opcode, at, "size not a multiple of 8");
	if (h.size > SMT_SUBMIT_QUEUE_MAX)
		return fault(f, SMT_ERROR_TOO_LARGE, h.opcode, at,
				"command larger than SMT_SUBMIT_QUEUE_MAX");
	return fault(f, SMT_ERROR_TRUNCATED, h.opcode, at, "command spans submits");
}

/* The client's offset of the next byte written: what it submitted before,
 * without the PADs the writer added (faults' offsets count so). */
static uint64_t client_head(struct submit_area *a, const struct smt_ring_reader *r)
{
	pop_passed(a, r->tail);
	return submit_area_client_offset(a, a->writer.head);
}

int submit_area_write(struct submit_area *a, struct smt_ring_reader *r, const void *bytes,
		size_t len, struct smt_fault *f)
{
	/* The bytes hold whole commands, never part of one. */
	struct framing fr = frame(bytes, len);
	if (fr.whole < len)
		return framing_fault(bytes, len, &fr, client_head(a, r), f);
	if (len == 0)
		return 0;
	return copy_in(a, r, bytes, len, fr.commands, client_head(a, r), f);
}

/* The partial buffer holds at least need bytes (charged first). */
static enum submit_result grow_partial(struct submit_area *a, size_t need, struct smt_fault *f)
{
	if (need <= a->partial_cap)
		return SUBMIT_OK;
	if (charge(a, need - a->partial_cap, submit_area_client_offset(a, a->writer.head), f) < 0)
		return SUBMIT_FAULT;
	uint8_t *grown = realloc(a->partial, need);
	if (grown == NULL) {
		if (a->usage != NULL)
			smt_usage_release(a->usage, SMT_RES_MEMORY, need - a->partial_cap);
		a->charged -= need - a->partial_cap;
		return SUBMIT_NO_MEMORY;
	}
	a->partial = grown;
	a->partial_cap = need;
	return SUBMIT_OK;
}

enum submit_result submit_area_submit(struct submit_area *a, struct smt_ring_reader *r,
		const void *bytes, size_t len, struct smt_fault *f)
{
	const uint8_t *in = bytes;
	if (a->partial_len + len > SMT_SUBMIT_PARTIAL_MAX)
		return SUBMIT_TOO_MUCH;
	if (a->partial_len > 0) {
		/* Complete the waiting command first: copy behind it. */
		enum submit_result grown = grow_partial(a, a->partial_len + len, f);
		if (grown != SUBMIT_OK)
			return grown;
		memcpy(a->partial + a->partial_len, in, len);
		a->partial_len += len;
		in = a->partial;
		len = a->partial_len;
	}
	/* Whole commands go straight from the request into the area; room
	 * for the rest first, so that nothing is published on a refusal. */
	struct framing fr = frame(in, len);
	if (fr.bad) {
		framing_fault(in, len, &fr, client_head(a, r), f);
		return SUBMIT_FAULT;
	}
	size_t rest = len - fr.whole;
	if (in != a->partial) {
		enum submit_result grown = grow_partial(a, rest, f);
		if (grown != SUBMIT_OK)
			return grown;
	}
	/* Framed once, above: copied without a second walk. */
	if (fr.whole > 0 && copy_in(a, r, in, fr.whole, fr.commands, client_head(a, r), f) < 0)
		return SUBMIT_FAULT;
	if (rest > 0) /* (no buffer yet while nothing waited) */
		memmove(a->partial, in + fr.whole, rest);
	a->partial_len = rest;
	return SUBMIT_OK;
}

/*
 * smt-ring-client.h — the client's half of the smtwc command ring: command
 * encoders, ring-space arithmetic, and the publish/wait helpers that carry
 * out the memory order smt-ring.h states. The contract itself (layouts,
 * opcodes, memory order) is smt-ring.h; nothing here adds to it, so a
 * client may write its own encoders from that header alone.
 *
 * The server never includes this file: it decodes from its own private
 * copies (compositor/exec/ring_reader.c, command_decode.c).
 */
#ifndef SMT_RING_CLIENT_H
#define SMT_RING_CLIENT_H

#include "protocol/smt-ring.h"

/* ---- encoding helpers ---------------------------------------------------- */

/* Size of a command with a fixed part and n array elements, or 0 if it
 * would exceed SMT_CMD_CONTROL_MAX (split the array over several commands). */
static inline uint32_t smt_cmd_array_size(size_t fixed, uint64_t n, size_t elem)
{
	if (n > SMT_CMD_CONTROL_MAX / elem)
		return 0;
	uint64_t s = smt_align8(fixed + n * elem);
	return s > SMT_CMD_CONTROL_MAX ? 0 : (uint32_t)s;
}

/* Size of an inline PUT_IMAGE, or 0 if stride * height overflows 32 bits.
 * Images larger than half the area must use PUT_IMAGE_POOL instead. */
static inline uint32_t smt_cmd_put_image_size(uint32_t stride, uint32_t height)
{
	uint64_t s = smt_align8(sizeof(struct smt_cmd_put_image) + (uint64_t)stride * height);
	return s > UINT32_MAX ? 0 : (uint32_t)s;
}

static inline struct smt_cmd_header smt_cmd_hdr(uint16_t opcode, uint32_t size)
{
	struct smt_cmd_header h = { opcode, 0, size };
	return h;
}

/* Write fixed part + array + zero padding; returns the size written.
 * dst must have room for `size` bytes (from smt_cmd_array_size). */
static inline uint32_t smt_encode_array(
		void *dst, const void *fixed, size_t fixed_len, const void *array, size_t array_len)
{
	uint8_t *p = (uint8_t *)dst;
	uint32_t size = (uint32_t)smt_align8(fixed_len + array_len);
	memcpy(p, fixed, fixed_len);
	if (array_len)
		memcpy(p + fixed_len, array, array_len);
	memset(p + fixed_len + array_len, 0, size - fixed_len - array_len);
	memcpy(p + 4, &size, sizeof(size)); /* smt_cmd_header.size */
	return size;
}

static inline uint32_t smt_encode_noop(void *dst, uint16_t opcode, uint32_t size)
{
	struct smt_cmd_header h = smt_cmd_hdr(opcode, size); /* NOOP or PAD */
	memcpy(dst, &h, sizeof(h));
	return size;
}
static inline uint32_t smt_encode_create_pixmap(
		void *dst, uint32_t id, uint32_t w, uint32_t h, uint32_t format)
{
	struct smt_cmd_create_pixmap c = { smt_cmd_hdr(SMT_OP_CREATE_PIXMAP, 0), id, w, h, format };
	return smt_encode_array(dst, &c, sizeof(c), NULL, 0);
}
static inline uint32_t smt_encode_free_pixmap(void *dst, uint32_t id)
{
	struct smt_cmd_free_pixmap c = { smt_cmd_hdr(SMT_OP_FREE_PIXMAP, 0), id, 0 };
	return smt_encode_array(dst, &c, sizeof(c), NULL, 0);
}
static inline uint32_t smt_encode_set_target(void *dst, uint32_t id)
{
	struct smt_cmd_set_target c = { smt_cmd_hdr(SMT_OP_SET_TARGET, 0), id, 0 };
	return smt_encode_array(dst, &c, sizeof(c), NULL, 0);
}
static inline uint32_t smt_encode_set_clip(void *dst, uint32_t n, const struct smt_rect *r)
{
	struct smt_cmd_set_clip c = { smt_cmd_hdr(SMT_OP_SET_CLIP, 0), n, 0 };
	return smt_encode_array(dst, &c, sizeof(c), r, (size_t)n * sizeof(*r));
}
static inline uint32_t smt_encode_fill_rects(
		void *dst, uint32_t op, uint32_t colour, uint32_t n, const struct smt_rect *r)
{
	struct smt_cmd_fill_rects c = { smt_cmd_hdr(SMT_OP_FILL_RECTS, 0), op, colour, n, 0 };
	return smt_encode_array(dst, &c, sizeof(c), r, (size_t)n * sizeof(*r));
}
static inline uint32_t smt_encode_points(
		void *dst, uint32_t op, uint32_t colour, uint32_t n, const struct smt_point *p)
{
	struct smt_cmd_points c = { smt_cmd_hdr(SMT_OP_POINTS, 0), op, colour, n, 0 };
	return smt_encode_array(dst, &c, sizeof(c), p, (size_t)n * sizeof(*p));
}
static inline uint32_t smt_encode_segments(void *dst, uint32_t op, uint32_t colour,
		uint32_t line_width, uint32_t n, const struct smt_segment *s)
{
	struct smt_cmd_segments c = { smt_cmd_hdr(SMT_OP_SEGMENTS, 0), op, colour, line_width, n };
	return smt_encode_array(dst, &c, sizeof(c), s, (size_t)n * sizeof(*s));
}
/* pixels: height rows of `stride` bytes (stride % 4 == 0). */
static inline uint32_t smt_encode_put_image(void *dst, int32_t x, int32_t y, uint32_t w, uint32_t h,
		uint32_t format, uint32_t stride, const void *pixels)
{
	struct smt_cmd_put_image c = { smt_cmd_hdr(SMT_OP_PUT_IMAGE, 0), x, y, w, h, format,
		stride };
	return smt_encode_array(dst, &c, sizeof(c), pixels, (size_t)stride * h);
}
static inline uint32_t smt_encode_put_image_pool(void *dst, uint32_t pool_id, uint64_t offset,
		uint32_t stride, uint32_t w, uint32_t h, uint32_t format, int32_t x, int32_t y)
{
	struct smt_cmd_put_image_pool c = { smt_cmd_hdr(SMT_OP_PUT_IMAGE_POOL, 0), pool_id, format,
		offset, stride, w, h, x, y, 0 };
	return smt_encode_array(dst, &c, sizeof(c), NULL, 0);
}
static inline uint32_t smt_encode_copy_area(void *dst, uint32_t src_id, int32_t sx, int32_t sy,
		uint32_t w, uint32_t h, int32_t dx, int32_t dy)
{
	struct smt_cmd_copy_area c = { smt_cmd_hdr(SMT_OP_COPY_AREA, 0), src_id, sx, sy, w, h, dx,
		dy, 0 };
	return smt_encode_array(dst, &c, sizeof(c), NULL, 0);
}
static inline uint32_t smt_encode_composite(void *dst, uint32_t op, uint32_t src_id,
		uint32_t mask_id, int32_t sx, int32_t sy, int32_t mx, int32_t my, int32_t dx,
		int32_t dy, uint32_t w, uint32_t h)
{
	struct smt_cmd_composite c = { smt_cmd_hdr(SMT_OP_COMPOSITE, 0), op, src_id, mask_id, sx,
		sy, mx, my, dx, dy, w, h, 0 };
	return smt_encode_array(dst, &c, sizeof(c), NULL, 0);
}
static inline uint32_t smt_encode_glyphs(void *dst, uint32_t op, uint32_t colour, uint32_t atlas_id,
		int32_t ox, int32_t oy, uint32_t n, const struct smt_glyph *g)
{
	struct smt_cmd_glyphs c = { smt_cmd_hdr(SMT_OP_GLYPHS, 0), op, colour, atlas_id, n, ox,
		oy };
	return smt_encode_array(dst, &c, sizeof(c), g, (size_t)n * sizeof(*g));
}
static inline uint32_t smt_encode_present(void *dst, uint32_t canvas_id, uint32_t serial,
		uint32_t n, const struct smt_rect *damage)
{
	struct smt_cmd_present c = { smt_cmd_hdr(SMT_OP_PRESENT, 0), canvas_id, serial, n, 0 };
	return smt_encode_array(dst, &c, sizeof(c), damage, (size_t)n * sizeof(*damage));
}
static inline uint32_t smt_encode_fence(void *dst, uint64_t serial)
{
	struct smt_cmd_fence c = { smt_cmd_hdr(SMT_OP_FENCE, 0), serial };
	return smt_encode_array(dst, &c, sizeof(c), NULL, 0);
}

/* ---- ring space and publishing ------------------------------------------ */
/*
 * To append a command of `size` bytes (8-aligned, <= area_size / 2):
 *   pad = smt_ring_pad_needed(head, area, size);
 *   wait until smt_ring_space(head, tail, area) >= pad + size
 *        (smt_ring_client_begin_wait(..., head + pad + size - area));
 *   if pad: smt_encode_noop(smt_ring_at(area_ptr, area, head), SMT_OP_PAD, pad), head += pad;
 *   encode at smt_ring_at(area_ptr, area, head); head += size;
 *   smt_ring_client_publish() once per batch of commands.
 */
static inline uint64_t smt_ring_space(uint64_t head, uint64_t tail, uint32_t area_size)
{
	return (uint64_t)area_size - (head - tail);
}
static inline uint32_t smt_ring_pad_needed(uint64_t head, uint32_t area_size, uint32_t size)
{
	uint32_t contig = area_size - (uint32_t)(head & (area_size - 1u));
	return size <= contig ? 0u : contig;
}
static inline void *smt_ring_at(void *area, uint32_t area_size, uint64_t pos)
{
	return (uint8_t *)area + (pos & (area_size - 1u));
}

/* Publish new_head; returns true if the client must write the server's
 * eventfd (and then bump hdr->wakeups_sent). */
static inline bool smt_ring_client_publish(struct smt_ring_header *hdr,
		const struct smt_global_status *global, uint64_t new_head)
{
	atomic_store_explicit(&hdr->head, new_head, memory_order_release);
	atomic_thread_fence(memory_order_seq_cst);
	return atomic_load_explicit(&((struct smt_global_status *)global)->server_asleep,
			       memory_order_relaxed) != 0;
}

/* Announce that the client waits for tail >= need_tail. Returns true if it
 * must now poll its eventfd; false if the condition already holds or the
 * ring is dead (the flag is cleared again in that case). After waking call
 * smt_ring_client_end_wait() and re-check. */
static inline bool smt_ring_client_begin_wait(struct smt_ring_header *hdr,
		const struct smt_ring_status *status, uint64_t need_tail)
{
	struct smt_ring_status *s = (struct smt_ring_status *)status;
	atomic_store_explicit(&hdr->wait_tail, need_tail, memory_order_relaxed);
	atomic_store_explicit(&hdr->flags, SMT_CLIENT_WAITING, memory_order_release);
	atomic_thread_fence(memory_order_seq_cst);
	uint64_t tail = atomic_load_explicit(&s->tail, memory_order_acquire);
	uint32_t dead = atomic_load_explicit(&s->flags, memory_order_acquire) & SMT_SERVER_DEAD;
	if ((int64_t)(tail - need_tail) >= 0 || dead) {
		atomic_store_explicit(&hdr->flags, 0, memory_order_relaxed);
		return false;
	}
	return true;
}
static inline void smt_ring_client_end_wait(struct smt_ring_header *hdr)
{
	atomic_store_explicit(&hdr->flags, 0, memory_order_relaxed);
}

/* ---- byte-stream mode (see smt-ring.h) --------------------------------- */

/* Copies n <= space bytes in at stream position head, wrapping as
 * smt_stream_copy_out() reads them. */
static inline void smt_stream_copy_in(
		void *area, uint32_t area_size, uint64_t head, const void *src, uint32_t n)
{
	uint32_t off = (uint32_t)(head & (area_size - 1u));
	uint32_t first = area_size - off < n ? area_size - off : n;
	memcpy((uint8_t *)area + off, src, first);
	memcpy(area, (const uint8_t *)src + first, n - first);
}

#endif /* SMT_RING_CLIENT_H */

/*
 * smt-ring.h — the shared-memory ABI of the smtwc command ring, version 1.
 *
 * Included by the compositor and by clients. C11, freestanding apart from
 * the standard headers below. Everything here is a contract: layouts are
 * pinned with static_asserts; changing one is a protocol version bump.
 *
 * Memory objects (all created as memfds, sealed against shrinking):
 *
 *   ring      client-created: one 4096-byte smt_ring_header page followed by
 *             a power-of-two command area. The CLIENT writes all of it; the
 *             server maps it read-only and never writes it.
 *   status    server-created, one per ring: struct smt_ring_status. The
 *             SERVER writes it; the client maps it read-only.
 *   global    server-created, one per compositor: struct smt_global_status,
 *             read-only to every client (the server-asleep flag).
 *
 * Positions (head, tail, wait_tail) are 64-bit byte counts since the ring
 * was created; they never wrap in practice. A position p lives at area
 * offset p & (area_size - 1).
 *
 * Memory order (liburing style; "F" is atomic_thread_fence(seq_cst)):
 *
 *   client submit:   write command bytes (plain stores)
 *                    store_release(hdr.head, new_head)
 *                    F
 *                    if load_relaxed(global.server_asleep): write server eventfd
 *   server sleep:    store_relaxed(global.server_asleep, 1), generation++
 *                    F
 *                    for each ring: if load_acquire(hdr.head) != tail:
 *                        store_relaxed(global.server_asleep, 0), run it
 *                    else epoll_wait; on wake store_relaxed(asleep, 0)
 *   server batch:    head = load_acquire(hdr.head)          (ONCE per batch)
 *                    ... validate, copy out, execute ...
 *                    store_release(status.tail, tail)
 *                    F                                      (liburing #541)
 *                    if load_acquire(hdr.flags) & WAITING and
 *                       tail >= load_relaxed(hdr.wait_tail): write client eventfd
 *   client wait:     store_relaxed(hdr.wait_tail, need)
 *                    store_release(hdr.flags, WAITING)
 *                    F
 *                    if load_acquire(status.tail) >= need or DEAD: clear, go on
 *                    else poll(client eventfd, wayland fd); clear; re-check
 *   server error:    store_relaxed(status.error_*), store_release(status.flags, DEAD)
 *   client error:    if load_acquire(status.flags) & DEAD: read status.error_*
 *
 * The two F fences form Dekker's pattern: at least one side sees the other's
 * store, so a wakeup is never lost. Wakeups may be spurious: always re-check.
 */
#ifndef SMT_RING_H
#define SMT_RING_H

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "smt-ring: payloads are little-endian; big-endian hosts need byte swapping"
#endif

static_assert(ATOMIC_INT_LOCK_FREE == 2, "shared-memory atomics must be lock-free");
static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "shared-memory atomics must be lock-free");
static_assert(sizeof(_Atomic(uint64_t)) == 8, "atomic u64 must be plain 8 bytes");
static_assert(sizeof(_Atomic(uint32_t)) == 4, "atomic u32 must be plain 4 bytes");

#define SMT_RING_VERSION 1u
#define SMT_RING_MAGIC 0x31474e52u          /* "RNG1" */
#define SMT_STATUS_MAGIC 0x31545453u        /* "STT1" */
#define SMT_GLOBAL_MAGIC 0x31424c47u        /* "GLB1" */

#define SMT_RING_HEADER_SIZE 4096u
#define SMT_RING_AREA_MIN (4u * 1024u)
#define SMT_RING_AREA_DEFAULT (256u * 1024u)
#define SMT_RING_AREA_MAX (16u * 1024u * 1024u)
#define SMT_STATUS_MAP_SIZE 4096u           /* status and global pages are mapped whole */
#define SMT_CACHELINE 64u

/* Commands whose bytes the server copies out before decoding (all but
 * NOOP, PAD and PUT_IMAGE's pixels) may not exceed this many bytes. */
#define SMT_CMD_CONTROL_MAX (64u * 1024u)
/* Drawable width/height limit (keeps pixman's 16.16 fixed point exact). */
#define SMT_MAX_DIMENSION 16384u
/* Every coordinate a command names (x, y, x + width, y + height, segment
 * and point coordinates, src/mask/dst positions) must lie in
 * [-SMT_COORD_MAX, SMT_COORD_MAX]; inside that range geometry is clipped to
 * the target, outside it the command is a protocol error. */
#define SMT_COORD_MAX (1 << 28)
#define SMT_MAX_LINE_WIDTH 1024u

/* ---- shared pages ------------------------------------------------------ */

#define SMT_CLIENT_WAITING 0x1u             /* smt_ring_header.flags */
#define SMT_SERVER_DEAD 0x1u                /* smt_ring_status.flags */

/* The ring's first page. Written only by the client; read by the server. */
struct smt_ring_header {
	/* line 0: written once before the fd is handed over. Informational:
	 * the server takes sizes from the create request, never from here. */
	uint32_t magic;                     /* SMT_RING_MAGIC */
	uint32_t version;                   /* SMT_RING_VERSION */
	uint32_t area_size;
	uint32_t header_size;               /* SMT_RING_HEADER_SIZE */
	/* line 1: bytes written. Only store_release after the bytes. */
	_Alignas(64) _Atomic(uint64_t) head;
	/* line 2: the client's wait request (see "client wait" above). */
	_Alignas(64) _Atomic(uint32_t) flags;  /* SMT_CLIENT_WAITING */
	uint32_t reserved0;
	_Atomic(uint64_t) wait_tail;        /* wake me when tail >= this */
	/* line 3: statistics the client publishes (relaxed; untrusted). */
	_Alignas(64) _Atomic(uint64_t) wakeups_sent;   /* server eventfd writes */
	_Atomic(uint64_t) full_waits;       /* times the ring was full */
	_Atomic(uint64_t) commands_written;
	/* stream mode only: fd messages sent on the socket (see below). */
	_Atomic(uint64_t) fd_messages;
	_Atomic(uint64_t) reserved1[4];
	/* the rest of the page is reserved and must be zero */
};
static_assert(offsetof(struct smt_ring_header, magic) == 0, "abi");
static_assert(offsetof(struct smt_ring_header, area_size) == 8, "abi");
static_assert(offsetof(struct smt_ring_header, head) == 64, "abi");
static_assert(offsetof(struct smt_ring_header, flags) == 128, "abi");
static_assert(offsetof(struct smt_ring_header, wait_tail) == 136, "abi");
static_assert(offsetof(struct smt_ring_header, wakeups_sent) == 192, "abi");
static_assert(offsetof(struct smt_ring_header, full_waits) == 200, "abi");
static_assert(offsetof(struct smt_ring_header, commands_written) == 208, "abi");
static_assert(offsetof(struct smt_ring_header, fd_messages) == 216, "abi");
static_assert(sizeof(struct smt_ring_header) == 256, "abi");
static_assert(sizeof(struct smt_ring_header) <= SMT_RING_HEADER_SIZE, "abi");

/* Per-ring server state. Written only by the server; client maps it RO. */
struct smt_ring_status {
	uint32_t magic;                     /* SMT_STATUS_MAGIC */
	uint32_t version;
	/* line 1: bytes consumed; store_release after the commands ran. */
	_Alignas(64) _Atomic(uint64_t) tail;
	/* line 2: death certificate; error_* stored before flags (release). */
	_Alignas(64) _Atomic(uint32_t) flags;  /* SMT_SERVER_DEAD */
	_Atomic(uint32_t) error_code;       /* enum smt_error */
	_Atomic(uint32_t) error_opcode;     /* enum smt_opcode, or 0xffff */
	uint32_t reserved0;
	_Atomic(uint64_t) error_offset;     /* stream position of the command */
	/* line 3: FENCE serial of the last FENCE executed (release). */
	_Alignas(64) _Atomic(uint64_t) completed_fence;
	/* line 4: statistics (relaxed). */
	_Alignas(64) _Atomic(uint64_t) commands_executed;
	_Atomic(uint64_t) bytes_executed;
	_Atomic(uint64_t) wakeups_to_client;   /* client eventfd writes */
	_Atomic(uint64_t) wakeups_from_client; /* server eventfd reads observed */
	_Atomic(uint64_t) reserved1[4];
};
static_assert(offsetof(struct smt_ring_status, tail) == 64, "abi");
static_assert(offsetof(struct smt_ring_status, flags) == 128, "abi");
static_assert(offsetof(struct smt_ring_status, error_code) == 132, "abi");
static_assert(offsetof(struct smt_ring_status, error_opcode) == 136, "abi");
static_assert(offsetof(struct smt_ring_status, error_offset) == 144, "abi");
static_assert(offsetof(struct smt_ring_status, completed_fence) == 192, "abi");
static_assert(offsetof(struct smt_ring_status, commands_executed) == 256, "abi");
static_assert(offsetof(struct smt_ring_status, wakeups_from_client) == 280, "abi");
static_assert(sizeof(struct smt_ring_status) == 320, "abi");
static_assert(sizeof(struct smt_ring_status) <= SMT_STATUS_MAP_SIZE, "abi");

/* One per compositor, read-only to all clients. */
struct smt_global_status {
	uint32_t magic;                     /* SMT_GLOBAL_MAGIC */
	uint32_t version;
	/* 1 while the server is (about to be) blocked in epoll. */
	_Alignas(64) _Atomic(uint32_t) server_asleep;
	/* incremented each time the server sets server_asleep (relaxed). */
	_Atomic(uint32_t) generation;
};
static_assert(offsetof(struct smt_global_status, server_asleep) == 64, "abi");
static_assert(offsetof(struct smt_global_status, generation) == 68, "abi");
static_assert(sizeof(struct smt_global_status) == 128, "abi");

/* ---- errors (status.error_code and the Wayland protocol error) --------- */

enum smt_error {
	SMT_ERROR_NONE = 0,
	SMT_ERROR_BAD_HEAD = 1,      /* head went backwards, past tail + area, or unaligned */
	SMT_ERROR_BAD_SIZE = 2,      /* size 0 or not a multiple of 8 */
	SMT_ERROR_TRUNCATED = 3,     /* size runs past head / the end of a submit */
	SMT_ERROR_WRAP = 4,          /* size runs past the end of the area (missing PAD) */
	SMT_ERROR_TOO_LARGE = 5,     /* > half the area, or > SMT_CMD_CONTROL_MAX */
	SMT_ERROR_BAD_OPCODE = 6,
	SMT_ERROR_BAD_LENGTH = 7,    /* size disagrees with the payload's counts */
	SMT_ERROR_BAD_VALUE = 8,     /* flags/reserved nonzero, bad op, colour, width */
	SMT_ERROR_BAD_GEOMETRY = 9,  /* coordinate outside +-SMT_COORD_MAX */
	SMT_ERROR_BAD_DRAWABLE = 10, /* id 0, unknown, out of table, or wrong kind */
	SMT_ERROR_ID_IN_USE = 11,
	SMT_ERROR_NO_TARGET = 12,
	SMT_ERROR_BAD_FORMAT = 13,   /* unknown format, or mask/atlas not A8 */
	SMT_ERROR_BAD_STRIDE = 14,
	SMT_ERROR_BAD_POOL = 15,
	SMT_ERROR_OUT_OF_BOUNDS = 16,/* pool range or atlas rectangle outside */
	SMT_ERROR_LIMIT = 17,        /* pixmap count, memory or dimension limit */
	SMT_ERROR_NO_MEMORY = 18,    /* the server ran out of memory */
	/* stream mode (X11) */
	SMT_ERROR_BAD_MESSAGE = 19,  /* a socket message that is no fd message */
	SMT_ERROR_TOO_MANY_FDS = 20, /* more fds queued than the server accepts */
	SMT_ERROR_REVERTED = 21,     /* a forked child took the connection back to the socket */
};

/* ---- commands ---------------------------------------------------------- */

enum smt_opcode {
	SMT_OP_NOOP = 0,
	SMT_OP_PAD = 1,              /* skip to the end of the area (never wraps) */
	SMT_OP_CREATE_PIXMAP = 2,
	SMT_OP_FREE_PIXMAP = 3,
	SMT_OP_SET_TARGET = 4,
	SMT_OP_SET_CLIP = 5,
	SMT_OP_FILL_RECTS = 6,
	SMT_OP_POINTS = 7,
	SMT_OP_SEGMENTS = 8,
	SMT_OP_PUT_IMAGE = 9,
	SMT_OP_PUT_IMAGE_POOL = 10,
	SMT_OP_COPY_AREA = 11,
	SMT_OP_COMPOSITE = 12,
	SMT_OP_GLYPHS = 13,
	SMT_OP_PRESENT = 14,
	SMT_OP_FENCE = 15,
	SMT_OP_COUNT
};

enum smt_format {                    /* pixels are host (little-endian) u32/u8 */
	SMT_FORMAT_ARGB8888 = 1,         /* premultiplied */
	SMT_FORMAT_XRGB8888 = 2,
	SMT_FORMAT_A8 = 3,
};

/* Porter-Duff operators; numerically equal to pixman_op_t. */
enum smt_paint_op {
	SMT_PAINT_CLEAR = 0, SMT_PAINT_SRC = 1, SMT_PAINT_DST = 2,
	SMT_PAINT_OVER = 3, SMT_PAINT_OVER_REVERSE = 4, SMT_PAINT_IN = 5,
	SMT_PAINT_IN_REVERSE = 6, SMT_PAINT_OUT = 7, SMT_PAINT_OUT_REVERSE = 8,
	SMT_PAINT_ATOP = 9, SMT_PAINT_ATOP_REVERSE = 10, SMT_PAINT_XOR = 11,
	SMT_PAINT_ADD = 12, SMT_PAINT_SATURATE = 13,
	SMT_PAINT_COUNT
};

/* Colours are 0xAARRGGBB, PREMULTIPLIED (r, g, b <= a): exactly the pixel
 * an ARGB8888 image would hold. Anything else is SMT_ERROR_BAD_VALUE. */

struct smt_cmd_header {
	uint16_t opcode;
	uint16_t flags;                  /* must be 0 in v1 */
	uint32_t size;                   /* whole command, multiple of 8, >= 8 */
};
static_assert(sizeof(struct smt_cmd_header) == 8, "abi");

struct smt_rect { int32_t x, y; uint32_t width, height; };
struct smt_point { int32_t x, y; };
struct smt_segment { int32_t x1, y1, x2, y2; };
struct smt_glyph {
	uint16_t atlas_x, atlas_y, width, height;  /* source rect in the atlas */
	int32_t dst_x, dst_y;                      /* relative to the origin */
};
static_assert(sizeof(struct smt_rect) == 16, "abi");
static_assert(sizeof(struct smt_point) == 8, "abi");
static_assert(sizeof(struct smt_segment) == 16, "abi");
static_assert(sizeof(struct smt_glyph) == 16, "abi");

/* All "reserved" fields must be zero. Arrays follow the fixed part; the
 * command size is exactly smt_align8(fixed + array bytes). */
struct smt_cmd_create_pixmap { struct smt_cmd_header hdr; uint32_t id, width, height, format; };
struct smt_cmd_free_pixmap { struct smt_cmd_header hdr; uint32_t id, reserved; };
struct smt_cmd_set_target { struct smt_cmd_header hdr; uint32_t id, reserved; };
struct smt_cmd_set_clip { struct smt_cmd_header hdr; uint32_t n_rects, reserved; };
struct smt_cmd_fill_rects {
	struct smt_cmd_header hdr; uint32_t op, colour, n_rects, reserved;
};
struct smt_cmd_points {
	struct smt_cmd_header hdr; uint32_t op, colour, n_points, reserved;
};
struct smt_cmd_segments {
	struct smt_cmd_header hdr; uint32_t op, colour, line_width, n_segments;
};
struct smt_cmd_put_image {           /* stride * height pixel bytes follow */
	struct smt_cmd_header hdr;
	int32_t dst_x, dst_y;
	uint32_t width, height, format, stride;
};
struct smt_cmd_put_image_pool {
	struct smt_cmd_header hdr;
	uint32_t pool_id, format;
	uint64_t offset;                 /* of the first pixel in the pool */
	uint32_t stride, width, height;
	int32_t dst_x, dst_y;
	uint32_t reserved;
};
struct smt_cmd_copy_area {
	struct smt_cmd_header hdr;
	uint32_t src_id;
	int32_t src_x, src_y;
	uint32_t width, height;
	int32_t dst_x, dst_y;
	uint32_t reserved;
};
struct smt_cmd_composite {
	struct smt_cmd_header hdr;
	uint32_t op, src_id, mask_id;    /* mask_id 0 = no mask */
	int32_t src_x, src_y, mask_x, mask_y, dst_x, dst_y;
	uint32_t width, height, reserved;
};
struct smt_cmd_glyphs {
	struct smt_cmd_header hdr;
	uint32_t op, colour, atlas_id, n_glyphs;
	int32_t origin_x, origin_y;
};
struct smt_cmd_present {             /* n_rects == 0: the whole canvas */
	struct smt_cmd_header hdr; uint32_t canvas_id, serial, n_rects, reserved;
};
struct smt_cmd_fence { struct smt_cmd_header hdr; uint64_t serial; };

static_assert(sizeof(struct smt_cmd_create_pixmap) == 24, "abi");
static_assert(sizeof(struct smt_cmd_free_pixmap) == 16, "abi");
static_assert(sizeof(struct smt_cmd_set_target) == 16, "abi");
static_assert(sizeof(struct smt_cmd_set_clip) == 16, "abi");
static_assert(sizeof(struct smt_cmd_fill_rects) == 24, "abi");
static_assert(sizeof(struct smt_cmd_points) == 24, "abi");
static_assert(sizeof(struct smt_cmd_segments) == 24, "abi");
static_assert(sizeof(struct smt_cmd_put_image) == 32, "abi");
static_assert(offsetof(struct smt_cmd_put_image_pool, offset) == 16, "abi");
static_assert(offsetof(struct smt_cmd_put_image_pool, dst_y) == 40, "abi");
static_assert(sizeof(struct smt_cmd_put_image_pool) == 48, "abi");
static_assert(offsetof(struct smt_cmd_copy_area, dst_y) == 32, "abi");
static_assert(sizeof(struct smt_cmd_copy_area) == 40, "abi");
static_assert(offsetof(struct smt_cmd_composite, height) == 48, "abi");
static_assert(sizeof(struct smt_cmd_composite) == 56, "abi");
static_assert(sizeof(struct smt_cmd_glyphs) == 32, "abi");
static_assert(sizeof(struct smt_cmd_present) == 24, "abi");
static_assert(offsetof(struct smt_cmd_fence, serial) == 8, "abi");
static_assert(sizeof(struct smt_cmd_fence) == 16, "abi");

/* ---- encoding helpers (client side) ------------------------------------ */

static inline uint64_t smt_align8(uint64_t n) { return (n + 7u) & ~(uint64_t)7u; }

static inline uint32_t smt_format_bpp(uint32_t format)
{
	return format == SMT_FORMAT_A8 ? 8u
	     : (format == SMT_FORMAT_ARGB8888 || format == SMT_FORMAT_XRGB8888) ? 32u : 0u;
}

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
static inline uint32_t smt_encode_array(void *dst, const void *fixed, size_t fixed_len,
					const void *array, size_t array_len)
{
	uint8_t *p = (uint8_t *)dst;
	uint32_t size = (uint32_t)smt_align8(fixed_len + array_len);
	memcpy(p, fixed, fixed_len);
	if (array_len)
		memcpy(p + fixed_len, array, array_len);
	memset(p + fixed_len + array_len, 0, size - fixed_len - array_len);
	memcpy(p + 4, &size, sizeof(size));  /* smt_cmd_header.size */
	return size;
}

static inline uint32_t smt_encode_noop(void *dst, uint16_t opcode, uint32_t size)
{
	struct smt_cmd_header h = smt_cmd_hdr(opcode, size);  /* NOOP or PAD */
	memcpy(dst, &h, sizeof(h));
	return size;
}
static inline uint32_t smt_encode_create_pixmap(void *dst, uint32_t id, uint32_t w,
						uint32_t h, uint32_t format)
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
static inline uint32_t smt_encode_fill_rects(void *dst, uint32_t op, uint32_t colour,
					     uint32_t n, const struct smt_rect *r)
{
	struct smt_cmd_fill_rects c = { smt_cmd_hdr(SMT_OP_FILL_RECTS, 0), op, colour, n, 0 };
	return smt_encode_array(dst, &c, sizeof(c), r, (size_t)n * sizeof(*r));
}
static inline uint32_t smt_encode_points(void *dst, uint32_t op, uint32_t colour,
					 uint32_t n, const struct smt_point *p)
{
	struct smt_cmd_points c = { smt_cmd_hdr(SMT_OP_POINTS, 0), op, colour, n, 0 };
	return smt_encode_array(dst, &c, sizeof(c), p, (size_t)n * sizeof(*p));
}
static inline uint32_t smt_encode_segments(void *dst, uint32_t op, uint32_t colour,
					   uint32_t line_width, uint32_t n,
					   const struct smt_segment *s)
{
	struct smt_cmd_segments c = { smt_cmd_hdr(SMT_OP_SEGMENTS, 0), op, colour, line_width, n };
	return smt_encode_array(dst, &c, sizeof(c), s, (size_t)n * sizeof(*s));
}
/* pixels: height rows of `stride` bytes (stride % 4 == 0). */
static inline uint32_t smt_encode_put_image(void *dst, int32_t x, int32_t y, uint32_t w,
					    uint32_t h, uint32_t format, uint32_t stride,
					    const void *pixels)
{
	struct smt_cmd_put_image c = { smt_cmd_hdr(SMT_OP_PUT_IMAGE, 0), x, y, w, h, format, stride };
	return smt_encode_array(dst, &c, sizeof(c), pixels, (size_t)stride * h);
}
static inline uint32_t smt_encode_put_image_pool(void *dst, uint32_t pool_id, uint64_t offset,
						 uint32_t stride, uint32_t w, uint32_t h,
						 uint32_t format, int32_t x, int32_t y)
{
	struct smt_cmd_put_image_pool c = { smt_cmd_hdr(SMT_OP_PUT_IMAGE_POOL, 0), pool_id,
					    format, offset, stride, w, h, x, y, 0 };
	return smt_encode_array(dst, &c, sizeof(c), NULL, 0);
}
static inline uint32_t smt_encode_copy_area(void *dst, uint32_t src_id, int32_t sx, int32_t sy,
					    uint32_t w, uint32_t h, int32_t dx, int32_t dy)
{
	struct smt_cmd_copy_area c = { smt_cmd_hdr(SMT_OP_COPY_AREA, 0), src_id, sx, sy, w, h,
				       dx, dy, 0 };
	return smt_encode_array(dst, &c, sizeof(c), NULL, 0);
}
static inline uint32_t smt_encode_composite(void *dst, uint32_t op, uint32_t src_id,
					    uint32_t mask_id, int32_t sx, int32_t sy,
					    int32_t mx, int32_t my, int32_t dx, int32_t dy,
					    uint32_t w, uint32_t h)
{
	struct smt_cmd_composite c = { smt_cmd_hdr(SMT_OP_COMPOSITE, 0), op, src_id, mask_id,
				       sx, sy, mx, my, dx, dy, w, h, 0 };
	return smt_encode_array(dst, &c, sizeof(c), NULL, 0);
}
static inline uint32_t smt_encode_glyphs(void *dst, uint32_t op, uint32_t colour,
					 uint32_t atlas_id, int32_t ox, int32_t oy,
					 uint32_t n, const struct smt_glyph *g)
{
	struct smt_cmd_glyphs c = { smt_cmd_hdr(SMT_OP_GLYPHS, 0), op, colour, atlas_id, n, ox, oy };
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

/* ---- ring space (client side) ------------------------------------------ */
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
					   const struct smt_global_status *global,
					   uint64_t new_head)
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
					      const struct smt_ring_status *status,
					      uint64_t need_tail)
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

/* ---- byte-stream mode: X11 requests through the ring -------------------- */
/*
 * The same ring, status and global pages carry an X client's request byte
 * stream into the X server (seed 000's SMT). Differences from command mode:
 *
 *   - smt_ring_header.magic is SMT_STREAM_MAGIC; the area holds raw X bytes,
 *     exactly what the client would have written to its socket, and they DO
 *     wrap: position p is at area offset p & (area_size - 1), a read may take
 *     two pieces. No commands, no PAD, no alignment.
 *   - head/tail/wait_tail, WAITING, server_asleep and every fence are as
 *     above. status.commands_executed counts X requests the server parsed,
 *     bytes_executed the bytes it consumed; header.commands_written counts
 *     requests the client wrote (both informational).
 *   - Replies, events and errors stay on the socket. The socket carries, from
 *     client to server, only smt_stream_fd_msg messages after the handshake.
 *   - Wake-ups: the client writes the server eventfd it created (the server
 *     never reads it: it is registered edge-triggered, so a client cannot
 *     make the server block on it). The server wakes a WAITING client with
 *     one byte on a socketpair it created (send with MSG_DONTWAIT: per call,
 *     so the client cannot make that send block by clearing O_NONBLOCK on a
 *     shared file description, as it could on an eventfd).
 *
 * Handshake, on a freshly connected X socket before any X byte:
 *   client -> server   struct smt_stream_hello, SCM_RIGHTS {ring memfd,
 *                      server eventfd}. Its first byte is 0, which no X
 *                      client sends first ('B' or 'l'), so a server without
 *                      the stream half rejects it as a bad byte order; the
 *                      client therefore sends it only after finding the
 *                      server's discovery socket (SMT_STREAM_DISCOVERY).
 *   server -> client   struct smt_stream_ack; if result == 0 with SCM_RIGHTS
 *                      {status memfd, global memfd, wake socket}, and every
 *                      later client byte goes through the ring. Otherwise
 *                      the connection stays on the socket (silent fallback).
 *
 * Fds that ride with requests (MIT-SHM AttachFd, DRI3, Present): before
 * publishing the bytes that need them, the client sends one smt_stream_fd_msg
 * with the fds as SCM_RIGHTS, then increments header.fd_messages, then
 * publishes head. The server loads head, THEN compares fd_messages with what
 * it has received and drains the socket; so fds are always queued in the X
 * server before the request that takes them is parsed.
 *
 * Discovery: an abstract unix socket named SMT_STREAM_DISCOVERY followed by
 * the decimal pid that SO_PEERCRED reports for the X socket (the process that
 * listen()ed on it: the compositor for its Xwayland). The client only
 * connects and hangs up: a socket there means "this X server reads rings".
 * Statistics (smt-x11run --stats): SMT_STREAM_DISCOVERY "stats-" <pid>, bound
 * by the X server, writes one line per X connection to whoever connects.
 */
#define SMT_STREAM_MAGIC 0x53474e52u        /* "RNGS": header.magic in stream mode */
#define SMT_STREAM_HELLO_MAGIC 0x31485853u  /* "SXH1" */
#define SMT_STREAM_ACK_MAGIC 0x31415853u    /* "SXA1" */
#define SMT_STREAM_FD_MAGIC 0x31465853u     /* "SXF1" */
#define SMT_STREAM_DISCOVERY "smtwc-x11ring-"
/* Most fds one smt_stream_fd_msg may carry, and that the server holds for a
 * connection before the X server has taken them. */
#define SMT_STREAM_MAX_FDS 16u

struct smt_stream_hello {
	uint8_t zero;                       /* 0: never a valid first X byte */
	uint8_t pad[3];
	uint32_t magic;                     /* SMT_STREAM_HELLO_MAGIC */
	uint32_t version;                   /* SMT_RING_VERSION */
	uint32_t area_size;                 /* power of two, AREA_MIN..AREA_MAX */
};
static_assert(sizeof(struct smt_stream_hello) == 16, "abi");

enum smt_stream_result {
	SMT_STREAM_OK = 0,
	SMT_STREAM_REFUSED_VERSION = 1,
	SMT_STREAM_REFUSED_MEMFD = 2,       /* not a sealed memfd of the declared size */
	SMT_STREAM_REFUSED_EVENTFD = 3,
	SMT_STREAM_REFUSED_LIMIT = 4,       /* too many rings in this server */
	SMT_STREAM_REFUSED_SERVER = 5,      /* the server could not set up its side */
};

struct smt_stream_ack {
	uint32_t magic;                     /* SMT_STREAM_ACK_MAGIC */
	uint32_t version;
	uint32_t result;                    /* enum smt_stream_result */
	uint32_t reserved;
};
static_assert(sizeof(struct smt_stream_ack) == 16, "abi");

enum smt_stream_fd_kind {
	SMT_STREAM_FDS = 1,                 /* fds for the requests from `position` on */
	SMT_STREAM_REVERT = 2,              /* bytes up to `position` in the ring, the
					     * rest of the stream on the socket */
};

struct smt_stream_fd_msg {
	uint32_t magic;                     /* SMT_STREAM_FD_MAGIC */
	uint32_t kind;                      /* enum smt_stream_fd_kind */
	uint64_t position;                  /* stream position (head before the bytes) */
};
static_assert(sizeof(struct smt_stream_fd_msg) == 16, "abi");

/* Copies n <= area_size bytes starting at stream position pos out of the
 * (wrapping) area; the server's only way to read stream bytes. */
static inline void smt_stream_copy_out(void *dst, const void *area, uint32_t area_size,
				       uint64_t pos, uint32_t n)
{
	uint32_t off = (uint32_t)(pos & (area_size - 1u));
	uint32_t first = area_size - off < n ? area_size - off : n;
	memcpy(dst, (const uint8_t *)area + off, first);
	memcpy((uint8_t *)dst + first, area, n - first);
}
/* The client's counterpart: n <= space bytes in at head. */
static inline void smt_stream_copy_in(void *area, uint32_t area_size, uint64_t head,
				      const void *src, uint32_t n)
{
	uint32_t off = (uint32_t)(head & (area_size - 1u));
	uint32_t first = area_size - off < n ? area_size - off : n;
	memcpy((uint8_t *)area + off, src, first);
	memcpy(area, (const uint8_t *)src + first, n - first);
}

#endif /* SMT_RING_H */

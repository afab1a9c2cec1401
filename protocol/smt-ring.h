/*
 * smt-ring.h — the shared-memory ABI of the smtwc command ring, version 1.
 *
 * Included by the compositor and by clients. C11, freestanding apart from
 * the standard headers below. Everything here is a contract: layouts are
 * pinned with static_asserts; changing one is a protocol version bump.
 * Clients' encoders and publish/wait helpers are in smt-ring-client.h.
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
#define SMT_RING_MAGIC 0x31474e52u   /* "RNG1" */
#define SMT_STATUS_MAGIC 0x31545453u /* "STT1" */
#define SMT_GLOBAL_MAGIC 0x31424c47u /* "GLB1" */

#define SMT_RING_HEADER_SIZE 4096u
#define SMT_RING_AREA_MIN (4u * 1024u)
/* libsmt's command ring unless the client asks otherwise: measured in
 * docs/benchmarks.md, "The default ring size". */
#define SMT_RING_AREA_DEFAULT (512u * 1024u)
#define SMT_RING_AREA_MAX (16u * 1024u * 1024u)
#define SMT_STATUS_MAP_SIZE 4096u /* status and global pages are mapped whole */
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

#define SMT_CLIENT_WAITING 0x1u /* smt_ring_header.flags */
#define SMT_SERVER_DEAD 0x1u    /* smt_ring_status.flags */

/* The ring's first page. Written only by the client; read by the server. */
struct smt_ring_header {
	/* line 0: written once before the fd is handed over. Informational:
	 * the server takes sizes from the create request, never from here. */
	uint32_t magic;   /* SMT_RING_MAGIC */
	uint32_t version; /* SMT_RING_VERSION */
	uint32_t area_size;
	uint32_t header_size; /* SMT_RING_HEADER_SIZE */
	/* line 1: bytes written. Only store_release after the bytes. */
	_Alignas(64) _Atomic(uint64_t) head;
	/* line 2: the client's wait request (see "client wait" above). */
	_Alignas(64) _Atomic(uint32_t) flags; /* SMT_CLIENT_WAITING */
	uint32_t reserved0;
	_Atomic(uint64_t) wait_tail; /* wake me when tail >= this */
	/* line 3: statistics the client publishes (relaxed; untrusted). */
	_Alignas(64) _Atomic(uint64_t) wakeups_sent; /* server eventfd writes */
	_Atomic(uint64_t) full_waits;                /* times the ring was full */
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
	uint32_t magic; /* SMT_STATUS_MAGIC */
	uint32_t version;
	/* line 1: bytes consumed; store_release after the commands ran. */
	_Alignas(64) _Atomic(uint64_t) tail;
	/* line 2: death certificate; error_* stored before flags (release). */
	_Alignas(64) _Atomic(uint32_t) flags; /* SMT_SERVER_DEAD */
	_Atomic(uint32_t) error_code;         /* enum smt_error */
	_Atomic(uint32_t) error_opcode;       /* enum smt_opcode, or 0xffff */
	uint32_t reserved0;
	_Atomic(uint64_t) error_offset; /* stream position of the command */
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
	uint32_t magic; /* SMT_GLOBAL_MAGIC */
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

/*
 * The error table: every code, once. X(NAME, number, name) gives
 * SMT_ERROR_<NAME> = number and the name logs print (smt_error_name in
 * smt-ring-server.c), so a code cannot be added without its name.
 */
#define SMT_ERRORS(X)                                                                           \
	X(NONE, 0, "none")                                                                      \
	X(BAD_HEAD, 1, "bad_head")   /* head went backwards, past tail + area, or unaligned */  \
	X(BAD_SIZE, 2, "bad_size")   /* size 0 or not a multiple of 8 */                        \
	X(TRUNCATED, 3, "truncated") /* size runs past head / the end of a submit */            \
	X(WRAP, 4, "wrap")           /* size runs past the end of the area (missing PAD) */     \
	X(TOO_LARGE, 5, "too_large") /* > half the area, or > SMT_CMD_CONTROL_MAX */            \
	X(BAD_OPCODE, 6, "bad_opcode")                                                          \
	X(BAD_LENGTH, 7, "bad_length")      /* size disagrees with the payload's counts */      \
	X(BAD_VALUE, 8, "bad_value")        /* flags/reserved nonzero, bad op, colour, width */ \
	X(BAD_GEOMETRY, 9, "bad_geometry")  /* coordinate outside +-SMT_COORD_MAX */            \
	X(BAD_DRAWABLE, 10, "bad_drawable") /* id 0, unknown, out of table, or wrong kind */    \
	X(ID_IN_USE, 11, "id_in_use")                                                           \
	X(NO_TARGET, 12, "no_target")                                                           \
	X(BAD_FORMAT, 13, "bad_format") /* unknown format, or mask/atlas not A8 */              \
	X(BAD_STRIDE, 14, "bad_stride")                                                         \
	X(BAD_POOL, 15, "bad_pool")                                                             \
	X(OUT_OF_BOUNDS, 16, "out_of_bounds") /* pool range or atlas rectangle outside */       \
	X(LIMIT, 17, "limit")                 /* pixmap count, memory or dimension limit */     \
	X(NO_MEMORY, 18, "no_memory")         /* the server ran out of memory */                \
	/* stream mode (X11) */                                                                 \
	X(BAD_MESSAGE, 19, "bad_message")   /* a socket message that is no fd message */        \
	X(TOO_MANY_FDS, 20, "too_many_fds") /* more fds queued than the server accepts */       \
	X(REVERTED, 21, "reverted") /* a forked child took the connection back to the socket */

#define SMT_ERROR_ENUM_(name, number, text) SMT_ERROR_##name = number,
enum smt_error {
	SMT_ERRORS(SMT_ERROR_ENUM_)
};
#undef SMT_ERROR_ENUM_
/* Codes are dense (0 .. SMT_ERROR_COUNT - 1, in table order), so a name
 * table indexed by code has no holes. */
#define SMT_ERROR_INDEX_(name, number, text) SMT_ERROR_INDEX_##name,
enum {
	SMT_ERRORS(SMT_ERROR_INDEX_) SMT_ERROR_COUNT
};
#undef SMT_ERROR_INDEX_
#define SMT_ERROR_CHECK_(name, number, text)                                \
	static_assert((int)SMT_ERROR_##name == (int)SMT_ERROR_INDEX_##name, \
			"errors are dense, in order");
SMT_ERRORS(SMT_ERROR_CHECK_)
#undef SMT_ERROR_CHECK_

/* ---- commands ---------------------------------------------------------- */

/*
 * The opcode table: every command, once. X(NAME, number, fixed, element,
 * copy):
 *   fixed    the fixed part, struct smt_cmd_<fixed>; its size is the
 *            command's minimum size (a multiple of 8: see below).
 *   element  bytes per array element after the fixed part (0: no array;
 *            the fixed part names the count). The command size is exactly
 *            smt_align8(sizeof fixed + count * element).
 *   copy     what the server copies out of shared memory before it looks
 *            at the command (enum smt_copy_rule); only SMT_COPY_WHOLE
 *            commands are limited to SMT_CMD_CONTROL_MAX bytes.
 * Expanded by the decoder, the dispatcher, the fuzz seeds, smt-hostile and
 * the ABI test; docs/protocol.md lists what else a new opcode needs.
 */
#define SMT_OPCODES(X)                                                        \
	X(NOOP, 0, header, 0, SMT_COPY_HEADER)                                \
	X(PAD, 1, header, 0, SMT_COPY_HEADER)                                 \
	X(CREATE_PIXMAP, 2, create_pixmap, 0, SMT_COPY_WHOLE)                 \
	X(FREE_PIXMAP, 3, free_pixmap, 0, SMT_COPY_WHOLE)                     \
	X(SET_TARGET, 4, set_target, 0, SMT_COPY_WHOLE)                       \
	X(SET_CLIP, 5, set_clip, sizeof(struct smt_rect), SMT_COPY_WHOLE)     \
	X(FILL_RECTS, 6, fill_rects, sizeof(struct smt_rect), SMT_COPY_WHOLE) \
	X(POINTS, 7, points, sizeof(struct smt_point), SMT_COPY_WHOLE)        \
	X(SEGMENTS, 8, segments, sizeof(struct smt_segment), SMT_COPY_WHOLE)  \
	X(PUT_IMAGE, 9, put_image, 1, SMT_COPY_FIXED)                         \
	X(PUT_IMAGE_POOL, 10, put_image_pool, 0, SMT_COPY_WHOLE)              \
	X(COPY_AREA, 11, copy_area, 0, SMT_COPY_WHOLE)                        \
	X(COMPOSITE, 12, composite, 0, SMT_COPY_WHOLE)                        \
	X(GLYPHS, 13, glyphs, sizeof(struct smt_glyph), SMT_COPY_WHOLE)       \
	X(PRESENT, 14, present, sizeof(struct smt_rect), SMT_COPY_WHOLE)      \
	X(FENCE, 15, fence, 0, SMT_COPY_WHOLE)

enum smt_copy_rule {
	SMT_COPY_HEADER = 0, /* the 8-byte header; the payload is skipped unread (any size) */
	SMT_COPY_FIXED = 1,  /* the fixed part; the array is read in place (PUT_IMAGE pixels) */
	SMT_COPY_WHOLE = 2,  /* the whole command, at most SMT_CMD_CONTROL_MAX bytes */
};

#define SMT_OP_ENUM_(name, number, fixed, element, copy) SMT_OP_##name = number,
enum smt_opcode {
	SMT_OPCODES(SMT_OP_ENUM_) SMT_OP_COUNT
};
#undef SMT_OP_ENUM_

enum smt_format {                /* pixels are host (little-endian) u32/u8 */
	SMT_FORMAT_ARGB8888 = 1, /* premultiplied */
	SMT_FORMAT_XRGB8888 = 2,
	SMT_FORMAT_A8 = 3,
};

/* Porter-Duff operators; numerically equal to pixman_op_t. */
enum smt_paint_op {
	SMT_PAINT_CLEAR = 0,
	SMT_PAINT_SRC = 1,
	SMT_PAINT_DST = 2,
	SMT_PAINT_OVER = 3,
	SMT_PAINT_OVER_REVERSE = 4,
	SMT_PAINT_IN = 5,
	SMT_PAINT_IN_REVERSE = 6,
	SMT_PAINT_OUT = 7,
	SMT_PAINT_OUT_REVERSE = 8,
	SMT_PAINT_ATOP = 9,
	SMT_PAINT_ATOP_REVERSE = 10,
	SMT_PAINT_XOR = 11,
	SMT_PAINT_ADD = 12,
	SMT_PAINT_SATURATE = 13,
	SMT_PAINT_COUNT
};

/* Colours are 0xAARRGGBB, PREMULTIPLIED (r, g, b <= a): exactly the pixel
 * an ARGB8888 image would hold. Anything else is SMT_ERROR_BAD_VALUE. */

struct smt_cmd_header {
	uint16_t opcode;
	uint16_t flags; /* must be 0 in v1 */
	uint32_t size;  /* whole command, multiple of 8, >= 8 */
};
static_assert(sizeof(struct smt_cmd_header) == 8, "abi");

struct smt_rect {
	int32_t x, y;
	uint32_t width, height;
};
struct smt_point {
	int32_t x, y;
};
struct smt_segment {
	int32_t x1, y1, x2, y2;
};
struct smt_glyph {
	uint16_t atlas_x, atlas_y, width, height; /* source rect in the atlas */
	int32_t dst_x, dst_y;                     /* relative to the origin */
};
static_assert(sizeof(struct smt_rect) == 16, "abi");
static_assert(sizeof(struct smt_point) == 8, "abi");
static_assert(sizeof(struct smt_segment) == 16, "abi");
static_assert(sizeof(struct smt_glyph) == 16, "abi");

/* All "reserved" fields must be zero. Arrays follow the fixed part; the
 * command size is exactly smt_align8(fixed + array bytes). */
struct smt_cmd_create_pixmap {
	struct smt_cmd_header hdr;
	uint32_t id, width, height, format;
};
struct smt_cmd_free_pixmap {
	struct smt_cmd_header hdr;
	uint32_t id, reserved;
};
struct smt_cmd_set_target {
	struct smt_cmd_header hdr;
	uint32_t id, reserved;
};
struct smt_cmd_set_clip {
	struct smt_cmd_header hdr;
	uint32_t n_rects, reserved;
};
struct smt_cmd_fill_rects {
	struct smt_cmd_header hdr;
	uint32_t op, colour, n_rects, reserved;
};
struct smt_cmd_points {
	struct smt_cmd_header hdr;
	uint32_t op, colour, n_points, reserved;
};
struct smt_cmd_segments {
	struct smt_cmd_header hdr;
	uint32_t op, colour, line_width, n_segments;
};
struct smt_cmd_put_image { /* stride * height pixel bytes follow */
	struct smt_cmd_header hdr;
	int32_t dst_x, dst_y;
	uint32_t width, height, format, stride;
};
struct smt_cmd_put_image_pool {
	struct smt_cmd_header hdr;
	uint32_t pool_id, format;
	uint64_t offset; /* of the first pixel in the pool */
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
	uint32_t op, src_id, mask_id; /* mask_id 0 = no mask */
	int32_t src_x, src_y, mask_x, mask_y, dst_x, dst_y;
	uint32_t width, height, reserved;
};
struct smt_cmd_glyphs {
	struct smt_cmd_header hdr;
	uint32_t op, colour, atlas_id, n_glyphs;
	int32_t origin_x, origin_y;
};
struct smt_cmd_present { /* n_rects == 0: the whole canvas */
	struct smt_cmd_header hdr;
	uint32_t canvas_id, serial, n_rects, reserved;
};
struct smt_cmd_fence {
	struct smt_cmd_header hdr;
	uint64_t serial;
};

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

/* Opcodes are dense (0 .. SMT_OP_COUNT - 1, in table order) and every fixed
 * part is whole 8-byte words, so a fixed part's copy is itself aligned. */
#define SMT_OP_INDEX_(name, number, fixed, element, copy) SMT_OP_INDEX_##name,
enum {
	SMT_OPCODES(SMT_OP_INDEX_)
};
#undef SMT_OP_INDEX_
#define SMT_OP_CHECK_(name, number, fixed, element, copy)                                         \
	static_assert((int)SMT_OP_##name == (int)SMT_OP_INDEX_##name, "opcodes dense, in order"); \
	static_assert(sizeof(struct smt_cmd_##fixed) % 8 == 0, "fixed part 8-aligned");
SMT_OPCODES(SMT_OP_CHECK_)
#undef SMT_OP_CHECK_

/* The size rule: a command with a fixed part and an array is exactly
 * smt_align8(fixed + array bytes). */
static inline uint64_t smt_align8(uint64_t n)
{
	return (n + 7u) & ~(uint64_t)7u;
}

/* Bits per pixel of a format; 0 for an unknown one. */
static inline uint32_t smt_format_bpp(uint32_t format)
{
	return format == SMT_FORMAT_A8                                                   ? 8u :
			(format == SMT_FORMAT_ARGB8888 || format == SMT_FORMAT_XRGB8888) ? 32u :
											   0u;
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
 *                      server's discovery socket (SMT_STREAM_DISCOVERY),
 *                      and reconnects if the server closes it anyway.
 *   server -> client   struct smt_stream_ack; if result == 0 with SCM_RIGHTS
 *                      {status memfd, global memfd, wake socket}, and every
 *                      later client byte goes through the ring. Otherwise
 *                      the connection stays on the socket (silent fallback).
 *
 * Fds that ride with requests (MIT-SHM AttachFd, DRI3, Present): before
 * publishing the bytes that need them, the client sends smt_stream_fd_msg
 * messages (at most SMT_STREAM_MAX_FDS fds each, all at the position of
 * those bytes) with the fds as SCM_RIGHTS, then increments
 * header.fd_messages, then publishes head. The server loads head, THEN
 * compares fd_messages with what it has taken; it holds one message ahead
 * of the bytes and takes the next only when the stream reaches the held
 * one's position, so the rest stay queued in the kernel (flow control as on
 * a socket), no read returns a byte at or past a position whose fds are not
 * handed to the X server, and they go with the read that starts there
 * (xwayland-glue/stream/stream_fds.h).
 *
 * Discovery: a unix socket $XDG_RUNTIME_DIR/SMT_STREAM_DISCOVERY<pid>, pid
 * being what SO_PEERCRED reports for the X socket (the process that
 * listen()ed on it: the compositor for its Xwayland), in a runtime directory
 * of the client's own uid and mode 0700, listened on by its own uid. The
 * client only connects and hangs up: a socket there means "this X server
 * may read rings"; only the ack says it does. A server that closes the
 * connection at the hello has no stream half: the client reconnects in
 * place and stays on the socket. The server half answers hellos only from
 * peers of its own uid (SO_PEERCRED).
 * Statistics (smt-x11run --stats): the same name with ".stats", bound by
 * the X server, writes one line per X connection to a peer of its own uid
 * (xwayland-glue/x11ring_endpoint.h).
 */
#define SMT_STREAM_MAGIC 0x53474e52u       /* "RNGS": header.magic in stream mode */
#define SMT_STREAM_HELLO_MAGIC 0x31485853u /* "SXH1" */
#define SMT_STREAM_ACK_MAGIC 0x31415853u   /* "SXA1" */
#define SMT_STREAM_FD_MAGIC 0x31465853u    /* "SXF1" */
#define SMT_STREAM_DISCOVERY "smtwc-x11ring-"
/* Most fds one smt_stream_fd_msg may carry: also what the server holds for
 * a connection (one message) before the X server has taken them. */
#define SMT_STREAM_MAX_FDS 16u

struct smt_stream_hello {
	uint8_t zero; /* 0: never a valid first X byte */
	uint8_t pad[3];
	uint32_t magic;     /* SMT_STREAM_HELLO_MAGIC */
	uint32_t version;   /* SMT_RING_VERSION */
	uint32_t area_size; /* power of two, AREA_MIN..AREA_MAX */
};
static_assert(sizeof(struct smt_stream_hello) == 16, "abi");

enum smt_stream_result {
	SMT_STREAM_OK = 0,
	SMT_STREAM_REFUSED_VERSION = 1,
	SMT_STREAM_REFUSED_MEMFD = 2, /* not a sealed memfd of the declared size */
	SMT_STREAM_REFUSED_EVENTFD = 3,
	SMT_STREAM_REFUSED_LIMIT = 4,  /* too many rings in this server */
	SMT_STREAM_REFUSED_SERVER = 5, /* the server could not set up its side */
	/* the hello came from a process of another uid than the one that
	 * connected (a connected socket handed on): session 41 */
	SMT_STREAM_REFUSED_SENDER = 6,
};

struct smt_stream_ack {
	uint32_t magic; /* SMT_STREAM_ACK_MAGIC */
	uint32_t version;
	uint32_t result; /* enum smt_stream_result */
	uint32_t reserved;
};
static_assert(sizeof(struct smt_stream_ack) == 16, "abi");

enum smt_stream_fd_kind {
	SMT_STREAM_FDS = 1,    /* fds for the requests from `position` on */
	SMT_STREAM_REVERT = 2, /* bytes up to `position` in the ring, the
					     * rest of the stream on the socket */
};

struct smt_stream_fd_msg {
	uint32_t magic;    /* SMT_STREAM_FD_MAGIC */
	uint32_t kind;     /* enum smt_stream_fd_kind */
	uint64_t position; /* stream position (head before the bytes) */
};
static_assert(sizeof(struct smt_stream_fd_msg) == 16, "abi");

/* Copies n <= area_size bytes starting at stream position pos out of the
 * (wrapping) area; the server's only way to read stream bytes. */
static inline void smt_stream_copy_out(
		void *dst, const void *area, uint32_t area_size, uint64_t pos, uint32_t n)
{
	uint32_t off = (uint32_t)(pos & (area_size - 1u));
	uint32_t first = area_size - off < n ? area_size - off : n;
	memcpy(dst, (const uint8_t *)area + off, first);
	memcpy((uint8_t *)dst + first, area, n - first);
}
#endif /* SMT_RING_H */

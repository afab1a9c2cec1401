/*
 * The X server's side of one byte-stream ring: the only code that reads
 * what the client wrote into shared memory.
 *
 * Pure (no syscalls), so unit tests and the fuzzer link it alone. The
 * client is hostile: it may change any byte of its ring at any time. So
 * head is read once per take and checked against our own tail (kept here,
 * only published to the status page), the byte count is clamped to the
 * area, and bytes are copied out into the X server's own buffer before
 * anything parses them. Reading and bounding head, publishing the tail and
 * waking the client, and the death certificate are the protocol's server
 * half (smt-ring-server.h), shared with the compositor's command ring;
 * what is here is the byte stream.
 */
#ifndef SMT_STREAM_READER_H
#define SMT_STREAM_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/smt-ring-server.h"
#include "xwayland-glue/stream/x11_request_framer.h"

struct stream_reader {
	/* The client's header page, our status page, the tail published and
	 * the wake-ups sent: the protocol's server half (smt-ring-server.h). */
	struct smt_server_ring shared;
	const uint8_t *area;
	uint32_t area_size;
	uint64_t tail;  /* private: the truth */
	uint64_t limit; /* REVERT: never read past this */
	bool limited;
	bool dead;
	/* The connection's request framer (its owner's): fed every byte
	 * taken; its count is published. */
	struct x11_request_framer *framer;
};

void stream_reader_init(struct stream_reader *r, const void *ring_map, uint32_t area_size,
		struct smt_ring_status *status, struct x11_request_framer *framer);

/* Bytes the client has published and we have not taken, from ONE load of
 * head; *err is set (and 0 returned) when head is impossible. */
uint32_t stream_reader_available(const struct stream_reader *r, enum smt_error *err);

/* Copies min(avail, max) bytes into dst and publishes the new tail; avail
 * comes from stream_reader_available(), so every byte taken was published by
 * the one head load that was validated (and that the caller ordered its
 * other reads after). Sets *wake_client when the client waits for room we
 * just made. */
size_t stream_reader_take(
		struct stream_reader *r, void *dst, size_t max, uint32_t avail, bool *wake_client);

/* A REVERT at `position`: valid only between our tail and the published
 * head. False otherwise, and the caller ends the ring with its reason
 * (stream_fds.c logs which side it was on). */
bool stream_reader_limit(struct stream_reader *r, uint64_t position);

/* Ends the ring with a death certificate the client can read (opcode
 * 0xffff, the offset our tail). */
void stream_reader_fail(struct stream_reader *r, enum smt_error code);

#endif

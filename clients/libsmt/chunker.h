/*
 * chunker — cuts the socket transport's command stream into submit
 * messages (pure: no Wayland, so unit tests link it alone).
 *
 * libwayland 1.21 limits one message to 4096 bytes (header 8 + array
 * length 4 + padded payload), and a client that overflows its connection
 * buffer is killed, so one submit carries at most SMT_SUBMIT_MAX bytes.
 * Chunks end on command boundaries whenever possible; only a command that
 * alone is larger than a chunk spans several submits (the protocol allows
 * it), and the chunker remembers how much of it is still to come.
 */
#ifndef SMT_CHUNKER_H
#define SMT_CHUNKER_H

#include <stddef.h>
#include <stdint.h>

#define SMT_SUBMIT_MAX 3584u

struct smt_chunker {
	uint64_t span_left; /* bytes of a spanning command not yet chunked */
};

/* Length of the next chunk of p[0..len) (whole commands from the stream's
 * current position, which must follow the previous chunk), at most max
 * and > 0 when len > 0. */
size_t smt_chunk_next(struct smt_chunker *c, const uint8_t *p, size_t len, size_t max);

#endif

/*
 * The X server's half of the byte-stream ring, linked alone
 * (xwayland-glue/stream): the request counter on streams cut anywhere, and
 * the reader against a client that lies about head, wraps the area, and
 * waits for room.
 */
#include <stdlib.h>
#include <string.h>

#include "smt-ring-client.h"
#include "stream_reader.h"
#include "unit_check.h"
#include "x11_request_count.h"

/* A setup (auth name 5 bytes, data 16 bytes, both padded), then requests of
 * 1, 3 and 2 words, then a BIG-REQUESTS request of 70000 words. */
static size_t build_stream(uint8_t *s, bool msb)
{
	size_t n = 0;
	uint8_t setup[12] = { msb ? 'B' : 'l', 0 };
	#define PUT16(b, v) do { if (msb) { (b)[0] = (uint8_t)((v) >> 8); (b)[1] = (uint8_t)(v); } \
		else { (b)[0] = (uint8_t)(v); (b)[1] = (uint8_t)((v) >> 8); } } while (0)
	PUT16(setup + 6, 5);
	PUT16(setup + 8, 16);
	memcpy(s, setup, 12);
	n = 12 + 8 + 16;
	memset(s + 12, 'a', 24);
	const unsigned words[3] = { 1, 3, 2 };
	for (int i = 0; i < 3; i++) {
		uint8_t *r = s + n;
		memset(r, 0x33, words[i] * 4);
		r[0] = 127;
		PUT16(r + 2, words[i]);
		n += words[i] * 4;
	}
	uint8_t *big = s + n;
	memset(big, 0x44, 70000u * 4);
	big[0] = 72;
	PUT16(big + 2, 0);
	uint32_t len = 70000;
	if (msb) {
		big[4] = (uint8_t)(len >> 24); big[5] = (uint8_t)(len >> 16);
		big[6] = (uint8_t)(len >> 8); big[7] = (uint8_t)len;
	} else {
		memcpy(big + 4, &len, 4);
	}
	#undef PUT16
	return n + 70000u * 4;
}

static void test_request_count(void)
{
	current_test = "request count";
	uint8_t *s = malloc(300000);
	for (int msb = 0; msb <= 1; msb++) {
		size_t n = build_stream(s, msb);
		const size_t cuts[] = { 1, 3, 5, 7, 4096, n };
		for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
			struct x11_request_count c = { 0 };
			for (size_t at = 0; at < n; at += cuts[k])
				x11_request_count_feed(&c, s + at, at + cuts[k] > n ? n - at : cuts[k]);
			CHECK_INT(c.requests, 4);
			CHECK_INT(c.skip, 0);
			CHECK_INT(c.have, 0);
		}
		/* One byte short: the big request is counted, not yet finished. */
		struct x11_request_count c = { 0 };
		x11_request_count_feed(&c, s, n - 1);
		CHECK_INT(c.requests, 4);
		CHECK_INT(c.skip, 1);
	}
	free(s);
}

#define AREA 256u

struct fake_ring {
	_Alignas(64) uint8_t map[SMT_RING_HEADER_SIZE + AREA];
	struct smt_ring_status status;
};

static struct smt_ring_header *hdr_of(struct fake_ring *f)
{
	return (struct smt_ring_header *)f->map;
}

static void publish(struct fake_ring *f, uint64_t head)
{
	atomic_store(&hdr_of(f)->head, head);
}

static void test_reader(void)
{
	current_test = "reader";
	static struct fake_ring f;
	memset(&f, 0, sizeof(f));
	struct stream_reader r;
	stream_reader_init(&r, f.map, AREA, &f.status);
	enum smt_error err;
	bool wake;
	uint8_t out[AREA];

	CHECK_INT(stream_reader_available(&r, &err), 0);
	CHECK_INT(err, SMT_ERROR_NONE);

	/* Bytes across the end of the area come out in order. */
	uint8_t src[AREA];
	for (unsigned i = 0; i < AREA; i++)
		src[i] = (uint8_t)i;
	r.tail = 200;
	atomic_store(&f.status.tail, 200);
	smt_stream_copy_in(f.map + SMT_RING_HEADER_SIZE, AREA, 200, src, 100);
	publish(&f, 300);
	uint32_t avail = stream_reader_available(&r, &err);
	CHECK_INT(avail, 100);
	CHECK_INT(stream_reader_take(&r, out, 60, avail, &wake), 60);
	CHECK(memcmp(out, src, 60) == 0);
	CHECK_INT(atomic_load(&f.status.tail), 260);
	CHECK(!wake);

	/* A waiting client is woken once its wait_tail is reached. */
	atomic_store(&hdr_of(&f)->wait_tail, 300);
	atomic_store(&hdr_of(&f)->flags, SMT_CLIENT_WAITING);
	avail = stream_reader_available(&r, &err);
	CHECK_INT(stream_reader_take(&r, out, 20, avail, &wake), 20);
	CHECK(!wake);
	avail = stream_reader_available(&r, &err);
	CHECK_INT(stream_reader_take(&r, out + 20, sizeof(out), avail, &wake), 20);
	CHECK(wake);
	CHECK(memcmp(out, src + 60, 40) == 0);

	/* A REVERT may only point inside the published bytes. */
	publish(&f, 340);
	CHECK(stream_reader_limit(&r, 320));
	CHECK_INT(stream_reader_available(&r, &err), 20);
	CHECK_INT(err, SMT_ERROR_NONE);

	/* head moved backwards, or past tail + area: impossible, nothing taken. */
	publish(&f, 299);
	CHECK_INT(stream_reader_available(&r, &err), 0);
	CHECK_INT(err, SMT_ERROR_BAD_HEAD);
	publish(&f, 300 + AREA + 1);
	CHECK_INT(stream_reader_available(&r, &err), 0);
	CHECK_INT(err, SMT_ERROR_BAD_HEAD);

	/* A fail leaves a death certificate the client can read. */
	stream_reader_fail(&r, SMT_ERROR_BAD_HEAD);
	CHECK_INT(atomic_load(&f.status.flags), SMT_SERVER_DEAD);
	CHECK_INT(atomic_load(&f.status.error_code), SMT_ERROR_BAD_HEAD);
	CHECK_INT(atomic_load(&f.status.error_offset), 300);
	publish(&f, 310);
	CHECK_INT(stream_reader_available(&r, &err), 0);

	/* A REVERT past head kills the ring. */
	struct stream_reader r2;
	memset(&f, 0, sizeof(f));
	stream_reader_init(&r2, f.map, AREA, &f.status);
	publish(&f, 10);
	CHECK(!stream_reader_limit(&r2, 11));
	CHECK(r2.dead);
	CHECK_INT(atomic_load(&f.status.error_code), SMT_ERROR_BAD_MESSAGE);
}

int main(void)
{
	test_request_count();
	test_reader();
	return failures != 0;
}

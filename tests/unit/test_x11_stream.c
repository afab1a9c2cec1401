/*
 * The X server's half of the byte-stream ring, linked alone
 * (xwayland-glue/stream): the request framer on streams cut anywhere, the
 * reader against a client that lies about head, wraps the area, and waits
 * for room, and the fd side of its reads (stream_fds.c): the fd
 * patterns as scenarios, then a property test over random interleavings of
 * fd messages, REVERTs and bytes (tests/fuzz/x11fds_model.h, which the
 * fuzz target fuzz_x11fds shares).
 */
#include <stdlib.h>
#include <string.h>

#include "protocol/smt-ring-client.h"
#include "xwayland-glue/stream/stream_reader.h"
#include "tests/unit/unit_check.h"
#include "xwayland-glue/stream/x11_request_framer.h"
#include "tests/fuzz/x11fds_model.h"

/* A setup (auth name 5 bytes, data 16 bytes, both padded), then requests of
 * 1, 3 and 2 words, then a BIG-REQUESTS request of 70000 words. */
static size_t build_stream(uint8_t *s, bool msb)
{
	size_t n = 0;
	uint8_t setup[12] = { msb ? 'B' : 'l', 0 };
#define PUT16(b, v)                                   \
	do {                                          \
		if (msb) {                            \
			(b)[0] = (uint8_t)((v) >> 8); \
			(b)[1] = (uint8_t)(v);        \
		} else {                              \
			(b)[0] = (uint8_t)(v);        \
			(b)[1] = (uint8_t)((v) >> 8); \
		}                                     \
	} while (0)
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
		big[4] = (uint8_t)(len >> 24);
		big[5] = (uint8_t)(len >> 16);
		big[6] = (uint8_t)(len >> 8);
		big[7] = (uint8_t)len;
	} else {
		memcpy(big + 4, &len, 4);
	}
#undef PUT16
	return n + 70000u * 4;
}

/* A watcher that writes down what it was handed. */
struct seen_log {
	unsigned n;
	struct x11_request_view r[64];
	uint8_t fields[64][X11_REQUEST_WATCH_MAX];
	unsigned stop_after; /* ends the watch after this many (0: never) */
};

static void log_seen(void *ctx, struct x11_request_framer *f, const struct x11_request_view *r)
{
	struct seen_log *log = ctx;
	if (log->n < 64) {
		log->r[log->n] = *r;
		memcpy(log->fields[log->n], r->fields, r->fields_have);
		log->r[log->n].fields = log->fields[log->n];
	}
	log->n++;
	if (log->stop_after && log->n == log->stop_after)
		x11_request_framer_unwatch(f);
}

/* Feeds s[0..n) in pieces of `cut` bytes. */
static void feed_cut(struct x11_request_framer *f, const uint8_t *s, size_t n, size_t cut)
{
	for (size_t at = 0; at < n; at += cut)
		x11_request_framer_feed(f, s + at, at + cut > n ? n - at : cut);
}

/* The framer (x11_request_framer.h) on the stream above cut anywhere, in
 * both byte orders: four requests (one in BIG-REQUESTS form), nothing left
 * over; a watch hands over each request of its opcode once, with its
 * sequence number, length and the fields after its header (after the
 * 32-bit length for the BIG-REQUESTS one). */
static void test_framer_cuts(void)
{
	current_test = "framer: split reads, BIG-REQUESTS";
	uint8_t *s = malloc(300000);
	for (int msb = 0; msb <= 1; msb++) {
		size_t n = build_stream(s, msb);
		const size_t big_at = 12 + 8 + 16 + 4 * (1 + 3 + 2);
		s[big_at + 8] = 0x55; /* the BIG-REQUESTS one's first field byte */
		const size_t cuts[] = { 1, 2, 3, 4, 5, 7, 8, 9, 13, 4096, n };
		for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
			struct x11_request_framer f = { 0 };
			feed_cut(&f, s, n, cuts[k]);
			CHECK_INT(f.requests, 4);
			CHECK_INT(f.skip, 0);
			CHECK_INT(f.have, 0);
			CHECK_INT(f.msb_first, msb);

			struct seen_log small = { 0 }, big = { 0 };
			struct x11_request_framer w = { 0 };
			x11_request_framer_watch(&w, 127, 6, log_seen, &small);
			feed_cut(&w, s, n, cuts[k]);
			CHECK_INT(w.requests, 4);
			/* the three of opcode 127, then the BIG-REQUESTS one (any
			 * request of length 0 goes to a watcher: its framing is the
			 * X server's to decide) */
			CHECK_INT(small.n, 4);
			CHECK(small.r[3].big);
			CHECK_INT(small.r[3].seq, 4);
			CHECK(!small.r[0].big && !small.r[1].big && !small.r[2].big);
			const unsigned fields[3] = { 0, 6, 4 }; /* 1, 3, 2 words; 6 asked */
			for (unsigned i = 0; i < 3 && i < small.n; i++) {
				CHECK_INT(small.r[i].seq, i + 1);
				CHECK_INT(small.r[i].fields_have, fields[i]);
				CHECK_INT(small.r[i].opcode, 127);
				CHECK_INT(small.r[i].msb_first, msb);
				for (unsigned b = 0; b < small.r[i].fields_have; b++)
					CHECK_INT(small.r[i].fields[b], 0x33);
			}
			CHECK_INT(small.r[0].len, 4);
			CHECK_INT(small.r[1].len, 12);
			CHECK_INT(small.r[2].len, 8);

			struct x11_request_framer wb = { 0 };
			x11_request_framer_watch(&wb, 72, 200, log_seen, &big);
			CHECK_INT(wb.watch_fields, X11_REQUEST_WATCH_MAX); /* bounded */
			feed_cut(&wb, s, n, cuts[k]);
			CHECK_INT(wb.requests, 4);
			CHECK_INT(wb.skip, 0);
			CHECK_INT(big.n, 1);
			CHECK(big.r[0].big);
			CHECK_INT(big.r[0].seq, 4);
			CHECK_INT(big.r[0].len, 70000u * 4);
			CHECK_INT(big.r[0].fields_have, X11_REQUEST_WATCH_MAX);
			CHECK_INT(big.r[0].fields[0], 0x55);
			CHECK_INT(big.r[0].fields[1], 0x44);
		}
		/* One byte short: the big request is counted, not yet finished. */
		struct x11_request_framer f = { 0 };
		x11_request_framer_feed(&f, s, n - 1);
		CHECK_INT(f.requests, 4);
		CHECK_INT(f.skip, 1);
		/* Cut inside the BIG-REQUESTS length: not counted yet. */
		struct x11_request_framer g = { 0 };
		x11_request_framer_feed(&g, s, big_at + 6);
		CHECK_INT(g.requests, 3);
		CHECK_INT(g.have, 6);
		x11_request_framer_feed(&g, s + big_at + 6, n - big_at - 6);
		CHECK_INT(g.requests, 4);
		CHECK_INT(g.skip, 0);
	}
	free(s);
}

/* The watch ended by its watcher after the first request, and by its owner
 * while a watched request's fields are half in: no more requests are
 * handed over, and the framing goes on exactly. */
static void test_framer_unwatch(void)
{
	current_test = "framer: the watch ends";
	uint8_t *s = malloc(300000);
	size_t n = build_stream(s, false);
	struct seen_log once = { .stop_after = 1 };
	struct x11_request_framer f = { 0 };
	x11_request_framer_watch(&f, 127, 8, log_seen, &once);
	feed_cut(&f, s, n, 5);
	CHECK_INT(once.n, 1);
	CHECK_INT(f.requests, 4);
	CHECK(!x11_request_framer_watching(&f));

	struct seen_log none = { 0 };
	struct x11_request_framer g = { 0 };
	x11_request_framer_watch(&g, 127, 8, log_seen, &none);
	const size_t second = 12 + 8 + 16 + 4; /* the 3-word request */
	x11_request_framer_feed(&g, s, second + 4 + 3);
	CHECK_INT(g.have, 7); /* its header and 3 of its 8 fields */
	CHECK_INT(none.n, 1);
	x11_request_framer_unwatch(&g);
	x11_request_framer_feed(&g, s + second + 7, n - second - 7);
	CHECK_INT(none.n, 1);
	CHECK_INT(g.requests, 4);
	CHECK_INT(g.skip, 0);
	CHECK_INT(g.have, 0);
	free(s);
}

/* An independent walk over a whole stream: the requests whose header (8
 * bytes for BIG-REQUESTS) is within it, and the sequence numbers of those
 * with `opcode` whose first `want` field bytes are too (or the whole
 * request, when shorter). */
static uint64_t reference_walk(const uint8_t *s, size_t n, uint8_t opcode, size_t want,
		uint64_t *seqs, unsigned *nseqs)
{
	bool msb = s[0] == 'B';
	*nseqs = 0;
	if (n < 12)
		return 0;
	uint64_t pos = 12;
	uint32_t an = msb ? (uint32_t)s[6] << 8 | s[7] : (uint32_t)s[7] << 8 | s[6];
	uint32_t ad = msb ? (uint32_t)s[8] << 8 | s[9] : (uint32_t)s[9] << 8 | s[8];
	pos += ((an + 3u) & ~3u) + ((ad + 3u) & ~3u);
	uint64_t count = 0;
	while (pos + 4 <= n) {
		const uint8_t *r = s + pos;
		uint64_t len = 4 * (uint64_t)(msb ? r[2] << 8 | r[3] : r[3] << 8 | r[2]);
		uint64_t header = 4;
		if (len == 0) {
			if (pos + 8 > n)
				break;
			uint32_t big;
			if (msb)
				big = (uint32_t)r[4] << 24 | (uint32_t)r[5] << 16 |
						(uint32_t)r[6] << 8 | r[7];
			else
				big = (uint32_t)r[7] << 24 | (uint32_t)r[6] << 16 |
						(uint32_t)r[5] << 8 | r[4];
			len = 4 * (uint64_t)big;
			if (len < 8)
				len = 8;
			header = 8;
		}
		if (r[0] == opcode || header == 8) { /* length 0 goes to a watcher too */
			uint64_t need = header + want < len ? header + want : len;
			if (pos + need > n)
				break; /* not handed over yet, nor counted */
			seqs[(*nseqs)++ % 64] = count + 1;
		}
		count++;
		pos += len;
	}
	return count;
}

static void put_card(uint8_t *b, bool msb, uint32_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		b[msb ? bytes - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/* Garbage: random streams fed in random pieces. Three rounds in four are
 * requests of random bytes with lengths that mostly hold (1-6 words), some
 * BIG-REQUESTS ones of 0-8 words (0 and 1 are lies), some of any 16-bit
 * length, a watched opcode among them; the fourth is random bytes after
 * the setup. All cut at a random length. The framer must count the same
 * requests and hand over the same watched ones as the whole-stream walk,
 * and never read a byte past what it was fed (ASan: each piece is its own
 * allocation). */
static void test_framer_garbage(void)
{
	current_test = "framer: garbage";
	srand(7);
	enum {
		CAP = 2048
	};
	for (int round = 0; round < 4000; round++) {
		bool msb = round % 2;
		uint8_t *s = malloc(CAP);
		for (size_t i = 0; i < CAP; i++)
			s[i] = (uint8_t)rand();
		s[0] = msb ? 'B' : 'l';
		uint32_t an = (uint32_t)(rand() % 9), ad = (uint32_t)(rand() % 9);
		put_card(s + 6, msb, an, 2);
		put_card(s + 8, msb, ad, 2);
		size_t at = 12 + ((an + 3) & ~3u) + ((ad + 3) & ~3u);
		while (round % 4 != 3 && at + 8 <= CAP) {
			uint8_t *r = s + at;
			r[0] = (uint8_t)(96 + rand() % 4);
			int kind = rand() % 16;
			uint32_t words;
			if (kind == 0) {
				uint32_t big = (uint32_t)(rand() % 9);
				put_card(r + 2, msb, 0, 2);
				put_card(r + 4, msb, big, 4);
				words = big < 2 ? 2 : big;
			} else if (kind == 1) {
				words = (uint32_t)rand() & 0xffff;
				put_card(r + 2, msb, words, 2);
				if (words == 0)
					break; /* a BIG-REQUESTS length of random bytes */
			} else {
				words = 1 + (uint32_t)(rand() % 6);
				put_card(r + 2, msb, words, 2);
			}
			at += 4 * (size_t)words;
		}
		size_t n = 1 + (size_t)(rand() % CAP);
		uint64_t want_seqs[64];
		unsigned want_n;
		uint64_t want = reference_walk(s, n, 98, 6, want_seqs, &want_n);
		struct seen_log seen = { 0 };
		struct x11_request_framer f = { 0 };
		x11_request_framer_watch(&f, 98, 6, log_seen, &seen);
		for (size_t pos = 0; pos < n;) {
			size_t cut = 1 + (size_t)(rand() % 40);
			if (cut > n - pos)
				cut = n - pos;
			uint8_t *piece = malloc(cut);
			memcpy(piece, s + pos, cut);
			x11_request_framer_feed(&f, piece, cut);
			free(piece);
			pos += cut;
		}
		CHECK_INT(f.requests, want);
		CHECK_INT(seen.n, want_n);
		for (unsigned i = 0; i < want_n && i < seen.n && i < 64; i++) {
			CHECK_INT(seen.r[i].seq, want_seqs[i]);
			CHECK(seen.r[i].fields_have <= 6);
		}
		free(s);
	}
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
	struct x11_request_framer framer = { 0 };
	stream_reader_init(&r, f.map, AREA, &f.status, &framer);
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

	/* A REVERT past head is refused; the caller ends the ring with its
	 * reason (stream_fds.c), so the log says which. */
	struct stream_reader r2;
	memset(&f, 0, sizeof(f));
	stream_reader_init(&r2, f.map, AREA, &f.status, &framer);
	publish(&f, 10);
	CHECK(!stream_reader_limit(&r2, 11));
	CHECK(!r2.limited);
}

/* One read as the X server makes it (16 fds of room unless told). */
static enum stream_read_result read_model(
		struct model *mod, size_t max, unsigned room, size_t *n, unsigned *fds_out)
{
	static uint8_t buf[MODEL_AREA];
	union {
		char b[CMSG_SPACE(128 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { buf, max };
	struct msghdr msg = { .msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.b,
		.msg_controllen = CMSG_SPACE(room * sizeof(int)) };
	enum stream_read_result r = stream_fds_read(&mod->rd, &mod->q, &mod->sock, &msg, n);
	*fds_out = 0;
	if (msg.msg_controllen) {
		struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
		*fds_out = (unsigned)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (unsigned i = 0; i < *fds_out; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			mod->fd_state[fd] = FD_GIVEN;
		}
	}
	return r;
}

/* The fd patterns, one by one. */
static void test_fd_scenarios(void)
{
	current_test = "fd scenarios";
	static struct model mod;
	size_t n;
	unsigned fds;

	/* Item 7: an fd message whose bytes never come. The server takes it
	 * (the count says so) and then has nothing to do: not ready, and a
	 * read (epoll's edge) returns EAGAIN with no fd handed over. */
	model_init(&mod, true);
	model_publish(&mod, 40);
	CHECK(stream_fds_has_input(&mod.rd, &mod.q, &mod.sock));
	CHECK_INT(read_model(&mod, 100, 16, &n, &fds), STREAM_READ_BYTES);
	CHECK_INT(n, 40);
	model_send(&mod, SMT_STREAM_FDS, mod.head, 1, false, true);
	mod.q.sock_readable = true;
	for (int i = 0; i < 3; i++) {
		CHECK(!stream_fds_has_input(&mod.rd, &mod.q, &mod.sock));
		CHECK_INT(read_model(&mod, 100, 16, &n, &fds), STREAM_READ_AGAIN);
		CHECK_INT(fds, 0);
	}
	CHECK(mod.q.have_next);
	/* The bytes come: the fd goes with the read that starts at them. */
	model_publish(&mod, 24);
	CHECK(stream_fds_has_input(&mod.rd, &mod.q, &mod.sock));
	CHECK_INT(read_model(&mod, 100, 16, &n, &fds), STREAM_READ_BYTES);
	CHECK_INT(n, 24);
	CHECK_INT(fds, 1);

	/* Item 2: 64 ShmAttachFd-like requests of 16 bytes, each after its own
	 * fd message, all sent before the server reads anything (the client
	 * only waits when the socket is full). One message is held at a time;
	 * each read stops before the next message's position, so every fd
	 * goes with its own request. */
	model_init(&mod, true);
	for (int i = 0; i < 64; i++) {
		model_send(&mod, SMT_STREAM_FDS, mod.head, 1, false, true);
		model_publish(&mod, 16);
	}
	unsigned total_fds = 0;
	for (int i = 0; i < 64; i++) {
		CHECK(stream_fds_has_input(&mod.rd, &mod.q, &mod.sock));
		CHECK_INT(read_model(&mod, MODEL_AREA, 16, &n, &fds), STREAM_READ_BYTES);
		CHECK_INT(n, 16);
		CHECK_INT(fds, 1);
		total_fds += fds;
		CHECK(mod.qlen <= 64u - (unsigned)i);
	}
	CHECK_INT(total_fds, 64);
	CHECK(!stream_fds_has_input(&mod.rd, &mod.q, &mod.sock));

	/* More fds than one message carries (a program's sendmsg of 20):
	 * two messages at one position, handed over together. */
	model_init(&mod, true);
	model_send(&mod, SMT_STREAM_FDS, 0, 16, false, true);
	model_send(&mod, SMT_STREAM_FDS, 0, 4, false, true);
	model_publish(&mod, 8);
	CHECK_INT(read_model(&mod, 100, 64, &n, &fds), STREAM_READ_BYTES);
	CHECK_INT(fds, 20);
	/* ... and with room for 4 only, the rest is closed, as the kernel
	 * does (MSG_CTRUNC). */
	model_send(&mod, SMT_STREAM_FDS, mod.head, 16, false, true);
	model_publish(&mod, 8);
	CHECK_INT(read_model(&mod, 100, 4, &n, &fds), STREAM_READ_BYTES);
	CHECK_INT(fds, 4);
	CHECK_INT(mod.q.fds_dropped, 12);

	/* Item 9: a REVERT before the tail, and past the head: the ring ends
	 * with a logged reason and an error for the statistics. */
	for (int past = 0; past <= 1; past++) {
		model_init(&mod, false);
		model_publish(&mod, 64);
		CHECK_INT(read_model(&mod, 32, 16, &n, &fds), STREAM_READ_BYTES);
		model_send(&mod, SMT_STREAM_REVERT, past ? 65 : 31, 0, false, true);
		CHECK(stream_fds_has_input(&mod.rd, &mod.q, &mod.sock));
		CHECK_INT(read_model(&mod, 32, 16, &n, &fds), STREAM_READ_DEAD);
		CHECK_INT(mod.killed, 1);
		CHECK_INT(atomic_load(&mod.status.error_code), SMT_ERROR_BAD_MESSAGE);
	}

	/* Item 3's server side: a fork child's REVERT at position 48 while its
	 * parent had fds at 40: the parent's bytes and fd come out, then the
	 * switch, with the X server's control buffer untouched. */
	model_init(&mod, true);
	model_publish(&mod, 40);
	model_send(&mod, SMT_STREAM_FDS, 40, 1, false, true);
	model_publish(&mod, 8);
	model_send(&mod, SMT_STREAM_REVERT, 48, 0, false, true);
	CHECK_INT(read_model(&mod, 100, 16, &n, &fds), STREAM_READ_BYTES);
	CHECK_INT(n, 40);
	CHECK_INT(read_model(&mod, 100, 16, &n, &fds), STREAM_READ_BYTES);
	CHECK_INT(n, 8);
	CHECK_INT(fds, 1);
	CHECK(stream_fds_has_input(&mod.rd, &mod.q, &mod.sock));
	CHECK_INT(read_model(&mod, 100, 16, &n, &fds), STREAM_READ_REVERTED);
	CHECK_INT(atomic_load(&mod.status.error_code), SMT_ERROR_REVERTED);

	/* A count that lies: looked at once, then the connection is idle. */
	model_init(&mod, false);
	atomic_store(&model_hdr(&mod)->fd_messages, 5);
	CHECK(!stream_fds_has_input(&mod.rd, &mod.q, &mod.sock));
	CHECK(mod.q.looked);
	CHECK(!stream_fds_has_input(&mod.rd, &mod.q, &mod.sock));

	/* The client goes while its fd message waits for bytes: the end is
	 * seen (hung_up) though the message is never read. */
	model_init(&mod, true);
	model_send(&mod, SMT_STREAM_FDS, 0, 3, false, true);
	model_send(&mod, SMT_STREAM_FDS, 0, 3, false, true);
	CHECK(!stream_fds_has_input(&mod.rd, &mod.q, &mod.sock));
	mod.eof = true;
	mod.q.sock_readable = true;
	CHECK(stream_fds_has_input(&mod.rd, &mod.q, &mod.sock));
	CHECK_INT(read_model(&mod, 100, 16, &n, &fds), STREAM_READ_END);
	stream_fds_release(&mod.q, &mod.sock);
	CHECK_INT(mod.fd_state[0], FD_CLOSED);
}

/* Random scripts through the model: honest ones, hostile ones. */
static void test_fd_interleavings(void)
{
	current_test = "fd interleavings";
	uint64_t x = 0x9e3779b97f4a7c15ull;
	static uint8_t script[1200];
	for (int run = 0; run < 3000; run++) {
		size_t len = 2 + (size_t)(x % (sizeof(script) - 2));
		for (size_t i = 0; i < len; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			script[i] = (uint8_t)x;
		}
		for (int honest = 0; honest <= 1; honest++) {
			const char *failure = model_run(script, len, honest);
			if (failure) {
				fprintf(stderr, "run %d (%s): %s\n", run,
						honest ? "honest" : "hostile", failure);
				CHECK(failure == NULL);
				return;
			}
		}
	}
}

int main(void)
{
	test_framer_cuts();
	test_framer_unwatch();
	test_framer_garbage();
	test_reader();
	test_fd_scenarios();
	test_fd_interleavings();
	return failures != 0;
}

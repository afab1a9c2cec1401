/*
 * The input boost's pure parts (xwayland-glue/stream): the scanner that
 * finds input events in what the X server writes to a client, on streams
 * cut anywhere and in both byte orders, and the grant/credit accounting
 * that bounds what a boosted client takes from the others; the read cut
 * that keeps what the X server buffers for a held client short.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/unit/unit_check.h"
#include "xwayland-glue/stream/x11_boost.h"
#include "xwayland-glue/stream/x11_input_scan.h"
#include "xwayland-glue/stream/x11_request_framer.h"
#include "xwayland-glue/stream/x11_usage.h"
#include "xwayland-glue/stream/x11_xi1_query.h"

static bool msb;

static void put16(uint8_t *b, uint32_t v)
{
	if (msb) {
		b[0] = (uint8_t)(v >> 8);
		b[1] = (uint8_t)v;
	} else {
		b[0] = (uint8_t)v;
		b[1] = (uint8_t)(v >> 8);
	}
}

static void put32(uint8_t *b, uint32_t v)
{
	if (msb) {
		put16(b, v >> 16);
		put16(b + 2, v & 0xffff);
	} else {
		put16(b, v & 0xffff);
		put16(b + 2, v >> 16);
	}
}

/* A 32-byte message of `type` (plus `extra` words for replies and
 * GenericEvents); `evtype` for GenericEvents. The padding is 0x02 (a
 * KeyPress type) so that a scanner that lost its place would count it. */
static size_t message(uint8_t *s, uint8_t type, uint32_t extra, uint16_t evtype)
{
	memset(s, 2, 32 + 4 * extra);
	s[0] = type;
	if (type == 1 || (type & 0x7f) == 35)
		put32(s + 4, extra);
	if ((type & 0x7f) == 35)
		put16(s + 8, evtype);
	return 32 + 4 * extra;
}

/* The setup reply, then every kind of message; `*inputs` gets how many of
 * them are input to the client. */
static size_t build_output(uint8_t *s, unsigned *inputs)
{
	size_t n = 0;
	memset(s, 2, 8 + 4 * 30);
	s[0] = 1;         /* success */
	put16(s + 2, 11); /* protocol major version */
	put16(s + 4, 0);
	put16(s + 6, 30); /* 30 more words: screens, formats... */
	n = 8 + 4 * 30;
	unsigned in = 0;
	n += message(s + n, 1, 1000, 0); /* a long reply */
	n += message(s + n, 0, 0, 0);    /* an error */
	for (uint8_t t = 2; t <= 6; t++, in++)
		n += message(s + n, t, 0, 0); /* core key, button, motion */
	n += message(s + n, 2 | 0x80, 0, 0);  /* a SendEvent KeyPress: not input */
	n += message(s + n, 12, 0, 0);        /* Expose */
	n += message(s + n, 28, 0, 0);        /* PropertyNotify */
	for (uint16_t e = 2; e <= 6; e++, in++)
		n += message(s + n, 35, 14, e); /* XI2 device events */
	for (uint16_t e = 18; e <= 20; e++, in++)
		n += message(s + n, 35, 14, e); /* XI2 touch */
	n += message(s + n, 35, 6, 17);         /* XI2 RawMotion: to root listeners */
	n += message(s + n, 35, 2, 1);          /* Present CompleteNotify */
	n += message(s + n, 35, 0, 2);          /* Present IdleNotify: evtype 2, short */
	n += message(s + n, 35, 14, 2);         /* one more XI2 KeyPress */
	in++;
	n += message(s + n, 1, 0, 0);
	*inputs = in;
	return n;
}

static void test_scan(void)
{
	current_test = "input scan";
	uint8_t *s = malloc(16384);
	for (int order = 0; order <= 1; order++) {
		msb = order;
		unsigned want;
		size_t n = build_output(s, &want);
		CHECK_INT(want, 14);
		const size_t cuts[] = { 1, 3, 7, 12, 31, 32, 33, 100, 4096, n };
		for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
			struct x11_input_scan sc = { 0 };
			unsigned got = 0;
			for (size_t at = 0; at < n; at += cuts[k])
				got += x11_input_scan_feed(
						&sc, s + at, at + cuts[k] > n ? n - at : cuts[k]);
			CHECK_INT(got, want);
			CHECK_INT(sc.skip, 0);
			CHECK_INT(sc.have, 0);
		}
	}
	free(s);
}

#define MS 1000000ull

static void test_grants(void)
{
	current_test = "boost grants";
	const struct x11_boost_config cfg = {
		.credit_ns = 1 * MS, .gap_ns = 4 * MS, .window_ns = 100 * MS
	};
	struct x11_boost b = { 0 };
	uint64_t t = 1000 * MS;
	CHECK(!x11_boost_live(&b, t));
	CHECK(!x11_boost_favoured(&b, t, true)); /* no input: never favoured */

	/* Input, then requests: favoured while they wait, for at most the
	 * credit; what it spent is charged. */
	CHECK(x11_boost_input(&b, &cfg, t));
	CHECK(x11_boost_live(&b, t));
	CHECK_INT(x11_boost_deadline(&b, t), t + 1 * MS);
	CHECK(x11_boost_favoured(&b, t + 10 * MS, true));
	CHECK(x11_boost_favoured(&b, t + 10 * MS + MS / 2, true));
	CHECK_INT(b.favoured_ns, MS / 2);
	x11_boost_served(&b, t + 10 * MS + MS / 2 + 1);
	CHECK_INT(b.served, 1);
	CHECK(x11_boost_live(&b, t + 11 * MS));
	CHECK(x11_boost_favoured(&b, t + 20 * MS, true));
	CHECK(!x11_boost_favoured(&b, t + 30 * MS, true)); /* credit spent */
	CHECK_INT(b.favoured_ns, 1 * MS);
	CHECK_INT(b.lapsed, 1);
	x11_boost_served(&b, t + 31 * MS); /* read after the credit ran out */
	CHECK_INT(b.served, 1);
	CHECK(!x11_boost_live(&b, t + 30 * MS));

	/* A second input within the gap grants nothing; after it, a refill
	 * (not more: grants do not add up). */
	uint64_t t2 = t + 40 * MS;
	CHECK(x11_boost_input(&b, &cfg, t2));
	CHECK(!x11_boost_input(&b, &cfg, t2 + 3 * MS));
	CHECK_INT(b.grants, 2);
	CHECK(x11_boost_input(&b, &cfg, t2 + 4 * MS));
	CHECK_INT(b.credit_ns, 1 * MS);
	CHECK_INT(b.grants, 3);

	/* An unused grant lapses after the window. */
	CHECK(x11_boost_live(&b, t2 + 4 * MS + 99 * MS));
	CHECK(!x11_boost_live(&b, t2 + 4 * MS + 100 * MS));
	CHECK(!x11_boost_favoured(&b, t2 + 4 * MS + 100 * MS, true));
	CHECK_INT(x11_boost_deadline(&b, t2 + 4 * MS + 100 * MS), 0);

	/* Off: no grant ever. */
	const struct x11_boost_config off = { 0 };
	struct x11_boost o = { 0 };
	CHECK(!x11_boost_input(&o, &off, t));
	CHECK(!x11_boost_favoured(&o, t, true));
}

/* A busy client under a stream of input (1000 events a second, requests
 * always waiting) is favoured for at most credit / gap of the time. */
static void test_fair_share(void)
{
	current_test = "boost fair share";
	const struct x11_boost_config cfg = {
		.credit_ns = 1 * MS, .gap_ns = 4 * MS, .window_ns = 100 * MS
	};
	struct x11_boost b = { 0 };
	uint64_t t0 = 5000 * MS, favoured = 0, step = MS / 10;
	for (uint64_t t = t0; t < t0 + 1000 * MS; t += step) {
		if ((t - t0) % MS == 0)
			x11_boost_input(&b, &cfg, t);
		if (x11_boost_favoured(&b, t, true))
			favoured += step;
	}
	x11_boost_favoured(&b, t0 + 1000 * MS, false);
	CHECK(b.favoured_ns <= 250 * MS);
	CHECK(b.favoured_ns >= 240 * MS);
	CHECK(favoured <= 250 * MS);
}

/* Sixteen clients under input at once (every window selecting pointer
 * motion), requests always waiting: together they hold the others back for
 * at most a quarter of the time, plus the two credits the share starts
 * with. */
static void test_shared(void)
{
	current_test = "boost shared";
	const struct x11_boost_config cfg = {
		.credit_ns = 1 * MS, .gap_ns = 4 * MS, .window_ns = 100 * MS
	};
	struct x11_boost b[16] = { 0 };
	struct x11_boost_share share = { 0 };
	uint64_t t0 = 7000 * MS, held = 0, wanted = 0, step = MS / 10, since = 0;
	for (uint64_t t = t0; t < t0 + 1000 * MS; t += step) {
		if (since)
			x11_boost_share_spend(&share, t - since);
		since = 0;
		bool any = false;
		for (int i = 0; i < 16; i++) {
			/* grants staggered over the gap: together they would
			 * cover all of it */
			if ((t - t0 + (uint64_t)i * 2 * step) % (4 * MS) == 0)
				x11_boost_input(&b[i], &cfg, t);
			any = x11_boost_favoured(&b[i], t, true) || any;
		}
		if (any)
			wanted += step;
		if (any && x11_boost_share_left(&share, &cfg, t)) {
			held += step;
			since = t;
		}
	}
	CHECK(wanted >= 900 * MS);
	CHECK(held <= 250 * MS + 2 * MS + step);
	CHECK(held >= 240 * MS);

	/* Idle for a long time: the share refills to two credits, no more. */
	x11_boost_share_left(&share, &cfg, t0 + 100000 * MS);
	CHECK_INT(share.tokens_ns, 2 * MS);
	/* A hold that overran what was left is owed: 5 ms held, 2 ms left,
	 * so the next 12 ms (3 ms of debt at a quarter) hold nobody back. */
	x11_boost_share_spend(&share, 5 * MS);
	CHECK(!x11_boost_share_left(&share, &cfg, t0 + 100000 * MS));
	CHECK(!x11_boost_share_left(&share, &cfg, t0 + 100000 * MS + 12 * MS));
	CHECK(x11_boost_share_left(&share, &cfg, t0 + 100000 * MS + 13 * MS));
	CHECK_INT(share.tokens_ns, MS / 4);
}

/* A client's request stream for the XInput 1 watcher: the setup (with
 * authorization), GetInputFocus (seq 1), QueryExtension "XKEYBOARD" (2),
 * then, when `big`, a request of length 0 (BIG-REQUESTS or not: the X
 * server decides), then QueryExtension "XInputExtension" whose length is
 * `xi_units` and whose name's length is `name_len` (the X server answers
 * only 6 and 15), then one more request. */
static size_t xi1_requests(uint8_t *req, bool big, uint16_t xi_units, uint16_t name_len)
{
	size_t n = 0;
	memset(req, 0, 256);
	req[0] = msb ? 'B' : 'l';
	put16(req + 6, 18); /* "MIT-MAGIC-COOKIE-1" */
	put16(req + 8, 16);
	n = 12 + 20 + 16;
	req[n] = 43; /* GetInputFocus, seq 1 */
	put16(req + n + 2, 1);
	n += 4;
	req[n] = 98; /* QueryExtension "XKEYBOARD", seq 2 */
	put16(req + n + 2, 2 + 3);
	put16(req + n + 4, 9);
	memcpy(req + n + 8, "XKEYBOARD", 9);
	n += 20;
	if (big) {
		req[n] = 72; /* a BIG-REQUESTS PutImage of 40 bytes, seq 3 */
		put16(req + n + 2, 0);
		put32(req + n + 4, 10);
		n += 40;
	}
	req[n] = 98; /* QueryExtension "XInputExtension", seq 3 (4 after big) */
	put16(req + n + 2, xi_units);
	put16(req + n + 4, name_len);
	memcpy(req + n + 8, "XInputExtension", 15);
	n += 4 * (size_t)xi_units;
	req[n] = 1; /* one more request after it */
	put16(req + n + 2, 1);
	n += 4;
	return n;
}

/* Feeds the stream to a watched framer in pieces of `cut` bytes. */
static void xi1_feed(struct x11_request_framer *f, struct x11_xi1_query *q, const uint8_t *req,
		size_t n, size_t cut)
{
	*f = (struct x11_request_framer){ 0 };
	*q = (struct x11_xi1_query){ 0 };
	x11_xi1_query_watch(q, f);
	for (size_t at = 0; at < n; at += cut)
		x11_request_framer_feed(f, req + at, at + cut > n ? n - at : cut);
}

/* A reply (type 1), error (0) or event to the scanner, with sequence
 * number `seq`; a reply says "present, first event `first`". */
static size_t xi1_message(uint8_t *out, uint8_t type, uint16_t seq, uint8_t first)
{
	memset(out, 0, 32);
	out[0] = type;
	put16(out + 2, seq);
	if (type == 1) {
		out[8] = 1;
		out[10] = first;
	}
	return 32;
}

/* The setup reply the scanner starts with. */
static size_t xi1_setup_reply(uint8_t *out)
{
	memset(out, 0, 16);
	out[0] = 1;
	put16(out + 2, 11);
	put16(out + 6, 2);
	return 16;
}

/* XInput 1: the client's QueryExtension for XInputExtension found by its
 * request framer's watch at every cut (after a setup with authorization and
 * a QueryExtension for another name), the reply with its sequence number
 * read for the first event, and from then on its device events (first +
 * 1..5) counted as input, but not DeviceValuator (first + 0), a SendEvent
 * one, or anything while the first event is unknown. What the server half
 * learns holds for every client, so a question the X server does not
 * answer as asked is not believed: one of another length (refused with
 * BadLength), one with the name's length wrong, one after a request of
 * length 0 or in BIG-REQUESTS form (whose framing only the X server knows),
 * and an answer that was an error or never came (its sequence number comes
 * round on another reply 65,536 requests later). */
static void test_xi1(void)
{
	current_test = "XInput 1";
	for (int order = 0; order <= 1; order++) {
		msb = order;
		uint8_t req[256], req_big[256], req_long[256], req_name[256];
		size_t n = xi1_requests(req, false, 2 + 4, 15);
		size_t n_big = xi1_requests(req_big, true, 2 + 4, 15);
		size_t n_long = xi1_requests(req_long, false, 2 + 5, 15);
		size_t n_name = xi1_requests(req_name, false, 2 + 4, 14);
		/* the question itself in BIG-REQUESTS form (its fields after the
		 * 32-bit length, as the X server reads them) */
		uint8_t req_bigq[256];
		size_t n_bigq = n - 28;
		memcpy(req_bigq, req, n_bigq);
		req_bigq[n_bigq] = 98;
		put16(req_bigq + n_bigq + 2, 0);
		put32(req_bigq + n_bigq + 4, 2 + 4 + 1);
		put16(req_bigq + n_bigq + 8, 15);
		memcpy(req_bigq + n_bigq + 12, "XInputExtension", 15);
		n_bigq += 28;
		const size_t cuts[] = { 1, 2, 5, 11, 23, 24, 256 };
		for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
			struct x11_request_framer f;
			struct x11_xi1_query q;
			xi1_feed(&f, &q, req, n, cuts[k]);
			CHECK(q.asked);
			CHECK_INT(q.asked_seq, 3);
			CHECK(!x11_request_framer_watching(&f)); /* its reply is what matters now */
			CHECK_INT(f.requests, 4);
			CHECK_INT(f.skip, 0);
			CHECK(!q.lost);
			xi1_feed(&f, &q, req_big, n_big, cuts[k]);
			CHECK(!q.asked);
			CHECK(q.lost);
			CHECK(!x11_request_framer_watching(&f));
			CHECK_INT(f.requests, 5); /* counted on as BIG-REQUESTS */
			xi1_feed(&f, &q, req_bigq, n_bigq, cuts[k]);
			CHECK(!q.asked);
			CHECK(q.lost);
			xi1_feed(&f, &q, req_long, n_long, cuts[k]);
			CHECK(!q.asked);
			CHECK(x11_request_framer_watching(&f));
			CHECK_INT(f.requests, 4);
			xi1_feed(&f, &q, req_name, n_name, cuts[k]);
			CHECK(!q.asked);
			CHECK(x11_request_framer_watching(&f));
		}

		/* Answered by an error, or passed by an event or reply of a later
		 * request: the same sequence number on a reply 65,536 requests
		 * later (a QueryExtension for another name) is not the answer. */
		for (int how = 0; how < 3; how++) {
			uint8_t msgs[256];
			memset(msgs, 0, sizeof(msgs));
			size_t m = xi1_setup_reply(msgs);
			m += xi1_message(msgs + m, 1, 3, 80); /* an earlier reply */
			m += xi1_message(msgs + m, 6, 3, 0);  /* an event of an earlier request */
			msgs[m] = 11;                         /* KeymapNotify: no sequence number */
			put16(msgs + m + 2, 5);
			m += 32;
			struct x11_input_scan sc = { .want_reply = true, .want_seq = 4 };
			x11_input_scan_feed(&sc, msgs, m);
			CHECK(sc.want_reply);
			CHECK(!sc.missed);
			size_t mark = m;
			if (how == 0)
				m += xi1_message(msgs + m, 0, 4, 0); /* BadLength */
			else if (how == 1)
				m += xi1_message(msgs + m, 6, 5, 0); /* an event after it */
			else
				m += xi1_message(msgs + m, 1, 5, 90); /* the next reply */
			m += xi1_message(msgs + m, 1, 4, 90);         /* 65,536 requests on */
			for (size_t at = mark; at < m; at += 5)
				x11_input_scan_feed(&sc, msgs + at, at + 5 > m ? m - at : 5);
			CHECK(!sc.want_reply);
			CHECK(sc.missed);
			CHECK_INT(sc.learned, 0);
		}

		/* The output: the setup reply, a reply with another sequence number
		 * (not believed), QueryExtension's (first event 66), then events. */
		uint8_t out[1024];
		size_t m = 0;
		memset(out, 0, sizeof(out));
		out[0] = 1;
		put16(out + 2, 11);
		put16(out + 6, 2);
		m = 16;
		const uint8_t first = 66;
		for (uint16_t seq = 2; seq <= 4; seq += 2) {
			out[m] = 1;
			put16(out + m + 2, seq);
			out[m + 8] = 1;
			out[m + 10] = seq == 4 ? first : 80;
			m += 32;
		}
		size_t events = m;
		for (uint8_t t = first; t <= first + 6; t++, m += 32)
			out[m] = t; /* DeviceValuator, the five device events, FocusIn */
		out[m] = (uint8_t)((first + 1) | 0x80); /* a SendEvent DeviceKeyPress */
		m += 32;

		struct x11_input_scan sc = { .want_reply = true, .want_seq = 4 };
		CHECK_INT(x11_input_scan_feed(&sc, out, events), 0);
		CHECK_INT(sc.learned, first);
		CHECK(!sc.want_reply);
		/* not known to this scanner yet: not input */
		struct x11_input_scan before = sc;
		CHECK_INT(x11_input_scan_feed(&before, out + events, m - events), 0);
		sc.xi1_first = sc.learned;
		for (size_t at = events; at < m; at += 7) {
			static unsigned got;
			if (at == events)
				got = 0;
			got += x11_input_scan_feed(&sc, out + at, at + 7 > m ? m - at : 7);
			if (at + 7 >= m)
				CHECK_INT(got, 5);
		}
		/* a reply saying "not present" or an out-of-range event is not believed */
		struct x11_input_scan no = { .want_reply = true, .want_seq = 4 };
		out[16 + 32 + 8] = 0;
		x11_input_scan_feed(&no, out, events);
		CHECK_INT(no.learned, 0);
		struct x11_input_scan low = { .want_reply = true, .want_seq = 4 };
		out[16 + 32 + 8] = 1;
		out[16 + 32 + 10] = 35;
		x11_input_scan_feed(&low, out, events);
		CHECK_INT(low.learned, 0);
	}
}

/* The X server's time per client (x11_usage.h): charged per window, light
 * against its own idle time, and light grants as often as the client
 * stays light but never on top of a live grant. */
static void test_light(void)
{
	current_test = "light clients";
	const uint64_t W = X11_USAGE_WINDOW_NS;
	const uint64_t t0 = 1000 * W; /* a window's start */
	/* Two windows of the X server's work, in picks of 1 ms: N flooders
	 * served in turn, each with requests waiting all along; an echo
	 * that every 10 ms has 0.05 ms of requests and is idle until then. */
	enum {
		N = 12
	};
	struct x11_usage flood[N] = { 0 }, echo = { 0 }, idle = { 0 };
	for (int i = 0; i < N; i++)
		x11_usage_waiting(&flood[i], t0);
	x11_usage_idle(&echo, t0);
	x11_usage_idle(&idle, t0);
	for (uint64_t t = t0; t < t0 + 2 * W; t += MS) {
		if ((t - t0) % (10 * MS) == 0) {
			x11_usage_waiting(&echo, t);
			x11_usage_charge(&echo, t + MS / 20, MS / 20);
			x11_usage_idle(&echo, t + MS / 20);
		}
		unsigned k = (unsigned)((t - t0) / MS) % N;
		x11_usage_charge(&flood[k], t, MS);
	}
	uint64_t now = t0 + 2 * W - 1;
	CHECK_INT(x11_usage_recent(&echo, now), MS);
	CHECK_INT(x11_usage_idle_recent(&flood[0], now), 0);
	/* the echo was idle all but its 20 x 0.05 ms */
	CHECK_INT(x11_usage_idle_recent(&echo, now), 2 * W - 1 - MS);
	struct x11_usage_sum sum = { 0 };
	for (int i = 0; i < N; i++)
		x11_usage_add(&sum, &flood[i], now);
	x11_usage_add(&sum, &echo, now);
	x11_usage_add(&sum, &idle, now);
	CHECK_INT(sum.used, N + 1); /* `idle` used nothing */
	CHECK(x11_usage_light(&echo, &sum, 25, now));
	/* `idle` used nothing, so it has no history: not judged yet */
	CHECK(!x11_usage_light(&idle, &sum, 25, now));
	/* nor is a client that started within the last window */
	struct x11_usage young = { 0 };
	x11_usage_idle(&young, t0);
	x11_usage_charge(&young, now - W / 2, MS / 20);
	CHECK(!x11_usage_light(&young, &sum, 25, now));
	CHECK(x11_usage_light(&young, &sum, 25, now - W / 2 + W));
	for (int i = 0; i < N; i++)
		CHECK(!x11_usage_light(&flood[i], &sum, 25, now));
	CHECK(!x11_usage_light(&echo, &sum, 0, now)); /* 0: off */
	/* Alone (nobody else used time lately): nobody to be served ahead of. */
	struct x11_usage_sum alone = { 0 };
	x11_usage_add(&alone, &echo, now);
	CHECK(!x11_usage_light(&echo, &alone, 25, now));
	/* A newcomer (session 41): the young client, and one never charged,
	 * until it has used X11_USAGE_NEW_BUDGET_NS in all or is a window
	 * old; never alone, never with pct 0; a flooder that was charged more
	 * is none. */
	CHECK(x11_usage_newcomer(&young, &sum, 25, now));
	CHECK(x11_usage_newcomer(&idle, &sum, 25, now));
	CHECK(!x11_usage_newcomer(&young, &sum, 0, now));
	struct x11_usage_sum only_young = { 0 };
	x11_usage_add(&only_young, &young, now);
	CHECK(!x11_usage_newcomer(&young, &only_young, 25, now));
	x11_usage_charge(&young, now, X11_USAGE_NEW_BUDGET_NS - MS / 20 - 1);
	CHECK(x11_usage_newcomer(&young, &sum, 25, now));
	x11_usage_charge(&young, now, 1);
	CHECK(!x11_usage_newcomer(&young, &sum, 25, now));
	/* nor, under the budget, once a window old: the light rule judges it */
	struct x11_usage old = { 0 };
	x11_usage_charge(&old, now - W / 2, MS / 20);
	CHECK(x11_usage_newcomer(&old, &sum, 25, now));
	CHECK(!x11_usage_newcomer(&old, &sum, 25, now - W / 2 + W));
	for (int i = 0; i < N; i++)
		CHECK(!x11_usage_newcomer(&flood[i], &sum, 25, now));

	/* However many flooders share the X server (session 28: among 76 an
	 * echo used more than a quarter of the mean, which was the rule), a
	 * flooder is never light and the echo always is: the echo's time
	 * against its own idle time does not depend on the others. The
	 * flooders' share of each window shrinks with their number; a
	 * flooder the round robin did not reach lately used nothing, and
	 * was not idle either. */
	for (unsigned n = 12; n <= 200; n += 47) {
		struct x11_usage f[200] = { 0 }, e = { 0 };
		struct x11_usage_sum all = { 0 };
		for (unsigned i = 0; i < n; i++)
			x11_usage_waiting(&f[i], t0);
		x11_usage_idle(&e, t0);
		for (uint64_t t = t0, k = 0; t < t0 + 3 * W; t += 2 * MS, k++) {
			if ((t - t0) % (10 * MS) == 0) {
				x11_usage_waiting(&e, t);
				x11_usage_charge(&e, t + MS / 10, MS / 10);
				x11_usage_idle(&e, t + MS / 10);
			}
			x11_usage_charge(&f[k % n], t, 2 * MS);
		}
		uint64_t end = t0 + 3 * W - 1;
		for (unsigned i = 0; i < n; i++)
			x11_usage_add(&all, &f[i], end);
		x11_usage_add(&all, &e, end);
		CHECK(x11_usage_light(&e, &all, 25, end));
		unsigned light = 0, unused = 0;
		for (unsigned i = 0; i < n; i++) {
			light += x11_usage_light(&f[i], &all, 25, end);
			unused += x11_usage_recent(&f[i], end) == 0;
		}
		CHECK_INT(light, 0);
		CHECK(n < 100 || unused > 0); /* the case the mean rule got wrong */
	}

	/* A program that uses a fifth of the X server and is idle the rest
	 * (a heavy animation) is at the edge: light below pct = 25 only
	 * while it uses less than a quarter of its idle time. */
	for (unsigned use = 15; use <= 25; use += 10) {
		struct x11_usage a = { 0 };
		struct x11_usage_sum two = { .used = 2 };
		x11_usage_idle(&a, t0);
		for (uint64_t t = t0; t < t0 + 2 * W; t += 10 * MS) {
			x11_usage_waiting(&a, t);
			x11_usage_charge(&a, t + use * MS / 10, use * MS / 10);
			x11_usage_idle(&a, t + use * MS / 10);
		}
		/* use% running, 100 - use% idle: light below 20% (a quarter of 80) */
		CHECK(x11_usage_light(&a, &two, 25, t0 + 2 * W - 1) == (use < 20));
	}

	/* Idle spans: counted in the windows they cover, the one under way
	 * too, and forgotten with their windows. */
	struct x11_usage s = { 0 };
	x11_usage_idle(&s, t0 + W / 2);
	CHECK_INT(x11_usage_idle_recent(&s, t0 + W), W / 2);
	CHECK_INT(x11_usage_idle_recent(&s, t0 + W + W / 4), W / 2 + W / 4);
	x11_usage_idle(&s, t0 + W + W / 4); /* idle already: no new span */
	x11_usage_waiting(&s, t0 + W + W / 2);
	CHECK_INT(x11_usage_idle_recent(&s, t0 + W + W / 2), W);
	CHECK_INT(s.idle_total_ns, W);
	x11_usage_waiting(&s, t0 + W + W / 2 + 1); /* waiting already */
	CHECK_INT(s.idle_total_ns, W);
	/* a window later the first half-window is forgotten */
	CHECK_INT(x11_usage_idle_recent(&s, t0 + 2 * W), W / 2);
	CHECK_INT(x11_usage_idle_recent(&s, t0 + 3 * W), 0);
	/* a span longer than two windows counts as the two it ends in */
	x11_usage_idle(&s, t0 + 3 * W);
	CHECK_INT(x11_usage_idle_recent(&s, t0 + 8 * W + W / 2), W + W / 2);
	x11_usage_waiting(&s, t0 + 8 * W + W / 2);
	CHECK_INT(x11_usage_idle_recent(&s, t0 + 8 * W + W / 2), W + W / 2);
	CHECK_INT(x11_usage_idle_recent(&s, t0 + 9 * W), W / 2);

	/* Session 42, the light rule's `0 < 0`: a program kept waiting with
	 * requests unread for two whole windows (refused a grant: the light
	 * share spent, a full table) used nothing and was idle not at all in
	 * them. That says nothing of it: it is judged by the last windows it
	 * was charged or idle in. The echo above stays light; a flooder kept
	 * waiting as long stays heavy; a program with no evidence at all
	 * (never charged nor idle) is not light. */
	{
		struct x11_usage e = echo, f = flood[0];
		x11_usage_waiting(&e, now);
		x11_usage_waiting(&f, now);
		uint64_t later = now + 3 * W; /* two whole windows later */
		CHECK_INT(x11_usage_recent(&e, later), 0);
		CHECK_INT(x11_usage_idle_recent(&e, later), 0);
		CHECK(x11_usage_light(&e, &sum, 25, later));
		CHECK(!x11_usage_light(&f, &sum, 25, later));
		CHECK(!x11_usage_light(&e, &sum, 0, later)); /* 0: off still */
		/* once read and charged, it is judged on the new windows: the
		 * echo turned flooder, charged with nothing idle, is heavy */
		x11_usage_charge(&e, later, MS);
		CHECK(!x11_usage_light(&e, &sum, 25, later + 1));
		struct x11_usage blank = { .first_ns = t0 };
		CHECK(!x11_usage_light(&blank, &sum, 25, later));
	}

	/* Windows roll: a window later the older one is forgotten, two
	 * windows later everything is. */
	CHECK_INT(x11_usage_recent(&echo, now + W), echo.cur_ns);
	CHECK_INT(x11_usage_recent(&echo, now + 2 * W + 1), 0);
	x11_usage_charge(&echo, now + 2 * W + 1, MS);
	CHECK_INT(x11_usage_recent(&echo, now + 2 * W + 1), MS);
	/* A stall longer than a window is charged as one window. */
	x11_usage_charge(&idle, now, 10 * W);
	CHECK_INT(x11_usage_recent(&idle, now), W);

	/* Light grants: one per lapse, none on top of a live grant. */
	struct x11_boost_config cfg = {
		.credit_ns = 4 * MS, .gap_ns = 16 * MS, .window_ns = 100 * MS
	};
	struct x11_boost b = { 0 };
	CHECK(x11_boost_light(&b, &cfg, t0));
	CHECK(!x11_boost_light(&b, &cfg, t0 + MS)); /* still live */
	CHECK(x11_boost_favoured(&b, t0 + MS, true));
	/* A read under a light grant is told apart (the server half bounds
	 * it); the grant stays live for the next requests. */
	CHECK(x11_boost_served(&b, t0 + 2 * MS));
	CHECK_INT(b.credit_ns, 3 * MS);
	CHECK(x11_boost_live(&b, t0 + 2 * MS));
	CHECK(x11_boost_served(&b, t0 + 3 * MS));
	CHECK_INT(b.light_served, 2);
	CHECK(!x11_boost_served(&b, t0 + 101 * MS)); /* expired: not under it */
	CHECK_INT(b.light_served, 2);
	CHECK(x11_boost_light(&b, &cfg, t0 + 101 * MS)); /* expired: a new one */
	CHECK_INT(b.credit_ns, 4 * MS);
	CHECK_INT(b.light_grants, 2);
	CHECK_INT(b.grants, 0); /* input grants counted apart */
	/* Input right after a light grant still makes an input grant (its gap
	 * counts input grants only), and a read does not end it: the rest of
	 * the answer to the input may follow. */
	CHECK(x11_boost_input(&b, &cfg, t0 + 105 * MS));
	CHECK(x11_boost_favoured(&b, t0 + 105 * MS, true));
	CHECK(!x11_boost_served(&b, t0 + 106 * MS));
	CHECK(x11_boost_live(&b, t0 + 106 * MS));
	CHECK_INT(b.credit_ns, 3 * MS);

	/* A light grant held back for input spends nothing meanwhile. */
	struct x11_boost h = { 0 };
	CHECK(x11_boost_light(&h, &cfg, t0));
	CHECK(x11_boost_favoured(&h, t0, true));
	x11_boost_hold(&h); /* input is favoured from t0 on */
	CHECK(!x11_boost_favoured(&h, t0 + 3 * MS, true) || h.credit_ns == 4 * MS);
	CHECK_INT(h.credit_ns, 4 * MS);
	CHECK_INT(h.favoured_ns, 0);
	/* favoured again from t0 + 3 ms: charged from there */
	x11_boost_favoured(&h, t0 + 4 * MS, false);
	CHECK_INT(h.credit_ns, 3 * MS);
	struct x11_boost_config off = { 0 };
	struct x11_boost z = { 0 };
	CHECK(!x11_boost_light(&z, &off, t0));

	/* A grant ended (a light grant's read that left requests waiting)
	 * is over at once: not live, no read served under it, its favour
	 * settled; a new one is the server half's to give (when the client
	 * was found idle). */
	struct x11_boost e = { 0 };
	CHECK(x11_boost_light(&e, &cfg, t0));
	CHECK(x11_boost_favoured(&e, t0, true));
	CHECK(x11_boost_served(&e, t0 + MS));
	x11_boost_end(&e);
	CHECK(!x11_boost_live(&e, t0 + MS));
	CHECK(!x11_boost_favoured(&e, t0 + MS, true));
	CHECK(!x11_boost_served(&e, t0 + 2 * MS));
	CHECK_INT(e.light_served, 1);
	CHECK_INT(x11_boost_deadline(&e, t0 + 2 * MS), 0);
	CHECK(x11_boost_light(&e, &cfg, t0 + 3 * MS));
}

/* A connection setup (no authorization) and then `n` PolyFillRectangle
 * requests of `rects` rectangles each: 12 + 8 * rects bytes apiece. */
static size_t fill_stream(uint8_t *out, int n, int rects)
{
	memset(out, 0, 12);
	out[0] = msb ? 'B' : 'l';
	size_t len = 12;
	for (int i = 0; i < n; i++) {
		uint8_t *r = out + len;
		size_t bytes = 12 + 8 * (size_t)rects;
		memset(r, 0, bytes);
		r[0] = 70; /* PolyFillRectangle */
		put16(r + 2, (uint32_t)(bytes / 4));
		len += bytes;
	}
	return len;
}

static void test_read_cut(void)
{
	current_test = "read cut";
	for (int order = 0; order < 2; order++) {
		msb = order;
		static uint8_t stream[64 * 1024];
		/* 412-byte requests, as x11-plaid's 50 rectangles. */
		size_t len = fill_stream(stream, 100, 50);
		struct x11_request_framer c = { 0 };
		/* Before the setup is past: never cut. */
		CHECK_INT(x11_request_framer_cut(&c, 16384, 256), 16384);
		/* Reads as the X server makes them (16 KiB of room), each cut to
		 * the rest of the request under way plus 256 bytes: every read
		 * begins at most one request past the one it completes, and
		 * never leaves the reader without the rest of a request it has
		 * begun. */
		x11_request_framer_feed(&c, stream, 12);
		size_t pos = 12;
		unsigned reads = 0;
		while (pos < len) {
			size_t room = 16384, avail = len - pos;
			size_t n = x11_request_framer_cut(&c, room < avail ? room : avail, 256);
			uint64_t begun = c.requests, rest = c.skip;
			CHECK(n >= rest || n == avail);
			CHECK(n <= rest + 256);
			x11_request_framer_feed(&c, stream + pos, n);
			CHECK(c.requests - begun <= 1);
			pos += n;
			reads++;
		}
		CHECK_INT(c.requests, 100);
		CHECK(reads >= 100); /* about one read per request */
		/* Small requests: up to 256 bytes of them past the one under way. */
		struct x11_request_framer d = { 0 };
		len = fill_stream(stream, 1000, 0); /* 12-byte requests */
		x11_request_framer_feed(&d, stream, 12 + 12 * 10 + 4);
		CHECK_INT(d.skip, 8);
		CHECK_INT(x11_request_framer_cut(&d, 16384, 256), 8 + 256);
		CHECK_INT(x11_request_framer_cut(&d, 100, 256), 100); /* less asked: less given */
		/* Inside a header still being collected: the rest of the header
		 * and 256 bytes past it (not uncut: request sizes that put each
		 * cut inside a header would keep the buffer whole). */
		x11_request_framer_feed(&d, stream + 12 + 12 * 10 + 4, 8 + 2);
		CHECK_INT(d.have, 2);
		CHECK_INT(x11_request_framer_cut(&d, 16384, 256), 2 + 256);
		/* Reads that end inside a header (the X server's room is any
		 * size: here 16 KiB, then 158 bytes): the next one still ends
		 * within 256 bytes past that header, not 16 KiB later. */
		struct x11_request_framer e = { 0 };
		len = fill_stream(stream, 100, 50);
		x11_request_framer_feed(&e, stream, 12);
		size_t opos = 12;
		unsigned inside = 0;
		for (int k = 0; opos < len; k++) {
			size_t room = k % 2 ? 158 : 16384, avail = len - opos;
			size_t n = x11_request_framer_cut(&e, room < avail ? room : avail, 256);
			inside += e.have > 0;
			CHECK(n <= e.skip + 8 + 256);
			x11_request_framer_feed(&e, stream + opos, n);
			opos += n;
		}
		CHECK(inside > 0); /* the case was met */
		CHECK_INT(e.requests, 100);
		/* A BIG-REQUESTS request of 1 MiB under way: its rest is given
		 * whole, however short the cut. */
		struct x11_request_framer big = { 0 };
		uint8_t hdr[12 + 8] = { 0 };
		hdr[0] = msb ? 'B' : 'l';
		hdr[12] = 72; /* PutImage */
		put16(hdr + 14, 0);
		put32(hdr + 16, (1u << 20) / 4);
		x11_request_framer_feed(&big, hdr, sizeof(hdr));
		CHECK_INT(big.skip, (1u << 20) - 8);
		CHECK_INT(x11_request_framer_cut(&big, 2u << 20, 0), (1u << 20) - 8);
		/* ... and the X server, which has grown its buffer for it, asks
		 * for exactly that rest: still whole. */
		CHECK_INT(x11_request_framer_cut(&big, (1u << 20) - 8, 256), (1u << 20) - 8);

		/* A request of length 0 from a client without BIG-REQUESTS: the
		 * X server reads it as 4 bytes, and the next 4 (taken here as a
		 * 32-bit length) begin its next request. Believed, that length
		 * left the client's reads uncut until the count caught up. */
		struct x11_request_framer lie = { 0 };
		x11_request_framer_feed(&lie, hdr, 12);
		uint8_t zero[8] = { 127 };
		put16(zero + 2, 0);
		put32(zero + 4, 0x00100000); /* "4 MiB": 1 and 16 as the next header */
		x11_request_framer_feed(&lie, zero, sizeof(zero));
		CHECK(lie.skip > 16384);
		/* The X server asks for its buffer's room, less than the rest we
		 * counted: not its framing, so 256 bytes. */
		CHECK_INT(x11_request_framer_cut(&lie, 16384, 256), 256);
		/* A length that fits the X server's read (16,000 bytes), which
		 * libxcb would never send in the BIG-REQUESTS form: 256 too. */
		struct x11_request_framer odd = { 0 };
		x11_request_framer_feed(&odd, hdr, 12);
		put32(zero + 4, 16000 / 4);
		x11_request_framer_feed(&odd, zero, sizeof(zero));
		CHECK_INT(odd.skip, 16000 - 8);
		CHECK_INT(x11_request_framer_cut(&odd, 16384, 256), 256);
		/* The next ordinary request is believed again. */
		uint8_t rest[16000 - 8 + 8] = { 0 };
		rest[16000 - 8] = 70;
		put16(rest + 16000 - 8 + 2, 412 / 4);
		x11_request_framer_feed(&odd, rest, sizeof(rest));
		CHECK_INT(odd.skip, 412 - 8);
		CHECK_INT(x11_request_framer_cut(&odd, 16384, 256), 412 - 8 + 256);
	}
	msb = false;
}

/* Light grants use only the shared time above one credit: a person's
 * input always finds a whole grant's worth left, however many light
 * clients took turns before it (x11_boost_share_spare). */
static void test_share_spare(void)
{
	current_test = "share kept for input";
	const struct x11_boost_config cfg = {
		.credit_ns = 4 * MS, .gap_ns = 16 * MS, .window_ns = 100 * MS
	};
	struct x11_boost_share share = { 0 };
	const uint64_t t0 = 1000 * MS;
	CHECK(x11_boost_share_left(&share, &cfg, t0)); /* starts at two credits */
	CHECK(x11_boost_share_spare(&share, &cfg));
	/* Light clients take turns as fast as they like: they are favoured
	 * only while more than a credit is left, so what they spend stops
	 * within one hold of that line. */
	uint64_t t = t0, light_ns = 0;
	for (int i = 0; i < 1000; i++, t += MS / 4) {
		if (x11_boost_share_left(&share, &cfg, t) && x11_boost_share_spare(&share, &cfg)) {
			x11_boost_share_spend(&share, MS); /* a 1 ms slice each */
			light_ns += MS;
		}
		CHECK(share.tokens_ns > (int64_t)(2 * MS)); /* never below a credit minus a hold */
	}
	/* a quarter of the 250 ms and the credit above the line, no more */
	CHECK(light_ns <= 250 * MS / 4 + 4 * MS + MS);
	/* Input then has its credit, less at most the last light hold. */
	CHECK(x11_boost_share_left(&share, &cfg, t));
	CHECK(share.tokens_ns >= (int64_t)(3 * MS));
}

int main(void)
{
	test_scan();
	test_grants();
	test_fair_share();
	test_shared();
	test_light();
	test_xi1();
	test_read_cut();
	test_share_spare();
	return failures != 0;
}

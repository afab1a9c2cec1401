/*
 * The input boost's accounting for one X connection (pure; the X server's
 * half applies it in xserver/input_boost.c, docs/x11.md "Scheduling X
 * clients").
 *
 * A client that is sent input gets a grant: for the next `window_ns`, up
 * to `credit_ns` of time during which its pending requests are served
 * before other clients' (they are told "nothing to read"). The credit is
 * spent while the client has requests waiting, whether or not they run,
 * so a busy client that is typed into holds the others back for at most
 * credit_ns per grant; grants come at most one per `gap_ns`, which bounds
 * what a client under a stream of input (pointer motion at 1000 Hz) takes
 * from the others to credit_ns / gap_ns of the time. Grants do not add up:
 * a new one refills the credit.
 */
#ifndef SMT_X11_BOOST_H
#define SMT_X11_BOOST_H

#include <stdbool.h>
#include <stdint.h>

struct x11_boost_config {
	uint64_t credit_ns; /* 0: no boost */
	uint64_t gap_ns;    /* at least this between two grants */
	uint64_t window_ns; /* a grant unused this long after the input ends */
};

struct x11_boost {
	uint64_t credit_ns; /* left of the current grant */
	uint64_t expires_ns;
	uint64_t last_grant_ns;
	uint64_t pending_since; /* 0: not being favoured now */
	uint64_t grants;        /* statistics */
	uint64_t favoured_ns;
	uint64_t served;       /* favoured until its requests were read */
	uint64_t lapsed;       /* favoured until the credit ran out */
	uint64_t light_grants; /* grants for being light (x11_usage.h) */
	uint64_t light_served; /* reads served under a light grant */
	/* The current grant is a light one (x11_boost_light), not input's:
	 * input's come first (x11_boost_share_spare, xserver/input_boost.c). */
	bool light;
};

/* All favoured clients together: the time during which some client is
 * favoured refills at credit_ns per gap_ns of time passing, up to two
 * credits, so that many clients receiving input (every window that selects
 * pointer motion) cannot add their shares up to hold the others back. */
struct x11_boost_share {
	int64_t tokens_ns; /* below 0: a debt, from a hold that overran */
	uint64_t last_ns;
	bool started;
};

/* Refills at `now`; true while some time is left. */
bool x11_boost_share_left(
		struct x11_boost_share *s, const struct x11_boost_config *cfg, uint64_t now);
/* Someone was favoured for ns. */
void x11_boost_share_spend(struct x11_boost_share *s, uint64_t ns);
/* More than one credit left (after x11_boost_share_left's refill): light
 * grants may only use the time above one credit, so that light clients,
 * however many and however often they take turns being light (a program
 * with many connections that flood in turn), always leave a person's input
 * a whole grant's worth of the shared time. */
bool x11_boost_share_spare(const struct x11_boost_share *s, const struct x11_boost_config *cfg);

/* The client was sent input at `now`. True if that made a grant. */
bool x11_boost_input(struct x11_boost *b, const struct x11_boost_config *cfg, uint64_t now);
/* The client, light (x11_usage.h), has requests waiting at `now`: a grant
 * unless it holds a live one. Unlike input's, these come as often as the
 * client stays light: what bounds them is that it used less than a fair
 * share, and the shared time below. True if that made a grant. */
bool x11_boost_light(struct x11_boost *b, const struct x11_boost_config *cfg, uint64_t now);
/* Credit left and not expired. */
bool x11_boost_live(const struct x11_boost *b, uint64_t now);
/* The client has requests waiting at `now` (pending) or not: charges the
 * time it has been favoured. Returns whether it is favoured now. */
bool x11_boost_favoured(struct x11_boost *b, uint64_t now, bool pending);
/* The X server reads the client's requests: if it was favoured, that
 * ended with it served ahead of the others. True if the read was served
 * under a live light grant (the server half then bounds what that read
 * may take: xserver/input_boost.c). The grant stays live for the
 * client's next requests, input's and light ones alike. */
bool x11_boost_served(struct x11_boost *b, uint64_t now);
/* The grant is over (a light grant whose one read left requests
 * waiting: xserver/input_boost.c): not live from now, so it favours the
 * client no more and leaves the table of grants. */
void x11_boost_end(struct x11_boost *b);
/* Held back while favoured (a light grant giving way to an input grant):
 * the time since its last charge is not spent from its credit, and it is
 * not favoured until the next x11_boost_favoured says so. */
void x11_boost_hold(struct x11_boost *b);
/* When the current grant runs out if the client stays pending (for the X
 * server's sleep), or 0 if it is not live. */
uint64_t x11_boost_deadline(const struct x11_boost *b, uint64_t now);

#endif

/*
 * The input boost (docs/x11.md "Scheduling X clients"): an X client that
 * was just sent input (a key, a button, pointer motion: core or XInput 2)
 * has its next requests served before busy clients', as the compositor's
 * ring scheduler does for ring clients. So has a *light* client, one that
 * used the X server lately for less than light_pct (25%) of the time it
 * had nothing waiting (x11_usage.h: the time between its reads is charged to
 * it; its idle time runs from a read that took all it had to the next
 * sight of its requests), when epoll reports it with requests waiting: an
 * animation or an echo that nobody types into. Xwayland's own smart scheduler
 * only praises core input events, not XI2 ones (GTK 3, Firefox), and a
 * client it favours still waits for the running client's slice; nothing of
 * Xwayland is patched here, only what it reads and when:
 *
 * - while a boosted client has requests waiting ("favoured"), every other
 *   client's read says "nothing yet" (EAGAIN: the X server ends its turn
 *   and takes it off its ready list) and epoll does not report it, so the
 *   next pick finds the favoured client; once no client is favoured, the
 *   held ones are reported again;
 * - while any grant is live, other clients' reads are cut to the
 *   rest of the request under way plus INPUT_BOOST_READ_CAP bytes, so
 *   what the X server already buffered for them (and runs without reading)
 *   is short when the favoured client's requests arrive.
 *
 * Light clients' requests come unannounced, so with `light_cut`
 * (SMT_XWAYLAND_LIGHT_READ_CAP) two more things happen while some client
 * is light and active (it used the X server lately: an echo, an
 * animation). Without them the X server ran each held client's buffered
 * requests (up to 16 KiB, a whole slice) before the light one: a held
 * client leaves the X server's ready list only at its next read, and the
 * smart scheduler's round robin picks the held ones first about as often
 * as not (docs/x11.md "The tail: held clients' buffered requests"):
 * - other clients' reads (ring and socket) are cut to the rest of the
 *   request under way plus `light_cut` bytes all along, not only once a
 *   grant is live, so a held client's buffer holds about nothing the X
 *   server could run;
 * - at every read of another client, a light one's waiting requests (its
 *   ring; a socket's FIONREAD at most every LIGHT_SOCKET_PEEK_NS) get it
 *   its grant at once and that read is refused, instead of at the X
 *   server's next poll, after the running client's slice.
 *
 * Light is judged per program (struct xconn_owner: the connections of one
 * pid), not per connection: a program with many connections that flood in
 * turn has each of them idle most of the time, and judged one by one each
 * would be light at the start of its turn (red team, session 26:
 * x11-plaid --connections). Input grants come before light ones: while a
 * client with an input grant is favoured, light-granted clients are held
 * too, and light grants use only the shared time above one credit
 * (x11_boost_share_spare), so however many programs take turns being
 * light, a person's input keeps its grant.
 *
 * A program can fork: K processes taking turns are K programs, each light
 * at its turn (session 27's red team: x11-plaid --fork), and nothing the
 * kernel tells about a process that it cannot shed separates them (the
 * uid is the whole session's; process group, session and parent chain can
 * be left). So what light grants give is bounded instead of who gets
 * them: a read served under a light grant takes at most LIGHT_GRANT_READ
 * bytes past the request under way and ends the client's pick; one that
 * left requests waiting (a burst) makes the grant unusable until the X
 * server finds the client idle (light_earned); and the time of those
 * reads, over everyone, stays within a quarter (light_share).
 *
 * Fair share: x11_boost.h. The connection to the window manager (a
 * socketpair Xwayland did not accept) is never held back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "common/monotonic_clock.h"
#include "xwayland-glue/stream/x11_usage.h"
#include "xwayland-glue/xserver/xconn.h"

/* What another client's read may return past the request under way
 * while a grant is live: two or three ordinary requests. */
#define INPUT_BOOST_READ_CAP 1024
/* A grant unused this long after its input lapses: a reply to input that
 * takes longer is not interactive any more. */
#define INPUT_BOOST_WINDOW_MS 100
/* Grants at most every this many credits: a client under a stream of input
 * takes at most a quarter of the others' time through its grants. */
#define INPUT_BOOST_GAP_CREDITS 4
/* Connections with a grant at once; more wait for their next input. */
#define INPUT_BOOST_MAX 16
/* Of those, at most this many light grants: the rest of the table is
 * kept for input grants (input first), whatever light clients do. */
#define LIGHT_GRANTS_MAX 12
/* What the read that a light grant serves may take past the request
 * under way: a light client's redraw (an echo's rectangle and property
 * change are 44 bytes), and a bound on what one grant can buy. */
#define LIGHT_GRANT_READ 4096
/* A light socket client's waiting requests are looked for (FIONREAD, a
 * syscall) at another client's read at most this often; a ring's every
 * time (a load from its header). */
#define LIGHT_SOCKET_PEEK_NS 50000
/* SMT_XWAYLAND_LIGHT_READ_CAP's upper bound: the X server's read buffer. */
#define LIGHT_READ_CAP_MAX 16384
/* The pids of the last programs that left: one of them connecting again
 * is no newcomer (x11_usage_newcomer's budget is per program, and a
 * program that closes its last connection and reconnects would renew it).
 * A new process is a new pid: what bounds those is that newcomers' grants
 * are paid from the light time left spare (give_light). */
#define RETURNING_PIDS 64

static struct x11_boost_config cfg;
static bool cfg_read;
/* Light below this percentage of its own idle time lately (0: no light
 * grants). */
static unsigned light_pct;
/* Bytes past the request under way that another client's read may
 * return while a client is light and active; 0: no such cut and no grant
 * at reads (only at polls). */
static size_t light_cut;
/* Light clients that used the X server lately, found at the last poll. */
static struct xconn *light[INPUT_BOOST_MAX];
static unsigned nlight;
static uint64_t socket_peek_ns; /* the last FIONREAD of a light socket */
/* The connection the X server read in this pick (since its last poll),
 * or NULL: none. Dispatch serves one client per pick, so what the pick
 * cost is that client's work. */
static struct xconn *running;
/* The connection whose light grant this pick's read used, or NULL: its
 * further reads in the pick are refused (a light grant is one read, then
 * back to Xwayland's round robin), and the pick's time is charged to
 * light_share. */
static struct xconn *light_serving;
/* The connection whose light grant this pick's read used, FRESH ones
 * included (a newcomer's hello or connection setup, read whole, never cut
 * or refused): the pick's time is charged to light_share. */
static struct xconn *light_paying;
/* The X server's thread CPU time at its last poll. CPU time, not wall
 * time: on a loaded machine the kernel gives Xwayland's CPU to others in
 * the middle of a pick, and by the wall clock that was charged to the
 * client of the pick (an echo charged 150-550 ms in 2 s among 4-12
 * flooders at load 14-19, a third of a flooder's, and so no longer light:
 * session 25's runs of integration/x11_light_tail and
 * tests/bench/x11/light_tail.py). */
static uint64_t cpu_mark;
/* The X server's working time so far, the clock of x11_usage: "lately" is
 * the last 100-200 ms of its work, not of the wall clock, so that on a
 * loaded machine, where Xwayland runs a fraction of the time, a window
 * still spans a whole round of the busy clients (by the wall clock, a
 * flooder the X server had no time for in one window looked light in the
 * next: measured in integration/x11_boost_xwayland under ASan and load). Starts
 * at 1: 0 means "never charged". */
static uint64_t work_ns = 1;

static void charge(struct xconn *c, uint64_t ns)
{
	if (ns > X11_USAGE_WINDOW_NS)
		ns = X11_USAGE_WINDOW_NS; /* a stall: the X server was not running */
	work_ns += ns;
	x11_usage_charge(&c->usage, work_ns, ns);
	if (c->owner)
		x11_usage_charge(&c->owner->usage, work_ns, ns);
}

/* c has requests waiting from now, or none: its idle time, and its
 * program's while none of the program's connections waits, is what
 * lightness is judged by (x11_usage.h). On the X server's working clock,
 * like the time charged. */
static void set_waiting(struct xconn *c, bool waiting)
{
	if (c->waiting == waiting || light_pct == 0)
		return;
	c->waiting = waiting;
	struct xconn_owner *o = c->owner;
	if (waiting) {
		x11_usage_waiting(&c->usage, work_ns);
		if (o && o->waiting++ == 0)
			x11_usage_waiting(&o->usage, work_ns);
	} else {
		x11_usage_idle(&c->usage, work_ns);
		if (o && --o->waiting == 0)
			x11_usage_idle(&o->usage, work_ns);
	}
}
/* XInput 1's first event in this X server (0: not known yet), from the
 * first reply to a client's QueryExtension for it (x11_xi1_query.h). */
static uint8_t xi1_first;
static struct xconn *boosted[INPUT_BOOST_MAX];
static struct x11_boost_share share;
/* The X server's time spent on the reads that light grants served, over
 * all light clients, whatever program, process or uid they are: it
 * refills at a quarter of the time, like the shared favour, and no light
 * grant is made while it is spent. The favour share above bounds how long
 * others wait for favoured clients to be read; this one what the reads
 * then cost, so no set of processes, however many take turns being
 * light, gets more than a quarter of the X server through light grants
 * (docs/x11.md "Light clients": the forked gamer). */
static struct x11_boost_share light_share;
static uint64_t favour_since; /* someone favoured since (0: nobody) */
static unsigned nboosted;

/* Grants that lapsed leave the table (someone_favoured drops them as it
 * settles them; this makes room between two of its sweeps). */
static void drop_lapsed(uint64_t now)
{
	for (unsigned i = 0; i < nboosted;) {
		struct x11_boost *b = &boosted[i]->boost;
		if (x11_boost_live(b, now)) {
			i++;
			continue;
		}
		x11_boost_favoured(b, now, false); /* settles a hold under way */
		boosted[i] = boosted[--nboosted];
	}
}

/* c is in the table of grants. */
static bool listed(const struct xconn *c)
{
	for (unsigned i = 0; i < nboosted; i++)
		if (boosted[i] == c)
			return true;
	return false;
}
/* Some connection is held back (a refused read or a dropped event) and
 * needs reporting once nobody is favoured. */
static bool any_held;

static const struct x11_boost_config *config(void)
{
	if (!cfg_read) {
		cfg_read = true;
		const char *v = getenv("SMT_XWAYLAND_INPUT_BOOST_US");
		char *end;
		long us = v && *v ? strtol(v, &end, 10) : 0;
		if (v && *v && (*end || us < 0 || us > INPUT_BOOST_MAX_US)) {
			xconn_log(NULL, "SMT_XWAYLAND_INPUT_BOOST_US=%s is not 0-%d us: no input boost",
					v, INPUT_BOOST_MAX_US);
			us = 0;
		}
		cfg.credit_ns = (uint64_t)us * 1000;
		cfg.gap_ns = cfg.credit_ns * INPUT_BOOST_GAP_CREDITS;
		cfg.window_ns = (uint64_t)INPUT_BOOST_WINDOW_MS * 1000000;
		v = getenv("SMT_XWAYLAND_LIGHT_BOOST_PCT");
		long pct = v && *v ? strtol(v, &end, 10) : 0;
		if (v && *v && (*end || pct < 0 || pct > 100)) {
			xconn_log(NULL, "SMT_XWAYLAND_LIGHT_BOOST_PCT=%s is not 0-100: no light boost",
					v);
			pct = 0;
		}
		light_pct = cfg.credit_ns ? (unsigned)pct : 0;
		v = getenv("SMT_XWAYLAND_LIGHT_READ_CAP");
		long cut = v && *v ? strtol(v, &end, 10) : 0;
		if (v && *v && (*end || cut < 0 || cut > LIGHT_READ_CAP_MAX)) {
			xconn_log(NULL, "SMT_XWAYLAND_LIGHT_READ_CAP=%s is not 0-%d: no cut", v,
					LIGHT_READ_CAP_MAX);
			cut = 0;
		}
		light_cut = light_pct ? (size_t)cut : 0;
	}
	return &cfg;
}

static uint64_t requests_begun(const struct xconn *c)
{
	return c->framer.requests;
}

/* Requests of c not yet read by the X server. */
static bool pending(struct xconn *c)
{
	if (c->state == XCONN_RING)
		return xconn_has_input(c);
	int n = 0;
	return ioctl(c->fd, FIONREAD, &n) == 0 && n > 0;
}

/* The pick's client (the X server runs one client per pick, starting with
 * the requests it buffered for it, so the pick's time before its first
 * read is that client's too). */
void input_boost_reading(struct xconn *c)
{
	running = c;
	/* The X server reads only when it has no whole request of c left. */
	c->unrun = 0;
	c->begun_at_read = requests_begun(c);
}

/* The pids of the last programs whose last connection went (a ring of
 * RETURNING_PIDS; 0: empty). */
static pid_t left_pids[RETURNING_PIDS];
static unsigned left_next;

static bool left_lately(pid_t pid)
{
	for (unsigned i = 0; i < RETURNING_PIDS; i++)
		if (left_pids[i] == pid)
			return true;
	return false;
}

/* c's program: the owner of another connection with the same pid, or a
 * new one (a pid of 0, unknown, is nobody's to share). */
static void join_owner(struct xconn *c)
{
	unsigned nall;
	struct xconn **all = xconn_all(&nall);
	for (unsigned k = 0; k < nall && c->pid > 0; k++) {
		if (all[k] != c && all[k]->owner && all[k]->owner->pid == c->pid) {
			c->owner = all[k]->owner;
			c->owner->conns++;
			return;
		}
	}
	c->owner = calloc(1, sizeof(*c->owner));
	if (c->owner) {
		c->owner->pid = c->pid;
		c->owner->conns = 1;
		c->owner->returning = c->pid > 0 && left_lately(c->pid);
		x11_usage_idle(&c->owner->usage, work_ns);
	}
}

void input_boost_track(struct xconn *c)
{
	join_owner(c);
	x11_usage_idle(&c->usage, work_ns); /* until epoll or a read says otherwise */
	c->light_earned = true;
	/* Until some client's reply told XInput 1's first event (then every
	 * watch ends: input_boost_answered); a client that asked ends its own
	 * and waits for its reply. */
	if (!xi1_first && config()->credit_ns != 0)
		x11_xi1_query_watch(&c->xi1, &c->framer);
}

void input_boost_requests(
		struct xconn *c, const struct iovec *iov, int iovcnt, size_t n, size_t asked)
{
	/* It had requests; a read that got fewer bytes than asked took all
	 * of them, and it is idle from the end of this pick, when the X
	 * server has run them (its time until then is charged, not idle). */
	set_waiting(c, true);
	c->drained_in_pick = n < asked;
	/* A ring's reader framed these bytes as it took them; a socket's
	 * are framed here while the boost is on (where its requests begin:
	 * the light clients' accounting, XInput's watch). */
	if (config()->credit_ns == 0)
		return;
	for (int i = 0; i < iovcnt && n > 0 && c->state != XCONN_RING; i++) {
		size_t k = iov[i].iov_len < n ? iov[i].iov_len : n;
		x11_request_framer_feed(&c->framer, iov[i].iov_base, k);
		n -= k;
	}
	c->unrun = requests_begun(c) - c->begun_at_read;
	/* A light grant's read that left requests waiting (a flooder's:
	 * the read is cut at LIGHT_GRANT_READ) earns no other until the X
	 * server finds the client idle; one that took all it had (an echo's)
	 * leaves it earned. */
	if (c == light_serving) {
		c->light_earned = !pending(c);
		/* Its light grant is over then, not only unusable: until
		 * session 28 it stayed in the table for the rest of its 100 ms,
		 * and a forked gamer's processes, one grant each per burst,
		 * kept all 16 places (an echo beside them was refused 55,187
		 * times in 3 s, `light_no_slot`, and waited 850 ms). */
		if (!c->light_earned)
			x11_boost_end(&c->boost);
	}
}

void input_boost_polling(bool returned)
{
	/* Waiting in epoll costs no CPU time: one reading per poll serves
	 * as the end of one pick and the start of the next (the main
	 * thread's: Xwayland's os layer and dispatch run there). */
	if (returned || light_pct == 0)
		return;
	uint64_t now = thread_cpu_now_ns();
	/* A pick that read nobody (a slice that ended inside buffered
	 * requests) goes uncharged. */
	if (running && cpu_mark && now > cpu_mark) {
		charge(running, now - cpu_mark);
		if (running == light_paying)
			x11_boost_share_spend(&light_share, now - cpu_mark);
	}
	if (running && running->drained_in_pick)
		set_waiting(running, false);
	if (running)
		running->drained_in_pick = false;
	running = NULL;
	light_serving = NULL;
	light_paying = NULL;
	cpu_mark = now;
}

void input_boost_drained(struct xconn *c)
{
	c->light_earned = true;
	c->drained_in_pick = true;
}

void input_boost_forget(struct xconn *c)
{
	set_waiting(c, false); /* its program's other connections may be idle */
	if (c->owner && --c->owner->conns == 0) {
		if (c->owner->pid > 0 && !left_lately(c->owner->pid)) {
			left_pids[left_next] = c->owner->pid;
			left_next = (left_next + 1) % RETURNING_PIDS;
		}
		free(c->owner);
	}
	c->owner = NULL;
	if (running == c)
		running = NULL;
	if (light_serving == c)
		light_serving = NULL;
	if (light_paying == c)
		light_paying = NULL;
	for (unsigned i = 0; i < nlight; i++) {
		if (light[i] == c) {
			light[i] = light[--nlight];
			break;
		}
	}
	for (unsigned i = 0; i < nboosted; i++) {
		if (boosted[i] == c) {
			boosted[i] = boosted[--nboosted];
			return;
		}
	}
}

void input_boost_answered(struct xconn *c, const struct iovec *iov, int iovcnt, size_t written)
{
	/* A FRESH connection's answers are our own hello's: the X server's
	 * setup reply follows its first read. */
	if (config()->credit_ns == 0 || c->state == XCONN_FRESH)
		return;
	unsigned input = 0;
	c->scan.xi1_first = xi1_first;
	if (!xi1_first && c->xi1.asked && !c->scan.want_reply && !c->scan.learned &&
			!c->scan.missed) {
		c->scan.want_reply = true;
		c->scan.want_seq = c->xi1.asked_seq;
	}
	for (int i = 0; i < iovcnt && written > 0; i++) {
		size_t n = iov[i].iov_len < written ? iov[i].iov_len : written;
		input += x11_input_scan_feed(&c->scan, iov[i].iov_base, n);
		written -= n;
	}
	if (!xi1_first && c->scan.learned) {
		xi1_first = c->scan.learned;
		xconn_log(c, "XInput 1 device events are %d-%d: input to the boost", xi1_first + 1,
				xi1_first + 5);
		unsigned nall;
		struct xconn **all = xconn_all(&nall);
		for (unsigned k = 0; k < nall; k++)
			x11_request_framer_unwatch(&all[k]->framer);
	}
	if (input == 0)
		return;
	c->input_events += input;
	uint64_t now = monotonic_now_ns();
	bool in = listed(c);
	if (!in && nboosted == INPUT_BOOST_MAX)
		drop_lapsed(now);
	if (!in && nboosted == INPUT_BOOST_MAX)
		return; /* no grant until one of the others lapses */
	if (x11_boost_input(&c->boost, &cfg, now) && !in)
		boosted[nboosted++] = c;
}

/* Who is favoured: nobody, light-granted clients, or a client with an
 * input grant (then light-granted ones are held back too). */
enum favour {
	FAVOUR_NONE,
	FAVOUR_LIGHT,
	FAVOUR_INPUT
};

/* c's grant, if live, may favour it: an input grant always; a light
 * grant only while c is earned (its last read under the grant took all it
 * had, or the X server found it idle since): a flooder that got a light
 * grant at the start of a burst gets one read of it (LIGHT_GRANT_READ),
 * not the grant's whole credit. */
static bool usable(const struct xconn *c)
{
	return !c->boost.light || c->light_earned;
}

/* Which grants of boosted clients other than `self` favour them now;
 * settles every grant's credit and the shared time, and drops the spent
 * grants. Light grants favour only while the shared time holds more than
 * one credit (x11_boost_share_spare). */
static enum favour someone_favoured(const struct xconn *self, uint64_t now)
{
	if (favour_since)
		x11_boost_share_spend(&share, now - favour_since);
	favour_since = 0;
	bool input = false, light = false;
	for (unsigned i = 0; i < nboosted;) {
		struct xconn *k = boosted[i];
		if (k == self) {
			i++; /* its own read: settled by x11_boost_served, or held */
			continue;
		}
		bool fav = x11_boost_favoured(&k->boost, now, usable(k) && pending(k));
		if (!x11_boost_live(&k->boost, now)) {
			boosted[i] = boosted[--nboosted];
			continue;
		}
		input = input || (fav && !k->boost.light);
		light = light || (fav && k->boost.light);
		i++;
	}
	enum favour f = FAVOUR_NONE;
	if ((input || light) && x11_boost_share_left(&share, &cfg, now)) {
		if (input)
			f = FAVOUR_INPUT;
		else if (x11_boost_share_spare(&share, &cfg))
			f = FAVOUR_LIGHT;
	}
	/* Light grants not favoured now (input is, or the shared time is
	 * kept for it) do not spend their credit meanwhile. */
	for (unsigned i = 0; light && f != FAVOUR_LIGHT && i < nboosted; i++) {
		if (boosted[i] != self && boosted[i]->boost.light) {
			x11_boost_hold(&boosted[i]->boost);
			boosted[i]->light_share_kept += !input;
		}
	}
	if (f != FAVOUR_NONE)
		favour_since = now;
	return f;
}

/* c holds a live grant that is not held back under `f`: any grant while
 * light clients are favoured, an input grant while input is. */
static bool is_boosted(const struct xconn *c, uint64_t now, enum favour f)
{
	for (unsigned i = 0; i < nboosted; i++)
		if (boosted[i] == c)
			return x11_boost_live(&c->boost, now) && usable(c) &&
					(f != FAVOUR_INPUT || !c->boost.light);
	return false;
}

/* A light grant to c, whose requests are waiting, if it earned one (the
 * X server found it idle since its last) and light grants' reads have
 * not used their quarter of the X server: the other clients' requests the
 * X server might still run before them are noted. */
static void give_light(struct xconn *c, uint64_t now)
{
	if (!c->light_earned) {
		c->light_unearned++;
		return;
	}
	/* A newcomer's grants use only the light time above one credit, as
	 * light grants use only the shared favour above one: however many new
	 * processes connect (100 a second, each a newcomer with one read),
	 * light clients with history keep a credit's worth of reads. */
	if (!x11_boost_share_left(&light_share, &cfg, now) ||
			(c->newcomer && !x11_boost_share_spare(&light_share, &cfg))) {
		c->light_no_share++;
		return;
	}
	bool in = listed(c);
	if (!in) {
		drop_lapsed(now);
		unsigned nlight_grants = 0;
		for (unsigned k = 0; k < nboosted; k++)
			nlight_grants += boosted[k]->boost.light;
		if (nlight_grants >= LIGHT_GRANTS_MAX || nboosted == INPUT_BOOST_MAX) {
			c->light_no_slot++;
			return;
		}
	}
	if (!x11_boost_light(&c->boost, &cfg, now))
		return;
	if (!in)
		boosted[nboosted++] = c;
	c->light_new += c->newcomer;
	unsigned nall;
	struct xconn **all = xconn_all(&nall);
	uint64_t ahead = 0, most = 0;
	for (unsigned k = 0; k < nall; k++) {
		if (all[k] == c)
			continue;
		ahead += all[k]->unrun;
		most = all[k]->unrun > most ? all[k]->unrun : most;
	}
	c->light_ahead += ahead;
	/* nobody has more than the request under way buffered */
	c->light_clear += most <= 1;
}

/* At self's read: a light client found waiting gets its grant now (and
 * self's read is refused below), not at the X server's next poll. */
static void grant_waiting_light(const struct xconn *self, uint64_t now)
{
	bool peek = now - socket_peek_ns >= LIGHT_SOCKET_PEEK_NS;
	for (unsigned i = 0; i < nlight; i++) {
		struct xconn *k = light[i];
		if (k == self || x11_boost_live(&k->boost, now))
			continue;
		if (k->state != XCONN_RING) {
			if (!peek)
				continue;
			socket_peek_ns = now;
		}
		if (!pending(k))
			continue;
		set_waiting(k, true);
		uint64_t before = k->boost.light_grants;
		give_light(k, now);
		k->light_early += k->boost.light_grants - before;
	}
}

/* c is held back (its read refused or its readiness unreported) while
 * `f` is favoured: reported again once nobody is. */
static void hold(struct xconn *c, enum favour f, uint64_t now)
{
	c->held = true;
	any_held = true;
	if (!x11_boost_live(&c->boost, now))
		return;
	if (!c->boost.light)
		c->input_held++;
	else if (f == FAVOUR_INPUT)
		c->light_gave_way++;
}

bool input_boost_yield(struct xconn *c)
{
	if (nlight == 0 && nboosted == 0 && !light_serving)
		return false;
	uint64_t now = monotonic_now_ns();
	if (c->state == XCONN_FRESH) {
		/* Its first read (the ring's hello, or the connection setup
		 * on the socket): never refused, the handshake reads it. A
		 * newcomer's light grant is served by it, and the pick is paid
		 * from the light grants' quarter like any light grant's read. */
		if (is_boosted(c, now, FAVOUR_LIGHT) && x11_boost_served(&c->boost, now))
			light_paying = c;
		return false;
	}
	if (c == light_serving) {
		/* Its light grant's read was this pick's: the rest of what it
		 * has waits for its turn in Xwayland's round robin. */
		c->yields++;
		hold(c, FAVOUR_NONE, now);
		return true;
	}
	if (nlight)
		grant_waiting_light(c, now);
	if (nboosted == 0)
		return false;
	/* c's own read: it is being served, so its favour ends here; but a
	 * light grant gives way to another client's favoured input grant. */
	bool live = is_boosted(c, now, FAVOUR_LIGHT);
	enum favour f = live && !c->boost.light ? FAVOUR_NONE : someone_favoured(c, now);
	if (live && (f != FAVOUR_INPUT || !c->boost.light)) {
		if (x11_boost_served(&c->boost, now))
			light_serving = light_paying = c;
		return false;
	}
	if (f == FAVOUR_NONE)
		return false;
	c->yields++;
	hold(c, f, now);
	return true;
}

size_t input_boost_read_cap(const struct xconn *c, size_t count)
{
	/* Ring and socket connections alike: the server half follows their
	 * request lengths (a ring's reader frames its bytes, a socket's are
	 * framed as they are read while the boost is on), so a cut never
	 * leaves a request short by more than the next read gives (a short
	 * request ends the client's turn in the X server). A shorter read is
	 * what a stream socket may always return; on the socket each cut read
	 * costs the X server a recvmsg, paid only while a client is light and
	 * active or holds a grant (docs/x11.md "Socket clients"). */
	if (c == light_serving)
		return x11_request_framer_cut(&c->framer, count, LIGHT_GRANT_READ);
	if ((nboosted == 0 && nlight == 0) || c->state == XCONN_FRESH)
		return count;
	size_t extra = 0;
	for (unsigned i = 0; i < nlight && !extra; i++)
		if (light[i] != c)
			extra = light_cut;
	if (!extra && nboosted) {
		uint64_t now = monotonic_now_ns();
		for (unsigned i = 0; i < nboosted && !extra; i++)
			if (boosted[i] != c && x11_boost_live(&boosted[i]->boost, now))
				extra = light_cut ? light_cut : INPUT_BOOST_READ_CAP;
	}
	/* the rest of the request under way, then up to the cap */
	return extra ? x11_request_framer_cut(&c->framer, count, extra) : count;
}

static struct xconn *conn_of(int epfd, const struct epoll_event *ev)
{
	unsigned n;
	struct xconn **all = xconn_all(&n);
	for (unsigned i = 0; i < n; i++)
		if (all[i]->epfd == epfd && all[i]->xdata.u64 == ev->data.u64)
			return all[i];
	return NULL;
}

/* Over programs (owners), each counted once. */
static struct x11_usage_sum usage_sum(void)
{
	static uint64_t pass;
	pass++;
	struct x11_usage_sum sum = { 0 };
	unsigned nall;
	struct xconn **all = xconn_all(&nall);
	for (unsigned k = 0; k < nall; k++) {
		struct xconn_owner *o = all[k]->owner;
		if (!o || o->summed == pass)
			continue;
		o->summed = pass;
		x11_usage_add(&sum, &o->usage, work_ns);
	}
	return sum;
}

/* c's program used less than light_pct of its idle time lately, or is a
 * newcomer (c->newcomer: it used little of the X server in all, and its
 * pid did not leave lately), and another program used the X server
 * (x11_usage.h). */
static bool is_light(struct xconn *c, const struct x11_usage_sum *sum)
{
	struct xconn_owner *o = c->owner;
	c->newcomer = false;
	if (!o)
		return false;
	if (x11_usage_light(&o->usage, sum, light_pct, work_ns))
		return true;
	c->newcomer = !o->returning && !c->other_user &&
			x11_usage_newcomer(&o->usage, sum, light_pct, work_ns);
	return c->newcomer;
}

/* The light clients that used the X server lately (light_cut's), and the
 * light clients that epoll reports with requests waiting get a grant. */
static void grant_light(int epfd, const struct epoll_event *ev, int n, uint64_t now)
{
	if (!light_cut && n == 0)
		return;
	struct x11_usage_sum sum = usage_sum();
	nlight = 0;
	if (light_cut) {
		unsigned nall;
		struct xconn **all = xconn_all(&nall);
		for (unsigned k = 0; k < nall && nlight < INPUT_BOOST_MAX; k++) {
			struct xconn *c = all[k];
			if (c->state != XCONN_FRESH && x11_usage_recent(&c->usage, work_ns) > 0 &&
					is_light(c, &sum))
				light[nlight++] = c;
		}
	}
	for (int i = 0; i < n; i++) {
		if (!(ev[i].events & EPOLLIN) || (ev[i].events & (EPOLLHUP | EPOLLERR)))
			continue;
		/* A FRESH connection too: a new program's hello or connection
		 * setup waited a whole round of the flooders' turns (Xwayland's
		 * smart scheduler praises the flooders that waited two slices
		 * up to a new client's priority), and a ring client has two
		 * such steps before its first request (session 41: 6-18 ms for
		 * the hello's ack and 16-53 ms for the setup's reply among 4
		 * flooders, against 1 ms without them). */
		struct xconn *c = conn_of(epfd, &ev[i]);
		if (!c)
			continue;
		set_waiting(c, true);
		if (x11_boost_live(&c->boost, now))
			continue;
		if (is_light(c, &sum))
			give_light(c, now);
		else
			c->light_heavy++;
	}
}

int input_boost_filter(int epfd, struct epoll_event *ev, int n, int max)
{
	if (config()->credit_ns == 0 || (nboosted == 0 && !any_held && light_pct == 0))
		return n;
	uint64_t now = monotonic_now_ns();
	if (light_pct)
		grant_light(epfd, ev, n, now);
	if (nboosted == 0 && !any_held)
		return n;
	enum favour f = someone_favoured(NULL, now);
	if (f != FAVOUR_NONE) {
		int out = 0;
		for (int i = 0; i < n; i++) {
			struct xconn *c = conn_of(epfd, &ev[i]);
			if (c && (ev[i].events & EPOLLIN) &&
					!(ev[i].events & (EPOLLHUP | EPOLLERR)) &&
					!is_boosted(c, now, f)) {
				hold(c, f, now);
				continue;
			}
			ev[out++] = ev[i];
		}
		return out;
	}
	if (!any_held)
		return n;
	/* Nobody favoured: whoever was held back is reported once more. */
	return xconn_report_held(epfd, ev, n, max, offsetof(struct xconn, held), &any_held);
}

int input_boost_timeout(int timeout)
{
	/* Only a held-back client needs the X server awake: when the favoured
	 * one's credit runs out, it is reported. */
	if (!any_held)
		return timeout;
	uint64_t now = monotonic_now_ns(), end = 0;
	for (unsigned i = 0; i < nboosted; i++) {
		uint64_t d = x11_boost_deadline(&boosted[i]->boost, now);
		if (d && (!end || d < end))
			end = d;
	}
	if (!end)
		return 0;
	int ms = (int)((end - now + 999999) / 1000000);
	return timeout < 0 || ms < timeout ? ms : timeout;
}

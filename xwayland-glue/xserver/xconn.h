/*
 * The stream half inside Xwayland (libsmt-x11ring-server.so, preloaded by
 * smt-xwayland): per-connection state of every X client socket the server
 * accepted, and the libc entry points it wraps.
 *
 * Xwayland is an unmodified Debian binary, so the ring lives around it: it
 * accept()s a client, registers the socket with epoll_ctl, waits in
 * epoll_wait, reads requests with recvmsg (xtrans), close()s. A connection
 * whose first bytes are a smt_stream_hello becomes a RING connection: from
 * then on recvmsg on its socket returns bytes copied out of its ring (plus
 * the fds the client sent alongside), and epoll_wait reports the socket
 * readable whenever the ring has bytes. Everything else passes through.
 *
 * Threads: Xwayland's os layer (accept, poll, read, close of clients) runs
 * on the main thread only, so this state has no lock.
 */
#ifndef SMT_XCONN_H
#define SMT_XCONN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "common/cpu_relax.h"
#include "common/monotonic_clock.h"
#include "protocol/smt-ring.h"
#include "xwayland-glue/stream/stream_fds.h"
#include "xwayland-glue/stream/stream_reader.h"
#include "xwayland-glue/stream/x11_boost.h"
#include "xwayland-glue/stream/x11_input_scan.h"
#include "xwayland-glue/stream/x11_spin.h"
#include "xwayland-glue/stream/x11_usage.h"
#include "xwayland-glue/stream/x11_request_framer.h"
#include "xwayland-glue/stream/x11_xi1_query.h"

/* The program a connection belongs to, by its SO_PEERCRED pid (each
 * connection its own when the pid is unknown): light clients are judged
 * per program, not per connection (input_boost.c), as Xwayland itself
 * knows its clients' programs (XRes' client pids). */
struct xconn_owner {
	pid_t pid;
	unsigned conns;
	struct x11_usage usage; /* the X server's time spent on all its connections */
	unsigned waiting;       /* its connections with requests waiting */
	uint64_t summed;        /* the last sum over owners that counted it */
	/* Its pid had a program here lately (input_boost.c): a program that
	 * reconnects is no newcomer again. */
	bool returning;
};

enum xconn_state {
	XCONN_FRESH, /* accepted, no byte read yet: may send a hello */
	XCONN_PLAIN, /* an ordinary socket client */
	XCONN_RING,
};

struct xconn {
	int fd;
	enum xconn_state state;
	pid_t pid;
	char comm[16];   /* as /proc says: the client chooses it */
	bool other_user; /* SO_PEERCRED uid is not ours: never a ring */
	/* SO_PASSCRED was on from the connection's start (inherited from the
	 * listener): every message it carries names its sender, so a hello
	 * without one is refused (interpose.c, handshake.c; session 41) */
	bool senders_named;
	uint32_t peer_uid;
	uint64_t accepted; /* order of acceptance, 1 for the first */
	/* Another uid's connection shut down for a uid below its share of
	 * the other uids' connections (other_uids.c): no longer counted. */
	bool gave_way;
	/* Why a PLAIN connection is on the socket, for the statistics (a
	 * literal): "other-uid", "no-hello" (its first bytes were X: a program
	 * without the shim, e.g. setuid/setgid, 32-bit or static, or
	 * SMT_X11RING=off), "refused" (a hello we refused), "reverted". */
	const char *socket_why;
	/* The client's requests as the X server reads them, framed once:
	 * ring bytes by the ring's reader (rd), socket bytes by
	 * input_boost_requests while the input boost is on (the read cut,
	 * the light clients' accounting, XInput 1's watch). */
	struct x11_request_framer framer;
	uint64_t ring_requests; /* framer.requests when the ring was reverted */
	/* What the X server asked epoll for on this socket. */
	int epfd;
	uint32_t xevents;
	epoll_data_t xdata;

	/* RING only */
	void *map;
	size_t map_len;
	struct smt_ring_status *status;
	struct stream_reader rd;
	int server_efd;       /* the client writes it; we never read it */
	int efd_epfd;         /* the epoll set it is registered in */
	int wake_fd;          /* our end of the wake socketpair */
	struct stream_fds fq; /* fd messages, one taken ahead of its bytes */
	uint64_t reported;    /* epoll_wait batch that listed the socket */
	bool reverted;        /* REVERT reached: the socket carries the rest */
	enum smt_error error; /* why the ring was ended (statistics), or 0 */
	uint64_t fd_messages; /* fd messages taken off the socket */
	uint64_t wakeups_from_client, wakeups_to_client;
	uint64_t plain_bytes;   /* read from the socket (PLAIN, or after REVERT) */
	uint64_t last_input_ns; /* ring bytes last served (the spin) */
	uint64_t answers;       /* writes to the client (replies, events) */
	/* Spins before a sleep that this client's bytes armed (x11_spin.h):
	 * ended by its or another ring's input, by the budget, by losing the
	 * CPU; and chances not taken for the backoff. */
	uint64_t spin_found, spin_missed, spin_preempted, spin_skipped;

	/* The input boost (input_boost.c), every connection */
	struct x11_input_scan scan; /* what the X server wrote to it */
	struct x11_xi1_query xi1;   /* its question for XInput 1 (framer's watch) */
	struct x11_boost boost;
	struct x11_usage usage;    /* the X server's time spent on it */
	struct xconn_owner *owner; /* NULL only if out of memory: never light */
	uint64_t input_events;     /* input events written to it */
	uint64_t yields;           /* reads refused for another's boost */
	bool held;                 /* refused or unreported: report it later */
	bool wayland_held;         /* the same while Xwayland's Wayland connection is full */
	uint64_t wayland_waits;    /* reads refused or reports left out for that */
	/* Requests begun in the stream (framer.requests) at its last read, and
	 * in its last read: until its next read the X server may still run
	 * those (it reads only when it has no whole request left). */
	uint64_t begun_at_read;
	uint64_t unrun;
	/* Light grants made at another client's read, before the X server
	 * polled; over its light grants, the other clients' requests the X
	 * server might still run before it (their `unrun` added up); and its
	 * light grants when no other client had more than one. */
	uint64_t light_early, light_ahead, light_clear;
	/* False from a light grant's read that left requests waiting until
	 * the X server finds it with nothing to read: a connection that
	 * floods without a pause gets one light grant per pause, not one per
	 * read (input_boost.c). */
	bool light_earned;
	/* Statistics of input first: reads refused or readiness dropped while
	 * it held a live light grant and an input grant was favoured
	 * (light_gave_way); while it held a live input grant and was held
	 * back for a light one (input_held: input first makes that never
	 * happen, integration/x11_light_input_first). */
	uint64_t light_gave_way, input_held;
	uint64_t light_unearned, light_no_share;
	/* Why a light grant was not made or did not favour it (docs/x11.md
	 * "Observing it"): reported by epoll with requests waiting while its
	 * program was not light (light_heavy); light, but the table of grants
	 * was full (light_no_slot); a live light grant not favoured because
	 * the shared time was kept for input (light_share_kept). */
	uint64_t light_heavy, light_no_slot, light_share_kept;
	/* Light grants made while its program was a newcomer
	 * (x11_usage_newcomer), and whether the last judgement found it one
	 * (then its grants are paid from the light time left spare). */
	uint64_t light_new;
	bool newcomer;
	/* Requests waiting (unread): seen by epoll, or read; not since a read
	 * took all it had (at the end of that pick: drained_in_pick). Its
	 * idle time is kept in `usage`, and its program's (while none of the
	 * program's connections waits) in owner->usage: what lightness is
	 * judged by (x11_usage.h). */
	bool waiting, drained_in_pick;
};

/* The real libc functions (RTLD_NEXT). */
extern ssize_t (*real_recvmsg)(int, struct msghdr *, int);
extern int (*real_close)(int);
extern int (*real_epoll_ctl)(int, int, int, struct epoll_event *);
extern int (*real_accept4)(int, struct sockaddr *, socklen_t *, int);

struct xconn *xconn_get(int fd);
/* RING connections now. Each holds three fds in the X server (socket,
 * eventfd, wake socket) instead of one, so their number is capped: the
 * rest stay on the socket (SMT_STREAM_REFUSED_LIMIT). */
unsigned xconn_ring_count(void);
#define XCONN_MAX_RINGS 128
/* Every tracked connection, for epoll_wait's scan and the statistics. */
struct xconn **xconn_all(unsigned *n);
/* A new connection of another uid past its share of the X server's
 * client slots: shut down (the X server closes it at its first read) and
 * true, then it is not tracked (other_uids.c). */
bool other_uids_refuse(int fd);
#define OTHER_UID_CONNECTIONS 64
#define OTHER_UIDS_CONNECTIONS 128
/* Clients of epfd held back by a flag (the bool at flag_offset in struct
 * xconn: held, wayland_held) are reported once more in ev (n events, room
 * for max), the flag cleared: the X server reads each until EAGAIN, and
 * epoll reports new bytes after that. Returns the new count; *left is set
 * when ev had no room for all (the others stay held). */
int xconn_report_held(
		int epfd, struct epoll_event *ev, int n, int max, size_t flag_offset, bool *left);

/* handshake.c: a FRESH connection's first read. Leaves it PLAIN or RING. */
void xconn_handshake(struct xconn *c);
/* Frees a RING connection's ring (not the socket). */
void xconn_release_ring(struct xconn *c);
/* The one server-asleep page of this server (NULL until the first ring). */
struct smt_global_status *xconn_global(void);

/* serve.c */
ssize_t xconn_serve(struct xconn *c, struct msghdr *msg);
bool xconn_has_input(struct xconn *c);
/* epoll reported the socket: it may hold an fd message or the end. */
void xconn_socket_reported(struct xconn *c);
/* Closes the fds of an fd message not handed to the X server yet. */
void xconn_drop_fds(struct xconn *c);
/* Ends the connection's ring with a logged reason; the next read fails. */
void xconn_kill(struct xconn *c, enum smt_error code, const char *why);

/* input_boost.c (docs/x11.md "Scheduling X clients"). Off unless
 * SMT_XWAYLAND_INPUT_BOOST_US (the compositor's [xwayland] input-boost-us)
 * is set; light clients' grants also need SMT_XWAYLAND_LIGHT_BOOST_PCT
 * ([xwayland] light-boost-pct). */
#define INPUT_BOOST_MAX_US 100000
/* The X server wrote `written` bytes of iov to c. */
void input_boost_answered(struct xconn *c, const struct iovec *iov, int iovcnt, size_t written);
/* The X server reads c's requests (before input_boost_yield): charges it
 * the time since its last read. */
void input_boost_reading(struct xconn *c);
/* A new connection: its requests are watched for XInput 1's
 * QueryExtension while the boost is on and XInput 1's events unknown. */
void input_boost_track(struct xconn *c);
/* The X server was given these n bytes of c's requests, of `asked`:
 * fewer than asked, it took all c had (c is idle once the pick ends). */
void input_boost_requests(
		struct xconn *c, const struct iovec *iov, int iovcnt, size_t n, size_t asked);
/* The X server polls (returned false) or has polled (true): the time
 * between is nobody's. */
void input_boost_polling(bool returned);
/* c's read must say "nothing yet": another client is favoured. */
bool input_boost_yield(struct xconn *c);
/* How much of count c's read may return: reads (ring and socket) are cut
 * while another client's grant is live, or, with
 * SMT_XWAYLAND_LIGHT_READ_CAP ([xwayland] light-read-cap), while another
 * client is light and active. */
size_t input_boost_read_cap(const struct xconn *c, size_t count);
/* epoll_wait's events: held-back connections out, released ones in. */
int input_boost_filter(int epfd, struct epoll_event *ev, int n, int max);
/* epoll_wait's timeout, shortened to release held-back connections. */
int input_boost_timeout(int timeout);
void input_boost_forget(struct xconn *c);
/* The X server's read of c found nothing waiting (EAGAIN). */
void input_boost_drained(struct xconn *c);

/* wm_events.c: the window manager's connection (Xwayland's `-wm N`), its
 * repeated PropertyNotify left out of each write (docs/x11.md "The window
 * manager's events"). */
void wm_events_init(void);
bool wm_events_is_wm(int fd);
void wm_events_closed(int fd);
/* Writes iov to the window manager's fd through real_writev, less the
 * repeats; returns how much of iov that stands for. */
ssize_t wm_events_writev(int fd, const struct iovec *iov, int n,
		ssize_t (*real_writev)(int, const struct iovec *, int));
/* The X server sent `written` bytes of iov to it with sendmsg (fds along). */
void wm_events_sent(const struct iovec *iov, int n, ssize_t written);
/* The X server read n bytes of fd: the window manager's requests, if it
 * is its connection (a new value is written again from now on). */
void wm_events_read(int fd, ssize_t n);

/* wayland_backlog.c: Xwayland's writes to the compositor that the socket
 * refuses (EAGAIN, or ETOOMANYREFS: the uid's fds in flight) are held and written by a thread, in order, instead of
 * libwayland 1.21 ending Xwayland. It knows Xwayland's Wayland fd for both
 * mends of the connection: wayland_conn.c adopts it when Xwayland's
 * wl_display_connect returns. sendmsg on that fd goes through here. */
void wayland_backlog_init(ssize_t (*real_sendmsg)(int, const struct msghdr *, int));
void wayland_backlog_adopt(int fd);
/* Xwayland's Wayland fd, -1 while not known. */
int wayland_backlog_fd(void);
bool wayland_backlog_owns(int fd);
ssize_t wayland_backlog_sendmsg(int fd, const struct msghdr *msg, int flags);
/* Bytes held, not yet given to the socket. */
size_t wayland_backlog_bytes(void);
/* Xwayland closes fd: what is held for it goes. */
void wayland_backlog_closed(int fd);
/* wayland_conn.c: Xwayland's own Wayland connection. Xwayland sent on fd
 * (wl_display_flush's sendmsg): X clients are held while the compositor
 * has too much of it unread. */
void xwayland_conn_sent(int fd);
/* At c's read: true if it must be refused (EAGAIN) for now. */
bool xwayland_conn_holds(struct xconn *c);
/* epoll_wait's timeout and reported events while clients are held. */
int xwayland_conn_timeout(int timeout);
int xwayland_conn_filter(int epfd, struct epoll_event *ev, int n, int max);

/* stats.c */
void xconn_stats_init(void);
/* epoll_wait found the statistics socket readable. */
void xconn_stats_serve(void);
int xconn_stats_fd(void);
/* One statistics line (what --stats prints) for c. */
int xconn_format(char *buf, size_t n, const struct xconn *c);

/* Tags on our own fds in the X server's epoll set: never a valid pointer
 * (the X server stores pointers there). */
#define XCONN_TAG 0xf000000000000000ull
#define XCONN_TAG_WAKE (XCONN_TAG | 1ull << 32)
#define XCONN_TAG_STATS (XCONN_TAG | 2ull << 32)

#define XCONN_SPIN_US_DEFAULT 50
#define XCONN_SPIN_US_MAX 10000 /* SMT_X11RING_SPIN_US above this: no spin */

/* log.c: one line on stderr (the compositor's log), at most
 * XCONN_LOG_BURST at once and XCONN_LOG_PER_SEC after that, whatever
 * clients do; how many were left out is said in the next line written.
 * The client's comm is printed with anything but [A-Za-z0-9._-] as '?'. */
void xconn_log(const struct xconn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define XCONN_LOG_BURST 20
#define XCONN_LOG_PER_SEC 2
/* c's comm as it may be printed (log lines, statistics). */
void xconn_printable_comm(const struct xconn *c, char out[16]);

#endif

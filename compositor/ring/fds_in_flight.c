/*
 * Counting and bounding the fds a client has in flight in libwayland's
 * buffer (fds_in_flight.h).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/sockios.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include "compositor/log_limit.h"
#include "compositor/ring/fds_in_flight.h"

struct watch {
	struct wl_client *client;
	struct smt_usage *usage; /* NULL: not a watched client socket */
	uint64_t in_flight;
	uint64_t to_client; /* sent to it, not known to be read yet */
};

/* Indexed by the client socket's fd: recvmsg finds its account in O(1). */
static struct watch *watches;
static size_t watch_cap;
/* Set in the main thread only: other threads' recvmsg is never counted. */
static _Thread_local bool on_main_thread;
static bool watching;
static struct wl_protocol_logger *logger;
static struct log_limit refusal_log, send_refusal_log, kernel_refusal_log;

typedef ssize_t (*recvmsg_fn)(int fd, struct msghdr *msg, int flags);
typedef ssize_t (*sendmsg_fn)(int fd, const struct msghdr *msg, int flags);

static struct watch *watch_of(int fd)
{
	if (!watching || fd < 0 || (size_t)fd >= watch_cap || watches[fd].usage == NULL ||
			!on_main_thread) {
		return NULL;
	}
	return &watches[fd];
}

static uint64_t fds_in(const struct msghdr *msg)
{
	uint64_t count = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c != NULL;
			c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			count += (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		}
	}
	return count;
}

static void close_fds_in(const struct msghdr *msg)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c != NULL;
			c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			int *fds = (int *)CMSG_DATA(c);
			for (size_t i = 0; i < n; i++) {
				close(fds[i]);
			}
		}
	}
}

/* The fds sent to the client are all read once nothing sent waits in its
 * socket (one ioctl, only while some are counted); how many that gave
 * back. */
static uint64_t settle_sent(struct watch *w, int fd)
{
	int unread = 0;
	uint64_t read = w->to_client;
	if (read != 0 && ioctl(fd, SIOCOUTQ, &unread) == 0 && unread == 0) {
		smt_usage_release(w->usage, SMT_RES_FDS_UNREAD, read);
		w->to_client = 0;
		return read;
	}
	return 0;
}

/* Every other client's count settled, at a send its process, uid or the
 * total refused: an idle client's last fds stay counted until the
 * compositor next hears from it or sends to it, and 128 idle clients
 * that had each read their keymap held the whole total-fds-unread of a
 * soft RLIMIT_NOFILE of 512, so a newcomer was disconnected at its first
 * keymap (session 37). A scan of the watches and an ioctl per client
 * with fds counted (at most total-connections), only at such a refusal:
 * one that still refuses ends its client. How many it gave back. */
static uint64_t settle_others(const struct watch *refused)
{
	uint64_t released = 0;
	for (size_t fd = 0; fd < watch_cap; fd++) {
		struct watch *w = &watches[fd];
		if (w != refused && w->usage != NULL) {
			released += settle_sent(w, (int)fd);
		}
	}
	return released;
}

/* The account of a watched client socket (NULL: not watched, or not on
 * the main thread) and how many fds msg carries. Whatever goes either way
 * on the socket says the client may have read what we sent: settled first. */
static struct watch *account_of(int fd, const struct msghdr *msg, uint64_t *count)
{
	struct watch *w = watch_of(fd);
	if (w != NULL) {
		settle_sent(w, fd);
		*count = fds_in(msg);
	}
	return w;
}

/* libc's definition of a function we wrap, found once into *fn_field;
 * false (errno ENOSYS) if there is none. POSIX lets dlsym's object
 * pointer hold a function pointer: its bits are copied, not cast. */
static bool find_real(void *fn_field, const char *name)
{
	void *symbol;
	memcpy(&symbol, fn_field, sizeof(symbol));
	if (symbol == NULL) {
		symbol = dlsym(RTLD_NEXT, name);
		if (symbol == NULL) {
			errno = ENOSYS;
			return false;
		}
		memcpy(fn_field, &symbol, sizeof(symbol));
	}
	return true;
}

/* The refusal's text for the log and the client's error; the client's pid. */
static pid_t describe_refusal(
		const struct watch *w, const struct smt_usage_refusal *why, char *text, size_t size)
{
	smt_usage_describe(why, text, size);
	pid_t pid = 0;
	wl_client_get_credentials(w->client, &pid, NULL, NULL);
	return pid;
}

/* Every recvmsg of the process comes here first (the executable's symbol
 * comes before libc's); only watched client sockets are counted. */
ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	static recvmsg_fn real_recvmsg;
	if (!find_real(&real_recvmsg, "recvmsg")) {
		return -1;
	}
	ssize_t n = real_recvmsg(fd, msg, flags);
	uint64_t count = 0;
	struct watch *w = n >= 0 ? account_of(fd, msg, &count) : NULL;
	if (w == NULL || count == 0) {
		return n;
	}
	/* Capped per connection; as fds, charged from the process up: the
	 * connection's own fd limit is for what its requests keep, so that a
	 * request over it is refused by name, not its fds on arrival. */
	struct smt_usage_refusal why;
	if (smt_usage_charge(w->usage, SMT_RES_FDS_IN_FLIGHT, count, &why)) {
		if (w->usage->parent == NULL ||
				smt_usage_charge(w->usage->parent, SMT_RES_FDS, count, &why)) {
			w->in_flight += count;
			return n;
		}
		smt_usage_release(w->usage, SMT_RES_FDS_IN_FLIGHT, count);
	}
	/* Closed here, never parked: libwayland sees a read error and
	 * disconnects the client after sending it the error. */
	close_fds_in(msg);
	char text[160];
	pid_t pid = describe_refusal(w, &why, text, sizeof(text));
	uint64_t left_out;
	if (log_limit_allow(&refusal_log, &left_out)) {
		wlr_log(WLR_ERROR,
				"client pid %d disconnected: %llu fds in flight, %llu more "
				"arrived: %s (%llu such disconnections not logged before)",
				(int)pid, (unsigned long long)w->in_flight,
				(unsigned long long)count, text, (unsigned long long)left_out);
	}
	wl_client_post_implementation_error(w->client, "fds in flight: %s", text);
	errno = EMSGSIZE;
	return -1;
}

/* The kernel refused fds we send (ETOOMANYREFS, never for root): the
 * uid's processes hold more fds in flight than our RLIMIT_NOFILE, most
 * likely another process of the user on sockets of its own (ours are
 * bounded: total-fds-unread). libwayland ends the client for it; the
 * user needs the cause, which libwayland's "error in client
 * communication" does not say. */
static void say_kernel_refused(struct watch *w, uint64_t count)
{
	uint64_t left_out;
	if (!log_limit_allow(&kernel_refusal_log, &left_out)) {
		return;
	}
	pid_t pid = 0;
	wl_client_get_credentials(w->client, &pid, NULL, NULL);
	struct rlimit lim = { 0, 0 };
	getrlimit(RLIMIT_NOFILE, &lim);
	wlr_log(WLR_ERROR,
			"client pid %d disconnected: the kernel refused to send it %llu fds "
			"(ETOOMANYREFS): this user's processes hold more fds unread in Unix sockets "
			"than the compositor's RLIMIT_NOFILE (%llu) (%llu such not logged before)",
			(int)pid, (unsigned long long)count, (unsigned long long)lim.rlim_cur,
			(unsigned long long)left_out);
}

/* Every sendmsg of the process comes here first (libwayland flushes its
 * connections with it); only fds sent on watched client sockets count. */
ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	static sendmsg_fn real_sendmsg;
	if (!find_real(&real_sendmsg, "sendmsg")) {
		return -1;
	}
	uint64_t count = 0;
	struct watch *w = account_of(fd, msg, &count);
	if (w == NULL || count == 0) {
		return real_sendmsg(fd, msg, flags);
	}
	struct smt_usage_refusal why;
	if (!smt_usage_charge(w->usage, SMT_RES_FDS_UNREAD, count, &why) &&
			(why.level == SMT_LEVEL_CLIENT || settle_others(w) == 0 ||
					!smt_usage_charge(w->usage, SMT_RES_FDS_UNREAD, count,
							&why))) {
		char text[160];
		pid_t pid = describe_refusal(w, &why, text, sizeof(text));
		uint64_t left_out;
		if (log_limit_allow(&send_refusal_log, &left_out)) {
			wlr_log(WLR_ERROR,
					"client pid %d disconnected: it has not read %llu fds "
					"sent to it, %llu more to send: %s (%llu such disconnections "
					"not logged before)",
					(int)pid, (unsigned long long)w->to_client,
					(unsigned long long)count, text,
					(unsigned long long)left_out);
		}
		errno = ENOBUFS; /* libwayland's flush fails: it destroys the client */
		return -1;
	}
	ssize_t n = real_sendmsg(fd, msg, flags);
	if (n > 0) {
		w->to_client += count; /* the fds went with the first byte */
	} else {
		int saved = errno;
		smt_usage_release(w->usage, SMT_RES_FDS_UNREAD, count);
		if (saved == ETOOMANYREFS) {
			say_kernel_refused(w, count);
		}
		errno = saved;
	}
	return n;
}

static void release(struct watch *w, uint64_t count)
{
	smt_usage_release(w->usage, SMT_RES_FDS_IN_FLIGHT, count);
	if (w->usage->parent != NULL) {
		smt_usage_release(w->usage->parent, SMT_RES_FDS, count);
	}
}

static void count_dispatched(void *data, enum wl_protocol_logger_type type,
		const struct wl_protocol_logger_message *m)
{
	if (type != WL_PROTOCOL_LOGGER_REQUEST) {
		return;
	}
	uint64_t count = 0;
	for (const char *s = m->message->signature; *s; s++) {
		count += *s == 'h';
	}
	if (count == 0) {
		return;
	}
	struct watch *w = watch_of(wl_client_get_fd(wl_resource_get_client(m->resource)));
	if (w == NULL) {
		return;
	}
	count = count < w->in_flight ? count : w->in_flight;
	w->in_flight -= count;
	release(w, count);
}

void fds_in_flight_init(struct wl_display *display)
{
	on_main_thread = true;
	watching = true;
	logger = wl_display_add_protocol_logger(display, count_dispatched, NULL);
}

void fds_in_flight_finish(void)
{
	if (logger != NULL) {
		wl_protocol_logger_destroy(logger);
		logger = NULL;
	}
	watching = false;
	free(watches);
	watches = NULL;
	watch_cap = 0;
}

void fds_in_flight_watch(int fd, struct wl_client *client, struct smt_usage *usage)
{
	if (fd < 0) {
		return;
	}
	if ((size_t)fd >= watch_cap) {
		size_t cap = watch_cap ? watch_cap : 256;
		while (cap <= (size_t)fd) {
			cap *= 2;
		}
		struct watch *grown = realloc(watches, cap * sizeof(*grown));
		if (grown == NULL) {
			return; /* uncounted, as before: the connection limits still bound it */
		}
		for (size_t i = watch_cap; i < cap; i++) {
			grown[i] = (struct watch){ 0 };
		}
		watches = grown;
		watch_cap = cap;
	}
	watches[fd] = (struct watch){ .client = client, .usage = usage };
}

void fds_in_flight_unwatch(int fd)
{
	struct watch *w = fd >= 0 && (size_t)fd < watch_cap ? &watches[fd] : NULL;
	if (w == NULL || w->usage == NULL) {
		return;
	}
	release(w, w->in_flight);
	smt_usage_release(w->usage, SMT_RES_FDS_UNREAD, w->to_client);
	*w = (struct watch){ 0 };
}

uint64_t fds_in_flight_count(int fd)
{
	return fd >= 0 && (size_t)fd < watch_cap ? watches[fd].in_flight : 0;
}

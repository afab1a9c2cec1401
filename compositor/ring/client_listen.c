/*
 * client_listen.h: the Wayland socket with the compositor's own accept.
 * Naming and locking follow libwayland's convention (wayland-N with a
 * wayland-N.lock held by flock), so clients and other compositors see the
 * same as with wl_display_add_socket_auto.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include "compositor/fd_limit.h"
#include "compositor/log_limit.h"
#include "compositor/server.h"
#include "compositor/ring/client_listen.h"
#include "compositor/ring/client_usage.h"
#include "compositor/ring/ring_types.h"

/* Connections accepted per wakeup: a burst is served in turns with the
 * other clients instead of ahead of them. */
#define ACCEPTS_PER_WAKEUP 16

struct smtwc_client_listen {
	int fd, lock_fd;
	struct wl_event_source *source;
	char name[32];
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char lock_path[sizeof(((struct sockaddr_un *)0)->sun_path) + 8];
	struct log_limit refused_log, fd_limit_log, error_log;
	/* A second after a burst whose lines were left out, one line with
	 * the counts, so the log's last word is the total. */
	struct wl_event_source *summary;
	bool summary_armed;
	uint64_t accepted, refused, dropped_at_fd_limit;
	uint64_t wakeups; /* a loop spinning on an error would show here */
};

static void arm_summary(struct smtwc_client_listen *l)
{
	if (!l->summary_armed && l->summary != NULL) {
		wl_event_source_timer_update(l->summary, 1000);
		l->summary_armed = true;
	}
}

static int handle_summary(void *data)
{
	struct smtwc_client_listen *l = data;
	l->summary_armed = false;
	if (l->fd_limit_log.left_out > 0) {
		wlr_log(WLR_ERROR,
				"at the process's fd limit: %llu more connections closed "
				"unserved (%llu so far)",
				(unsigned long long)l->fd_limit_log.left_out,
				(unsigned long long)l->dropped_at_fd_limit);
		l->fd_limit_log.left_out = 0;
	}
	if (l->refused_log.left_out > 0) {
		wlr_log(WLR_ERROR, "%llu more connections refused by their limits (%llu so far)",
				(unsigned long long)l->refused_log.left_out,
				(unsigned long long)l->refused);
		l->refused_log.left_out = 0;
	}
	return 0;
}

static void log_dropped(struct smtwc_client_listen *l)
{
	l->dropped_at_fd_limit++;
	uint64_t left_out;
	if (log_limit_allow(&l->fd_limit_log, &left_out)) {
		wlr_log(WLR_ERROR,
				"at the process's fd limit: a new connection was closed "
				"unserved (%llu so far, %llu not logged before)",
				(unsigned long long)l->dropped_at_fd_limit,
				(unsigned long long)left_out);
	} else {
		arm_summary(l);
	}
}

static void serve(struct smtwc_transport *transport, struct smtwc_client_listen *l, int fd)
{
	struct wl_client *client = wl_client_create(transport->server->display, fd);
	if (client == NULL) {
		/* libwayland leaves the fd to us when it fails (its own accept
		 * closes it): kept, it was an fd lost and a peer waiting for
		 * ever. At the fd limit (the event loop's dup of it failed),
		 * a drop like accept's own. */
		int err = errno;
		close(fd);
		if (err == EMFILE || err == ENFILE) {
			log_dropped(l);
			return;
		}
		uint64_t left_out;
		if (log_limit_allow(&l->error_log, &left_out)) {
			errno = err;
			wlr_log_errno(WLR_ERROR, "cannot create a client (%llu not logged before)",
					(unsigned long long)left_out);
		}
		return;
	}
	struct smtwc_client_usage *cu = client_usage_find(client);
	if (cu == NULL || cu->refused[0] == '\0') {
		l->accepted++;
		return;
	}
	l->refused++;
	uint64_t left_out;
	if (log_limit_allow(&l->refused_log, &left_out)) {
		wlr_log(WLR_ERROR,
				"connection of pid %d (uid %d) refused: %s (%llu refused "
				"in all, %llu not logged before)",
				(int)cu->pid, (int)cu->uid, cu->refused,
				(unsigned long long)l->refused, (unsigned long long)left_out);
	} else {
		arm_summary(l);
	}
	wl_client_post_implementation_error(client, "connection refused: %s", cu->refused);
	wl_client_destroy(client); /* flushes the error first */
}

static int handle_accept(int fd, uint32_t mask, void *data)
{
	struct smtwc_transport *transport = data;
	struct smtwc_client_listen *l = transport->listen;
	l->wakeups++;
	for (int i = 0; i < ACCEPTS_PER_WAKEUP; i++) {
		bool dropped;
		int client_fd = fd_limit_accept(l->fd, SOCK_CLOEXEC, &dropped);
		if (client_fd >= 0) {
			serve(transport, l, client_fd);
			continue;
		}
		if (dropped) {
			log_dropped(l);
			continue;
		}
		if (errno == EINTR || errno == ECONNABORTED) {
			continue;
		}
		if (errno != EAGAIN && errno != EMFILE) {
			uint64_t left_out;
			if (log_limit_allow(&l->error_log, &left_out)) {
				wlr_log_errno(WLR_ERROR, "accept on %s (%llu not logged before)",
						l->name, (unsigned long long)left_out);
			}
		}
		break;
	}
	return 0;
}

/* Takes wayland-N if its lock is free: binds and listens on its socket. */
static bool take_name(struct smtwc_client_listen *l, const char *runtime, int n)
{
	snprintf(l->name, sizeof(l->name), "wayland-%d", n);
	int len = snprintf(l->path, sizeof(l->path), "%s/%s", runtime, l->name);
	if (len < 0 || (size_t)len >= sizeof(l->path)) {
		return false;
	}
	snprintf(l->lock_path, sizeof(l->lock_path), "%s.lock", l->path);
	l->lock_fd = open(l->lock_path, O_CREAT | O_CLOEXEC | O_RDWR,
			S_IRUSR | S_IWUSR | S_IRGRP | S_IWGRP);
	if (l->lock_fd < 0) {
		return false;
	}
	if (flock(l->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		close(l->lock_fd);
		l->lock_fd = -1;
		return false;
	}
	/* We hold the lock: a socket file left there is a dead one's. */
	unlink(l->path);
	l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	memcpy(addr.sun_path, l->path, (size_t)len + 1);
	if (l->fd < 0 || bind(l->fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
			listen(l->fd, 128) != 0) {
		wlr_log_errno(WLR_ERROR, "cannot listen on %s", l->path);
		if (l->fd >= 0) {
			close(l->fd);
			l->fd = -1;
		}
		unlink(l->lock_path);
		close(l->lock_fd);
		l->lock_fd = -1;
		return false;
	}
	return true;
}

const char *client_listen_start(struct smtwc_transport *transport)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	if (runtime == NULL || transport->listen != NULL) {
		return NULL;
	}
	struct smtwc_client_listen *l = calloc(1, sizeof(*l));
	if (l == NULL) {
		return NULL;
	}
	l->fd = l->lock_fd = -1;
	bool taken = false;
	for (int n = 0; n < 33 && !taken; n++) {
		taken = take_name(l, runtime, n);
	}
	if (!taken) {
		free(l);
		return NULL;
	}
	transport->listen = l;
	struct wl_event_loop *loop = wl_display_get_event_loop(transport->server->display);
	l->source = wl_event_loop_add_fd(loop, l->fd, WL_EVENT_READABLE, handle_accept, transport);
	l->summary = wl_event_loop_add_timer(loop, handle_summary, l);
	if (l->source == NULL) {
		client_listen_stop(transport);
		return NULL;
	}
	return l->name;
}

void client_listen_stop(struct smtwc_transport *transport)
{
	struct smtwc_client_listen *l = transport->listen;
	if (l == NULL) {
		return;
	}
	if (l->source != NULL) {
		wl_event_source_remove(l->source);
	}
	if (l->summary != NULL) {
		wl_event_source_remove(l->summary);
	}
	unlink(l->path);
	close(l->fd);
	unlink(l->lock_path);
	close(l->lock_fd);
	free(l);
	transport->listen = NULL;
}

void client_listen_stats(struct smtwc_transport *transport, struct client_listen_stats *out)
{
	struct smtwc_client_listen *l = transport->listen;
	*out = l != NULL ? (struct client_listen_stats){ l->accepted, l->refused,
		l->dropped_at_fd_limit, l->wakeups } :
			   (struct client_listen_stats){ 0 };
}

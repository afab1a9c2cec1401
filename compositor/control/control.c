/*
 * Control socket plumbing: non-blocking accept, bounded line reads, queued
 * writes. A client that sends an overlong line or never reads its answers is
 * disconnected; the compositor never blocks on it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include "compositor/fd_limit.h"
#include "compositor/log_limit.h"
#include "compositor/control/control.h"
#include "compositor/control/control_requests.h"
#include "compositor/ring/process_confined.h"
#include "compositor/server.h"

enum {
	MAX_CONNECTIONS = 32,
	MAX_LINE = 4096,
	MAX_PENDING_OUTPUT = 4 << 20,
};

struct control_connection {
	struct wl_list link;
	struct smtwc_control *control;
	int fd;
	struct wl_event_source *source;
	char in[MAX_LINE];
	size_t in_len;
	char *out;
	size_t out_len, out_cap;
};

struct smtwc_control {
	struct smtwc_server *server;
	int fd;
	char path[108];
	struct wl_event_source *source;
	struct wl_list connections;
	int count;
	struct log_limit confined_log; /* refused sandboxed peers */
};

static void connection_close(struct control_connection *c)
{
	wl_list_remove(&c->link);
	wl_event_source_remove(c->source);
	close(c->fd);
	c->control->count--;
	free(c->out);
	free(c);
}

/* Returns false when the connection had to be closed. While an answer is
 * still going out, the connection is not read (only written): a peer that
 * asks and does not read gets one answer held for it, not one per line it
 * sent (session 42: 31 connections writing "stats" lines and reading
 * nothing held 99 MiB of the compositor's heap and took 1.9 s of its main
 * thread, a probe's answer 531 ms late). Its requests wait in its socket,
 * as the kernel bounds them. */
static bool connection_flush(struct control_connection *c)
{
	while (c->out_len > 0) {
		ssize_t n = send(c->fd, c->out, c->out_len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				wl_event_source_fd_update(c->source, WL_EVENT_WRITABLE);
				return true;
			}
			connection_close(c);
			return false;
		}
		memmove(c->out, c->out + n, c->out_len - (size_t)n);
		c->out_len -= (size_t)n;
	}
	wl_event_source_fd_update(c->source, WL_EVENT_READABLE);
	return true;
}

static bool connection_queue(struct control_connection *c, const char *data, size_t len)
{
	if (c->out_len + len > MAX_PENDING_OUTPUT) {
		return false; /* it does not read what it asks for */
	}
	if (c->out_len + len > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 4096;
		while (cap < c->out_len + len) {
			cap *= 2;
		}
		char *grown = realloc(c->out, cap);
		if (grown == NULL) {
			return false;
		}
		c->out = grown;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, data, len);
	c->out_len += len;
	return true;
}

static bool connection_answer(struct control_connection *c, char *line)
{
	struct json_writer w = { 0 };
	control_answer(c->control->server, line, &w);
	bool ok = json_finish(&w) && connection_queue(c, w.data, w.len);
	json_writer_free(&w);
	return ok;
}

/* Answers the whole lines in c->in, each once the answer before it has
 * gone out (connection_flush). false when the connection was closed. */
static bool connection_answer_lines(struct control_connection *c)
{
	size_t start = 0;
	char *newline;
	while (c->out_len == 0 &&
			(newline = memchr(c->in + start, '\n', c->in_len - start)) != NULL) {
		*newline = '\0';
		if (!connection_answer(c, c->in + start)) {
			connection_close(c);
			return false;
		}
		start = (size_t)(newline - c->in) + 1;
		if (!connection_flush(c)) {
			return false;
		}
	}
	memmove(c->in, c->in + start, c->in_len - start);
	c->in_len -= start;
	return true;
}

static int connection_handle_event(int fd, uint32_t mask, void *data)
{
	struct control_connection *c = data;
	if (mask & (WL_EVENT_HANGUP | WL_EVENT_ERROR)) {
		connection_close(c);
		return 0;
	}
	if (mask & WL_EVENT_WRITABLE) {
		if (!connection_flush(c)) {
			return 0;
		}
	}
	if ((mask & WL_EVENT_READABLE) && c->out_len == 0 && c->in_len < sizeof(c->in)) {
		ssize_t n = recv(fd, c->in + c->in_len, sizeof(c->in) - c->in_len, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			connection_close(c);
			return 0;
		}
		if (n > 0) {
			c->in_len += (size_t)n;
		}
	}
	if (!connection_answer_lines(c)) {
		return 0;
	}
	if (c->out_len == 0 && c->in_len == sizeof(c->in)) {
		/* A line longer than any request: not a control client. */
		connection_queue(c, "{\"error\":\"request line too long\"}\n", 34);
		/* A failed send closes the connection already (a peer that shut
		 * its reading side down): close it only once. */
		if (connection_flush(c)) {
			connection_close(c);
		}
	}
	return 0;
}

static int control_handle_accept(int fd, uint32_t mask, void *data)
{
	struct smtwc_control *control = data;
	bool dropped; /* at the fd limit: closed, so the loop does not spin */
	int client = fd_limit_accept(fd, SOCK_CLOEXEC | SOCK_NONBLOCK, &dropped);
	if (client < 0) {
		return 0;
	}
	/* Settings, statistics of every client and input injection are our
	 * uid's only: XDG_RUNTIME_DIR is private, but a directory or socket
	 * opened up by mistake must still give another uid nothing (as the X
	 * ring's statistics socket does). */
	struct ucred peer;
	socklen_t peer_len = sizeof(peer);
	if (getsockopt(client, SOL_SOCKET, SO_PEERCRED, &peer, &peer_len) != 0 ||
			peer.uid != geteuid()) {
		close(client);
		return 0;
	}
	if (control->count >= MAX_CONNECTIONS) {
		close(client);
		return 0;
	}
	/* Nor a sandboxed program's of our uid that can reach the socket: it
	 * does not get the Wayland globals that watch or drive the session
	 * either (ring/privileged_globals.h). */
	char why[64];
	if (process_confined("/proc", "self", peer.pid, why, sizeof(why))) {
		uint64_t left_out = 0;
		if (log_limit_allow(&control->confined_log, &left_out)) {
			wlr_log(WLR_INFO,
					"control: pid %d runs confined (%s): refused "
					"(%llu such not logged before)",
					(int)peer.pid, why, (unsigned long long)left_out);
		}
		close(client);
		return 0;
	}
	struct control_connection *c = calloc(1, sizeof(*c));
	if (c == NULL) {
		close(client);
		return 0;
	}
	c->control = control;
	c->fd = client;
	c->source = wl_event_loop_add_fd(control->server->event_loop, client, WL_EVENT_READABLE,
			connection_handle_event, c);
	if (c->source == NULL) {
		close(client);
		free(c);
		return 0;
	}
	wl_list_insert(&control->connections, &c->link);
	control->count++;
	return 0;
}

bool control_init(struct smtwc_server *server)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	if (runtime == NULL || server->socket == NULL) {
		return false;
	}
	struct smtwc_control *control = calloc(1, sizeof(*control));
	if (control == NULL) {
		return false;
	}
	control->server = server;
	wl_list_init(&control->connections);
	int len = snprintf(control->path, sizeof(control->path), "%s/%s.smtwc", runtime,
			server->socket);
	if (len < 0 || (size_t)len >= sizeof(control->path)) {
		wlr_log(WLR_ERROR, "control socket path too long; smtctl will not work");
		free(control);
		return false;
	}
	control->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	memcpy(addr.sun_path, control->path, (size_t)len + 1);
	unlink(control->path);
	if (control->fd < 0 || bind(control->fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
			listen(control->fd, 8) != 0) {
		wlr_log_errno(WLR_ERROR, "control socket %s", control->path);
		if (control->fd >= 0) {
			close(control->fd);
		}
		free(control);
		return false;
	}
	control->source = wl_event_loop_add_fd(server->event_loop, control->fd, WL_EVENT_READABLE,
			control_handle_accept, control);
	setenv("SMTWC_CONTROL", control->path, true);
	server->control = control;
	return true;
}

void control_finish(struct smtwc_server *server)
{
	struct smtwc_control *control = server->control;
	if (control == NULL) {
		return;
	}
	struct control_connection *c, *tmp;
	wl_list_for_each_safe (c, tmp, &control->connections, link) {
		connection_close(c);
	}
	wl_event_source_remove(control->source);
	close(control->fd);
	unlink(control->path);
	free(control);
	server->control = NULL;
}

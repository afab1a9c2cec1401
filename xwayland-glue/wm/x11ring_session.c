/* See x11ring_session.h. */
#define _GNU_SOURCE
#include "xwayland-glue/wm/x11ring_session.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <wlr/util/log.h>

#include "xwayland-glue/preload_path.h"
#include "xwayland-glue/x11ring_endpoint.h"

struct x11ring_session {
	int discovery_fd;
	struct wl_event_source *discovery;
	char discovery_path[108];
};

/* Build tree first (a developer's session), then the installed files. */
static const char *find_file(const char *env, const char *built, const char *installed)
{
	const char *e = getenv(env);
	if (e && *e)
		return e;
	return access(built, R_OK) == 0 ? built : installed;
}

/* Clients only connect to learn that we exist; close at once so that the
 * backlog never fills. Nothing is written: the answer is the connection. */
static int handle_discovery(int fd, uint32_t mask, void *data)
{
	int c;
	while ((c = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0)
		close(c);
	return 0;
}

struct x11ring_session *x11ring_session_create(struct wl_event_loop *loop)
{
	const char *launcher = find_file(
			"SMT_XWAYLAND_LAUNCHER", SMT_XWAYLAND_BUILT, SMT_XWAYLAND_INSTALLED);
	const char *shim = find_file("SMT_X11SHIM_LIB", SMT_X11SHIM_BUILT, SMT_X11SHIM_INSTALLED);
	if (access(launcher, X_OK) != 0 || access(shim, R_OK) != 0) {
		wlr_log(WLR_ERROR,
				"X ring unavailable (%s or %s missing): X programs use the "
				"socket",
				launcher, shim);
		return NULL;
	}
	struct x11ring_session *s = calloc(1, sizeof(*s));
	if (s == NULL) {
		return NULL;
	}
	/* In the private runtime directory: nobody else can take its name
	 * first. One we find served already (another compositor of ours with
	 * this pid, in a shared runtime directory) is reported and left alone:
	 * the session then runs without the ring, every X program on the
	 * socket. */
	char why[256];
	s->discovery_fd = x11ring_endpoint_listen(
			X11RING_ENDPOINT_DISCOVERY, (long)getpid(), why, sizeof(why));
	if (s->discovery_fd < 0) {
		wlr_log(WLR_ERROR,
				"X ring discovery socket not created (%s): X programs of this "
				"session use the socket",
				why);
		free(s);
		return NULL;
	}
	x11ring_endpoint_path(X11RING_ENDPOINT_DISCOVERY, (long)getpid(), s->discovery_path,
			sizeof(s->discovery_path), why, sizeof(why));
	s->discovery = wl_event_loop_add_fd(
			loop, s->discovery_fd, WL_EVENT_READABLE, handle_discovery, s);
	char *list = preload_list(getenv("LD_PRELOAD"), shim, NULL, false);
	if (s->discovery == NULL || list == NULL) {
		free(list);
		x11ring_session_destroy(s);
		return NULL;
	}
	/* Only what we start from now on sees these: Xwayland through
	 * wlroots, and every program we launch (and their children). */
	char key[32];
	snprintf(key, sizeof(key), "%d", (int)getpid());
	setenv("SMT_X11RING_KEY", key, true);
	setenv("WLR_XWAYLAND", launcher, true);
	setenv("LD_PRELOAD", list, true);
	if (preload_sanitizer_runtime(false) != NULL) {
		/* Programs without the sanitizer run under its runtime only to
		 * host the sanitized shim; their leaks are not ours to report
		 * (TSan ignores ASAN_OPTIONS). */
		const char *o = getenv("ASAN_OPTIONS");
		char opts[1024];
		snprintf(opts, sizeof(opts), "%s%sdetect_leaks=0", o ? o : "", o ? ":" : "");
		setenv("ASAN_OPTIONS", opts, true);
	}
	free(list);
	wlr_log(WLR_INFO, "X ring: Xwayland through %s, clients preload %s", launcher, shim);
	return s;
}

void x11ring_session_destroy(struct x11ring_session *s)
{
	if (s == NULL) {
		return;
	}
	if (s->discovery != NULL) {
		wl_event_source_remove(s->discovery);
	}
	if (s->discovery_fd >= 0) {
		close(s->discovery_fd);
		unlink(s->discovery_path);
	}
	/* Xwayland removes its statistics socket as it exits; one killed
	 * leaves it behind, named after us: the session ends here. */
	char stats[108], why[256];
	if (x11ring_endpoint_path(X11RING_ENDPOINT_STATS, (long)getpid(), stats, sizeof(stats), why,
			    sizeof(why)))
		unlink(stats);
	free(s);
}

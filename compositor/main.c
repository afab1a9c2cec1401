/*
 * smtwc: command line, choice of backend, configuration, startup commands.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include "common/runtime_dir.h"
#include "compositor/log_limit.h"
#include "compositor/server.h"
#include "compositor/trace/trace.h"

static const char usage[] =
		"usage: smtwc [options]\n"
		"  -b, --backend NAME  auto (default), headless, wayland, x11 or drm\n"
		"  -c, --config PATH   configuration file (default $XDG_CONFIG_HOME/smtwc/config)\n"
		"  -s, --startup CMD   run CMD (through /bin/sh) once the session is up;\n"
		"                      may be given several times\n"
		"  -d, --debug         verbose wlroots logging\n"
		"  -h, --help          this text\n"
		"  -v, --version       print the version\n"
		"auto picks a nested window when WAYLAND_DISPLAY or DISPLAY is set, DRM and\n"
		"libinput on a VT, and headless (pixman renderer) otherwise. WLR_BACKENDS,\n"
		"WLR_RENDERER and WLR_HEADLESS_OUTPUTS are honoured.\n";

static bool on_virtual_terminal(void)
{
	const char *tty = isatty(STDIN_FILENO) ? ttyname(STDIN_FILENO) : NULL;
	if (tty != NULL && strncmp(tty, "/dev/tty", 8) == 0 && tty[8] >= '0' && tty[8] <= '9') {
		return true;
	}
	const char *type = getenv("XDG_SESSION_TYPE");
	return type != NULL && strcmp(type, "tty") == 0 && getenv("XDG_VTNR") != NULL;
}

static void use_headless(void)
{
	setenv("WLR_BACKENDS", "headless", true);
	/* No GPU to find: say so rather than let wlroots probe for one. */
	setenv("WLR_RENDERER", "pixman", false);
	setenv("WLR_LIBINPUT_NO_DEVICES", "1", false);
}

/* Translates --backend into the WLR_* variables wlroots reads; returns
 * whether the session will be headless. */
static bool select_backend(const char *name)
{
	if (name == NULL || strcmp(name, "auto") == 0) {
		const char *forced = getenv("WLR_BACKENDS");
		if (forced != NULL) {
			return strcmp(forced, "headless") == 0;
		}
		if (getenv("WAYLAND_DISPLAY") != NULL || getenv("DISPLAY") != NULL ||
				on_virtual_terminal()) {
			return false;
		}
		use_headless();
		return true;
	}
	if (strcmp(name, "headless") == 0) {
		use_headless();
		return true;
	}
	if (strcmp(name, "drm") == 0) {
		setenv("WLR_BACKENDS", "drm,libinput", true);
	} else {
		setenv("WLR_BACKENDS", name, true);
	}
	return false;
}

static void print_headless_help(const struct smtwc_server *server)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	fprintf(stderr,
			"smtwc is running headless: nothing is shown on this machine.\n"
			"  screenshot: XDG_RUNTIME_DIR=%s WAYLAND_DISPLAY=%s grim /tmp/smtwc.png\n"
			"  live view:  XDG_RUNTIME_DIR=%s WAYLAND_DISPLAY=%s wayvnc 127.0.0.1 5900\n"
			"              then point a VNC viewer at localhost:5900\n"
			"  clients:    XDG_RUNTIME_DIR=%s WAYLAND_DISPLAY=%s foot\n",
			runtime, server->socket, runtime, server->socket, runtime, server->socket);
}

int main(int argc, char *argv[])
{
	static const struct option options[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "config", required_argument, NULL, 'c' },
		{ "startup", required_argument, NULL, 's' },
		{ "debug", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'v' },
		{ 0 },
	};
	const char *backend = NULL, *config_path = NULL;
	const char **startup = calloc((size_t)argc, sizeof(*startup));
	size_t startup_count = 0;
	enum wlr_log_importance verbosity = WLR_INFO;
	int opt;
	while ((opt = getopt_long(argc, argv, "b:c:s:dhv", options, NULL)) != -1) {
		switch (opt) {
		case 'b':
			backend = optarg;
			break;
		case 'c':
			config_path = optarg;
			break;
		case 's':
			startup[startup_count++] = optarg;
			break;
		case 'd':
			verbosity = WLR_DEBUG;
			break;
		case 'h':
			fputs(usage, stdout);
			free(startup);
			return 0;
		case 'v':
			puts("smtwc " SMTWC_VERSION);
			free(startup);
			return 0;
		default:
			fputs(usage, stderr);
			free(startup);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "smtwc: unexpected argument '%s'\n%s", argv[optind], usage);
		free(startup);
		return 2;
	}
	if (backend != NULL && strcmp(backend, "auto") != 0 && strcmp(backend, "headless") != 0 &&
			strcmp(backend, "wayland") != 0 && strcmp(backend, "x11") != 0 &&
			strcmp(backend, "drm") != 0) {
		fprintf(stderr, "smtwc: unknown backend '%s'\n%s", backend, usage);
		free(startup);
		return 2;
	}
	/* Our sockets only where no other user can replace them
	 * (common/runtime_dir.h): checked before anything starts (Xwayland's
	 * sockets, the config's programs). */
	char why[256];
	if (!runtime_dir_private(getenv("XDG_RUNTIME_DIR"), why, sizeof(why))) {
		fprintf(stderr, "smtwc: refusing to start: %s\n", why);
		free(startup);
		return 1;
	}
	log_limit_wlroots(verbosity);
	log_limit_wayland();
	/* A client that closes its end of a pipe the compositor writes to (a
	 * paste from X it stops reading: wlroots writes the selection with
	 * plain write()) must cost that write an EPIPE, not the compositor
	 * its life. Launched programs get the default back (launch.c). */
	signal(SIGPIPE, SIG_IGN);

	static struct smtwc_server server;
	smtwc_config_init(&server.config);
	char *default_path = config_path == NULL ? smtwc_config_default_path() : NULL;
	const char *path = config_path != NULL ? config_path : default_path;
	if (config_path != NULL && access(config_path, R_OK) != 0) {
		fprintf(stderr,
				"%s: cannot read the configuration file: %s; "
				"starting with defaults\n",
				config_path, strerror(errno));
	} else if (path != NULL) {
		/* Bad lines are reported and skipped: a typo must not cost a session. */
		smtwc_config_load_file(&server.config, path, stderr);
	}
	free(default_path);

	server.headless = select_backend(backend);
	int status = 1;
	trace_init();
	if (server_init(&server) && server_start(&server)) {
		printf("WAYLAND_DISPLAY=%s\n", server.socket);
		fflush(stdout);
		if (server.headless) {
			print_headless_help(&server);
		}
		for (size_t i = 0; i < server.config.startup_count; i++) {
			launch_command(server.config.startup[i]);
		}
		for (size_t i = 0; i < startup_count; i++) {
			launch_command(startup[i]);
		}
		server_run(&server);
		status = 0;
	}
	server_finish(&server);
	trace_finish();
	free(startup);
	return status;
}

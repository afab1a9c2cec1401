/*
 * smtctl: talks to a running smtwc over its control socket.
 *
 *   smtctl clients            per-client table (like xrestop)
 *   smtctl top [SECONDS]      the same, refreshed every second (q or ^C quits)
 *   smtctl stats [--json]     compositor, scheduler and client statistics
 *   smtctl accounts [--json]  what each uid, process and connection holds,
 *                             against its limits
 *   smtctl windows            mapped windows and their geometry (JSON)
 *   smtctl seat               cursor, focus, locks and inhibitors (JSON)
 *   smtctl get                scheduler settings
 *   smtctl set KEY VALUE      change a scheduler setting live
 *
 * The socket is $SMTWC_CONTROL, else $XDG_RUNTIME_DIR/$WAYLAND_DISPLAY.smtwc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include "clients/smtctl_json.h"

static int control_connect(void)
{
	char path[108];
	const char *env = getenv("SMTWC_CONTROL");
	if (env != NULL) {
		snprintf(path, sizeof(path), "%s", env);
	} else {
		const char *runtime = getenv("XDG_RUNTIME_DIR");
		const char *display = getenv("WAYLAND_DISPLAY");
		if (runtime == NULL) {
			fputs("smtctl: XDG_RUNTIME_DIR is not set\n", stderr);
			return -1;
		}
		snprintf(path, sizeof(path), "%s/%s.smtwc", runtime,
				display != NULL ? display : "wayland-0");
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		fprintf(stderr, "smtctl: cannot connect to %s: %s\n", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
		}
		return -1;
	}
	return fd;
}

/* The compositor answers its own uid only (SO_PEERCRED), outside a
 * sandbox, and tells another nothing, closing at once: say whose it is
 * (root through sudo), or that a sandbox may be why. */
static void say_refused(int fd, const char *what)
{
	struct ucred peer;
	socklen_t peer_len = sizeof(peer);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &peer_len) == 0 &&
			peer.uid != geteuid()) {
		fprintf(stderr, "smtctl: %s: it runs as uid %u and answers that uid only (this is uid %u)\n",
				what, (unsigned)peer.uid, (unsigned)geteuid());
		return;
	}
	fprintf(stderr,
			"smtctl: %s (it answers no program in a sandbox: another mount or user "
			"namespace than its own)\n",
			what);
}

/* Sends one request and returns the one-line answer (malloc'd). */
static char *request(int fd, const char *line)
{
	size_t len = strlen(line);
	if (send(fd, line, len, MSG_NOSIGNAL) != (ssize_t)len ||
			send(fd, "\n", 1, MSG_NOSIGNAL) != 1) {
		say_refused(fd, "the compositor closed the connection");
		return NULL;
	}
	size_t cap = 4096, used = 0;
	char *buf = malloc(cap);
	while (buf != NULL) {
		if (used + 1 >= cap) {
			char *grown = realloc(buf, cap *= 2);
			if (grown == NULL) {
				break;
			}
			buf = grown;
		}
		ssize_t n = recv(fd, buf + used, cap - used - 1, 0);
		if (n <= 0) {
			break;
		}
		used += (size_t)n;
		buf[used] = '\0';
		char *nl = memchr(buf, '\n', used);
		if (nl != NULL) {
			*nl = '\0';
			return buf;
		}
	}
	free(buf);
	say_refused(fd, "no answer from the compositor");
	return NULL;
}

/* ---- the answers' values (smtctl_json.h: exact, whatever clients put in
 * strings) ------------------------------------------------------------- */

/* The value of "key" in the object obj as text, into out; false (out as it
 * was) if absent. */
static bool json_get(const char *obj, const char *key, char *out, size_t out_len)
{
	const char *v = smtctl_json_member(obj, key);
	return v != NULL && smtctl_json_text(v, out, out_len);
}

/* Calls fn for each object of the answer's array `key`. */
static void for_each_object(
		const char *json, const char *key, void (*fn)(const char *obj, void *), void *data)
{
	smtctl_json_each_object(smtctl_json_member(json, key), fn, data);
}

/* text in a column `width` characters wide (left-aligned if width < 0),
 * cut to it: widths count characters, not bytes. */
static void print_cell(const char *text, int width)
{
	size_t w = (size_t)(width < 0 ? -width : width);
	size_t cols = smtctl_text_columns(text);
	size_t pad = cols < w ? w - cols : 0;
	if (width > 0)
		printf("%*s", (int)pad, "");
	fwrite(text, 1, smtctl_text_prefix(text, w), stdout);
	if (width < 0)
		printf("%*s", (int)pad, "");
	putchar(' ');
}

/* "used/max", or "used" when the level has no limit; bytes in MiB. */
static void print_used_max(const char *obj, const char *key, bool mib, int width)
{
	char used[32] = "0", max[32] = "0", key_max[64], cell[80];
	json_get(obj, key, used, sizeof(used));
	snprintf(key_max, sizeof(key_max), "%s_max", key);
	json_get(obj, key_max, max, sizeof(max));
	unsigned long long u = strtoull(used, NULL, 10), m = strtoull(max, NULL, 10);
	if (mib) {
		u >>= 20;
		m >>= 20;
	}
	if (m != 0) {
		snprintf(cell, sizeof(cell), "%llu/%llu", u, m);
	} else {
		snprintf(cell, sizeof(cell), "%llu", u);
	}
	printf("%*s ", width, cell);
}

static void print_account_row(const char *obj, void *data)
{
	char level[16] = "?", id[16] = "-", uid[16] = "-";
	(void)data;
	json_get(obj, "level", level, sizeof(level));
	json_get(obj, strcmp(level, "uid") == 0 ? "uid" : "pid", id, sizeof(id));
	json_get(obj, "uid", uid, sizeof(uid));
	printf("%-10s %7s %6s ", level, id, uid);
	print_used_max(obj, "connections", false, 8);
	print_used_max(obj, "fds", false, 11);
	print_used_max(obj, "fds_in_flight", false, 7);
	print_used_max(obj, "rings", false, 5);
	print_used_max(obj, "pools", false, 6);
	print_used_max(obj, "canvases", false, 10);
	print_used_max(obj, "memory", true, 10);
	print_used_max(obj, "mappings", false, 11);
	print_used_max(obj, "address_space", true, 15);
	putchar('\n');
}

/* Accounts first, then the compositor's total from "server". */
static void print_accounts_table(const char *json)
{
	printf("%-10s %7s %6s %8s %11s %7s %5s %6s %10s %10s %11s %15s\n", "ACCOUNT", "ID", "UID",
			"CONNS", "FDS", "INFLT", "RINGS", "POOLS", "CANVASES", "MEM(MiB)",
			"MAPPINGS", "ADDR(MiB)");
	for_each_object(json, "accounts", print_account_row, NULL);
}

static void print_error_if_any(const char *json)
{
	char msg[512];
	if (json_get(json, "error", msg, sizeof(msg))) {
		fprintf(stderr, "smtctl: %s\n", msg);
	}
}

static void print_client_row(const char *obj, void *data)
{
	static const char *const keys[] = {
		"pid",
		"app_id",
		"priority",
		"slices",
		"time_ms",
		"commands",
		"bytes",
		"wakeups_from_client",
		"wakeups_to_client",
		"boosts",
		"ring_bytes",
		"pool_bytes",
		"canvas_bytes",
		"pixmap_bytes",
		"client_fds",
	};
	static const int widths[] = { 7, 16, 5, 8, 10, 10, 12, 7, 7, 6, 9, 10, 10, 10, 4 };
	(void)data;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char value[256];
		if (!json_get(obj, keys[i], value, sizeof(value)) || strcmp(value, "null") == 0) {
			strcpy(value, "-");
		}
		print_cell(value, i == 1 ? -widths[i] : widths[i]);
	}
	putchar('\n');
}

static void print_clients_table(const char *json)
{
	printf("%7s %-16s %5s %8s %10s %10s %12s %7s %7s %6s %9s %10s %10s %10s %4s\n", "PID",
			"APP", "PRIO", "SLICES", "TIME(ms)", "COMMANDS", "BYTES", "WK-IN", "WK-OUT",
			"BOOSTS", "RING", "POOLS", "CANVASES", "PIXMAPS", "FDS");
	for_each_object(json, "clients", print_client_row, NULL);
}

static int run_top(int fd, int seconds)
{
	struct termios saved, raw;
	bool tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0;
	if (tty) {
		raw = saved;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	int status = 0;
	for (int i = 0; seconds <= 0 || i < seconds; i++) {
		char *answer = request(fd, "stats");
		if (answer == NULL) {
			status = 1;
			break;
		}
		char mode[16] = "?", slice[16] = "?";
		const char *scheduler = smtctl_json_member(answer, "scheduler");
		json_get(scheduler, "mode", mode, sizeof(mode));
		json_get(scheduler, "slice-ms", slice, sizeof(slice));
		printf("\033[H\033[2Jsmtwc: scheduler %s, slice %s ms\n\n", mode, slice);
		print_clients_table(answer);
		fflush(stdout);
		free(answer);
		struct pollfd pfd = { STDIN_FILENO, POLLIN, 0 };
		if (tty && poll(&pfd, 1, 1000) > 0) {
			char c = 0;
			if (read(STDIN_FILENO, &c, 1) == 1 && (c == 'q' || c == 'Q')) {
				break;
			}
		} else if (!tty) {
			sleep(1);
		}
	}
	if (tty) {
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	}
	return status;
}

static void usage(FILE *out)
{
	fputs("usage: smtctl clients | top [SECONDS] | stats [--json] | accounts [--json] |\n"
	      "              windows | seat | get | set KEY VALUE\n"
	      "keys for set: mode (fair|fifo), slice-ms, lone-slice-ms, lone-after-ms,\n"
	      "              priority-base, priority-min, priority-max, input-boost,\n"
	      "              workers, worker-nice\n",
			out);
}

int main(int argc, char *argv[])
{
	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	const char *verb = argv[1];
	bool json = argc == 3 && strcmp(argv[2], "--json") == 0;
	char line[512];
	if (strcmp(verb, "set") == 0 && argc == 4) {
		snprintf(line, sizeof(line), "set %s %s", argv[2], argv[3]);
	} else if ((strcmp(verb, "clients") == 0 || strcmp(verb, "stats") == 0 ||
				   strcmp(verb, "accounts") == 0 || strcmp(verb, "get") == 0 ||
				   strcmp(verb, "windows") == 0 || strcmp(verb, "seat") == 0) &&
			(argc == 2 || json)) {
		snprintf(line, sizeof(line), "%s", verb);
	} else if (strcmp(verb, "top") == 0 && argc <= 3) {
		line[0] = '\0';
	} else {
		usage(stderr);
		return 2;
	}
	int fd = control_connect();
	if (fd < 0) {
		return 1;
	}
	if (strcmp(verb, "top") == 0) {
		int status = run_top(fd, argc == 3 ? atoi(argv[2]) : 0);
		close(fd);
		return status;
	}
	char *answer = request(fd, line);
	close(fd);
	if (answer == NULL) {
		return 1;
	}
	int status = smtctl_json_member(answer, "error") != NULL ? 1 : 0;
	if (status != 0) {
		print_error_if_any(answer);
	} else if (json || strcmp(verb, "stats") == 0 || strcmp(verb, "get") == 0 ||
			strcmp(verb, "set") == 0 || strcmp(verb, "windows") == 0 ||
			strcmp(verb, "seat") == 0) {
		puts(answer);
	} else if (strcmp(verb, "accounts") == 0) {
		print_accounts_table(answer);
	} else {
		print_clients_table(answer);
	}
	free(answer);
	return status;
}

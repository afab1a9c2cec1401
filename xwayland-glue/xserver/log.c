/*
 * The server half's log lines (xconn.h). Clients cause most of them (a
 * refused hello, a broken ring), so a client must not be able to fill the
 * compositor's log or keep Xwayland busy writing it: a token bucket lets
 * XCONN_LOG_BURST lines through at once and XCONN_LOG_PER_SEC after that,
 * and the next line that passes says how many were left out. Peers of
 * another uid get no line at all (handshake.c never looks at them).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "xwayland-glue/xserver/xconn.h"

void xconn_printable_comm(const struct xconn *c, char out[16])
{
	size_t i = 0;
	for (; i < 15 && c->comm[i]; i++) {
		char ch = c->comm[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
				(ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
		out[i] = ok ? ch : '?';
	}
	if (i == 0)
		out[i++] = '?';
	out[i] = '\0';
}

/* Tokens in thousandths of a line. */
static bool log_allowed(unsigned long *suppressed_out)
{
	static uint64_t tokens = XCONN_LOG_BURST * 1000ull, last_ns;
	static unsigned long suppressed;
	uint64_t now = monotonic_now_ns();
	if (last_ns)
		tokens += (now - last_ns) / (1000000000ull / (XCONN_LOG_PER_SEC * 1000ull));
	last_ns = now;
	if (tokens > XCONN_LOG_BURST * 1000ull)
		tokens = XCONN_LOG_BURST * 1000ull;
	if (tokens < 1000) {
		suppressed++;
		return false;
	}
	tokens -= 1000;
	*suppressed_out = suppressed;
	suppressed = 0;
	return true;
}

void xconn_log(const struct xconn *c, const char *fmt, ...)
{
	unsigned long left_out;
	if (!log_allowed(&left_out))
		return;
	if (left_out)
		fprintf(stderr,
				"smt-x11ring: %lu earlier lines left out (rate limit: %d at once, "
				"then %d a second)\n",
				left_out, XCONN_LOG_BURST, XCONN_LOG_PER_SEC);
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c) {
		char comm[16];
		xconn_printable_comm(c, comm);
		fprintf(stderr, "smt-x11ring: client fd %d (pid %d, %s): %s\n", c->fd, (int)c->pid,
				comm, msg);
	} else {
		fprintf(stderr, "smt-x11ring: %s\n", msg);
	}
}

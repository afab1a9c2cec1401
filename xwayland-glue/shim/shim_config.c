/* Environment settings and diagnostics of the shim; see config.h. */
#define _GNU_SOURCE
#include "xwayland-glue/shim/shim_config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xwayland-glue/shim/shm_segment_alloc.h"
#include "xwayland-glue/shim/syms.h"

struct xshim_config xshim_cfg;
atomic_bool xshim_inited;

static bool env_off(const char *v)
{
	return v &&
			(!strcmp(v, "0") || !strcmp(v, "off") || !strcmp(v, "no") ||
					!strcmp(v, "false"));
}

static uint32_t env_size(const char *name, uint32_t def, uint32_t lo, uint32_t hi)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return def;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 0);
	if (errno || end == v)
		return def;
	switch (*end) { /* accept 8M, 64K */
	case 'k':
	case 'K':
		n <<= 10;
		break;
	case 'm':
	case 'M':
		n <<= 20;
		break;
	default:
		break;
	}
	if (n < lo)
		n = lo;
	if (n > hi)
		n = hi;
	return (uint32_t)n;
}

static void parse(void)
{
	xshim_cfg.enabled = !env_off(getenv("SMT_X11SHIM"));
	const char *v = getenv("SMT_X11SHIM_SYSV");
	xshim_cfg.sysv = v && *v && !env_off(v);
	v = getenv("SMT_X11SHIM_DEBUG");
	xshim_cfg.debug = v && *v && !env_off(v);
	xshim_cfg.put_min = env_size("SMT_X11SHIM_PUT_MIN", XSHIM_DEFAULT_PUT_MIN, 1, UINT32_MAX);
	xshim_cfg.get_min = env_size("SMT_X11SHIM_GET_MIN", XSHIM_DEFAULT_GET_MIN, 1, UINT32_MAX);
	/* At least 256 KiB so that an image below the thresholds' scale fits;
	 * at most 1 GiB so that offsets stay far from 32-bit overflow. */
	xshim_cfg.segment = env_size("SMT_X11SHIM_SEGMENT", XSHIM_DEFAULT_SEGMENT, 256u << 10,
					    1u << 30) &
			~(XSHIM_SEGMENT_ALIGN - 1);
	xshim_cfg.flush = env_size("SMT_X11SHIM_FLUSH", XSHIM_DEFAULT_FLUSH, 1, UINT32_MAX);
	v = getenv("SMT_X11SHIM_STATS");
	xshim_cfg.stats = v && *v && !env_off(v) ? strdup(v) : NULL;
}

void xshim_init_slow(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, parse);
	xshim_syms_load();
	atomic_store_explicit(&xshim_inited, true, memory_order_release);
}

void xshim_stats_line(const char *line)
{
	const char *dst = xshim_config()->stats;
	if (!dst)
		return;
	int fd = STDERR_FILENO;
	if (strcmp(dst, "1") != 0) {
		fd = open(dst, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return;
	}
	/* One write per line: lines from several processes appending to the
	 * same file stay whole. */
	size_t n = strlen(line);
	ssize_t w = write(fd, line, n);
	(void)w;
	if (fd != STDERR_FILENO)
		close(fd);
}

void xshim_debug(const char *fmt, ...)
{
	if (!xshim_config()->debug)
		return;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
	(void)w;
}

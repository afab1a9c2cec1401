/*
 * The shim's settings, read once from the environment.
 *
 *   SMT_X11SHIM=off|0          pass every call straight through
 *   SMT_X11SHIM_PUT_MIN=bytes  smallest PutImage converted (default below)
 *   SMT_X11SHIM_GET_MIN=bytes  smallest GetImage converted
 *   SMT_X11SHIM_SEGMENT=bytes  size of the one segment per connection
 *   SMT_X11SHIM_FLUSH=bytes    flush converted requests once this much image
 *                              data is pending
 *   SMT_X11SHIM_SYSV=1         use a SysV segment even where a memfd works
 *   SMT_X11SHIM_STATS=1|path   print counters per connection and at exit
 *                              (stderr for 1, else appended to path)
 *   SMT_X11SHIM_DEBUG=1        say why a connection is not converted
 */
#ifndef SMT_X11SHIM_CONFIG_H
#define SMT_X11SHIM_CONFIG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Defaults, from measurements on Xvfb in this project's 2-CPU VM
 * (tests/bench/x11/run.py --sizes, docs/x11.md). Puts are asynchronous:
 * converted ones win from 24x24x32bpp (2 KiB) up, break even at 16x16 and
 * lose at 8x8; 4 KiB keeps a margin. Gets are synchronous round trips: with
 * idle CPUs a round trip costs ~55 us here and the copy saved is small
 * change until about 256x256 (converted: -8% at 160x160, +14% at 256x256);
 * on a busy machine, where round trips are fast, they win from ~90x90, but
 * the default must not lose on an idle desktop. */
#define XSHIM_DEFAULT_PUT_MIN (4u * 1024u)
#define XSHIM_DEFAULT_GET_MIN (256u * 1024u)
/* Room for several 500x500x32bpp images, so that the client's copy of one
 * overlaps the server's drawing of the previous ones; stays within a
 * typical L3 cache. */
#define XSHIM_DEFAULT_SEGMENT (8u << 20)
/* One maximum-size core request's worth of pixels (what libX11 sends per
 * PutImage band). Measured on Xvfb: x11perf -putimage100 goes 1.8x faster
 * than when flushing every 16 KiB (libX11's buffer), -putimage500 the same.
 * Waiting longer is safe: libX11 takes the socket back, which flushes these
 * requests, whenever it writes a request or reads events or replies. */
#define XSHIM_DEFAULT_FLUSH (256u * 1024u)

struct xshim_config {
	bool enabled;
	bool sysv;
	bool debug;
	uint32_t put_min, get_min;
	uint32_t segment;
	uint32_t flush;
	const char *stats; /* NULL: no statistics */
};

extern struct xshim_config xshim_cfg;
extern atomic_bool xshim_inited;
void xshim_init_slow(void);

/* Settings parsed and the X entry points found (xshim_real), on first use.
 * Inline: every XPutImage passes here, also the 10x10 ones that stay plain,
 * so the common case is one load and a branch. */
static inline const struct xshim_config *xshim_init(void)
{
	if (!atomic_load_explicit(&xshim_inited, memory_order_acquire))
		xshim_init_slow();
	return &xshim_cfg;
}

static inline const struct xshim_config *xshim_config(void)
{
	return xshim_init();
}

/* Writes one line to the statistics sink (no-op without SMT_X11SHIM_STATS). */
void xshim_stats_line(const char *line);

/* Debug message to stderr when SMT_X11SHIM_DEBUG is set. */
void xshim_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

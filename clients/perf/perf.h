/*
 * smt-perf's core, shared by its modes (throughput.c, images.c,
 * clients.c, raw.c): the clock, errors, option lists, /proc readings.
 */
#ifndef SMT_PERF_H
#define SMT_PERF_H

#include <stdbool.h>
#include <stdint.h>

#include "common/monotonic_clock.h" /* monotonic_now_ns(): the clock of every figure */

/* x11perf's window size */
#define WIN_W 600
#define WIN_H 600

extern uint32_t opt_area; /* ring area (bytes), 0: libsmt default */
extern bool opt_single;   /* --objects 1: one object per command */

void die(const char *msg);
_Noreturn void usage(void);
int parse_list(const char *s, long *out, int max);

/* /proc of another process (pid 0: this one) */
long proc_maps_lines(int pid);
long proc_rss_kb(int pid);
long long proc_cpu_ticks(int pid);
long long proc_minflt(int pid);

/* the modes */
void list_cases(void); /* --list: throughput's cases */
int throughput(const char *tlist, double secs, double warm, int rounds, const char *list,
		const char *csv);
int images(const char *nlist, long iters, int spid, const char *csv);
int images_alloc_only(const char *nlist, long iters);
int clients(const char *nlist, int spid, int pings, double idle_secs, const char *csv);
int raw_limit(double secs, int rounds, const char *csv);

#endif

/* smt-perf --clients: many idle ring connections (main.c's comment). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "clients/libsmt/smt.h"
#include "clients/perf/perf.h"

static atomic_bool busy_stop;
static void *busy_thread(void *arg)
{
	struct smt_ctx *ctx = arg;
	uint64_t i = 0;
	while (!atomic_load(&busy_stop)) {
		struct smt_rect r = { (int32_t)(i % 200), (int32_t)(i % 150), 10, 10 };
		smt_fill_rects(ctx, SMT_PAINT_SRC, 0xff000000u | (uint32_t)i, 1, &r);
		if ((++i & 4095) == 0)
			smt_sync(ctx);
	}
	smt_sync(ctx);
	return NULL;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void ping_stats(struct smt_ctx *ctx, int pings, double *p50, double *p99, double *mx)
{
	double *v = malloc(sizeof(double) * (size_t)pings);
	for (int i = 0; i < pings; i++) {
		uint64_t t0 = monotonic_now_ns();
		if (smt_sync(ctx))
			die("ping failed");
		v[i] = (double)(monotonic_now_ns() - t0) / 1e3;
		usleep(1000);
	}
	qsort(v, (size_t)pings, sizeof(double), cmp_d);
	*p50 = v[pings / 2];
	*p99 = v[(int)((double)pings * 0.99)];
	*mx = v[pings - 1];
	free(v);
}

int clients(const char *nlist, int spid, int pings, double idle_secs, const char *csv)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	long ns[16];
	int nn = parse_list(nlist, ns, 16);
	FILE *f = csv ? fopen(csv, "w") : NULL;
	if (f)
		fprintf(f,
				"clients,rss_base_kb,rss_kb,rss_per_client_kb,idle_cpu_pct,"
				"ping_p50_us,ping_p99_us,ping_max_us,busy_ping_p50_us,busy_ping_p99_us,"
				"busy_ping_max_us\n");
	long hz = sysconf(_SC_CLK_TCK);
	printf("# smt-perf clients: ring clients with a 64x64 window each; ping = FENCE round trip\n");
	printf("%7s %12s %10s %9s %10s %10s %10s %12s %12s\n", "clients", "RSS/client KiB",
			"RSS MiB", "idle CPU%", "ping p50us", "ping p99us", "ping max",
			"busy p50us", "busy p99us");
	for (int k = 0; k < nn; k++) {
		long N = ns[k];
		long rss0 = proc_rss_kb(spid);
		struct smt_ctx **c = calloc((size_t)N + 1, sizeof(*c));
		struct smt_options o = { .transport = SMT_TRANSPORT_RING };
		for (long i = 0; i < N + 1; i++) {
			c[i] = smt_connect(&o);
			if (!c[i] || smt_transport(c[i]) != SMT_TRANSPORT_RING)
				die("connect");
			struct smt_window *w = smt_window_create(c[i], "idle", "smt-perf", 64, 64);
			if (!w)
				die("window");
			smt_set_target(c[i], smt_window_canvas(w));
			smt_sync(c[i]);
		}
		/* c[N] is the extra busy client; it is idle until the busy phase. */
		usleep(300000);
		long rss1 = proc_rss_kb(spid);
		long long cpu0 = proc_cpu_ticks(spid);
		uint64_t t0 = monotonic_now_ns();
		usleep((useconds_t)(idle_secs * 1e6));
		long long cpu1 = proc_cpu_ticks(spid);
		double idle_pct = (double)(cpu1 - cpu0) / (double)hz /
				((double)(monotonic_now_ns() - t0) / 1e9) * 100.0;
		double p50, p99, mx, bp50, bp99, bmx;
		ping_stats(c[0], pings, &p50, &p99, &mx);
		atomic_store(&busy_stop, false);
		pthread_t th;
		pthread_create(&th, NULL, busy_thread, c[N]);
		usleep(100000);
		ping_stats(c[0], pings, &bp50, &bp99, &bmx);
		atomic_store(&busy_stop, true);
		pthread_join(th, NULL);
		double per = (double)(rss1 - rss0) / (double)(N + 1);
		printf("%7ld %12.1f %10.1f %9.3f %10.1f %10.1f %10.1f %12.1f %12.1f\n", N, per,
				(double)rss1 / 1024.0, idle_pct, p50, p99, mx, bp50, bp99);
		fflush(stdout);
		if (f)
			fprintf(f, "%ld,%ld,%ld,%.1f,%.4f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f\n", N, rss0,
					rss1, per, idle_pct, p50, p99, mx, bp50, bp99, bmx);
		for (long i = 0; i < N + 1; i++)
			smt_disconnect(c[i]);
		free(c);
		usleep(500000);
	}
	if (f)
		fclose(f);
	return 0;
}

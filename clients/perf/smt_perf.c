/*
 * smt-perf — an x11perf-like benchmark over libsmt.
 *
 *   smt-perf [-t ring,socket,local] [-s SECONDS] [-w WARMUP] [-r ROUNDS] [-c CASES]
 *            [--csv FILE] [--quick]
 *   smt-perf --images [-n 100,1000,...] [--iters K] [--server-pid PID] [--csv FILE]
 *   smt-perf --clients 1,10,100,300 [--server-pid PID] [--pings K] [--csv FILE]
 *   smt-perf --raw [-s SECONDS] [-r ROUNDS] [--csv FILE]
 *
 * Throughput mode: every case draws into a 600x600 canvas (x11perf's window
 * size) for a warm-up, then for a set time, and ends with a FENCE whose
 * completion is waited for, so only executed work counts. Rates are objects
 * per second (points, rectangles, segments, images, glyphs), like x11perf's.
 * By default a command carries as many objects as x11perf puts in one
 * request for the matching test (--objects x11: 1000 points, rectangles or
 * segments, 36 100x100 and one 500x500 rectangle, 80 glyphs of a text line;
 * one image or copy per command); --objects 1 sends one object per command,
 * which measures the cost per command. Transports:
 *   ring    libsmt over the shared-memory ring (compositor executes)
 *   socket  libsmt over smt_ring_v1.submit (the fallback)
 *   local   the same command bytes through the same executor
 *           (compositor/exec) in this process, over an in-memory ring on
 *           a pixman image of the same size: no transport at all, the
 *           physical limit of the executor.
 * Wakeup counters (ring): client->server eventfd writes and server->client
 * wakeups per 10,000 commands, from the ring's counters.
 *
 * Images mode (the mmap seed's benchmark shape, 002): for each N, keep N
 * live images of 4000 bytes in a pool, then time random create/free churn
 * over 100 slots of images of 1..16384 bytes (each created image is drawn
 * once with PUT_IMAGE_POOL so the compositor touches it; freed blocks are
 * released after a fence). Reports us per operation and the compositor's
 * /proc/PID/maps line count.
 *
 * SMT_PERF_ALLOC_ONLY=1 smt-perf --images runs the same churn on libsmt's
 * sub-allocator alone (no compositor), to separate its cost.
 *
 * Clients mode: N ring connections in this process; compositor RSS per
 * client, compositor CPU while all are idle, and the FENCE round trip
 * (smt_sync) of one client while the others are idle, and while one other
 * client draws continuously (a second thread).
 *
 * Raw mode (raw.c): the ring's own limit, two processes and no compositor.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clients/perf/perf.h"

uint32_t opt_area; /* ring area (bytes), 0: libsmt default */
bool opt_single;   /* --objects 1: one object per command */

void die(const char *msg)
{
	fprintf(stderr, "smt-perf: %s\n", msg);
	exit(1);
}

int parse_list(const char *s, long *out, int max)
{
	int n = 0;
	while (s && *s && n < max) {
		out[n++] = strtol(s, (char **)&s, 10);
		if (*s == ',')
			s++;
	}
	return n;
}

_Noreturn void usage(void)
{
	fprintf(stderr,
			"usage: smt-perf [-t ring,socket,local] [-s SECS] [-w WARMUP] [-r ROUNDS] [-c case,...]\n"
			"                [--objects x11|1] [--area BYTES] [--csv FILE] [--quick] [--list]\n"
			"       smt-perf --images [-n 100,1000,...] [--iters K] [--server-pid PID] [--csv F]\n"
			"       smt-perf --clients 1,10,100,300 --server-pid PID [--pings K] [--csv F]\n"
			"       smt-perf --raw [-s SECS] [-r ROUNDS] [--csv F]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *tname = "ring", *list = NULL, *csv = NULL, *nlist = NULL, *clist = NULL;
	double secs = 0.8, warm = 0.2, idle = 3.0;
	long iters = 100000;
	int spid = 0, pings = 1000, rounds = 3;
	bool images_mode = false, raw_mode = false;
	enum {
		O_CSV = 256,
		O_QUICK,
		O_LIST,
		O_IMAGES,
		O_ITERS,
		O_SPID,
		O_CLIENTS,
		O_PINGS,
		O_IDLE,
		O_OBJECTS,
		O_RAW
	};
	static const struct option lo[] = {
		{ "transport", required_argument, NULL, 't' },
		{ "seconds", required_argument, NULL, 's' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "cases", required_argument, NULL, 'c' },
		{ "csv", required_argument, NULL, O_CSV },
		{ "quick", no_argument, NULL, O_QUICK },
		{ "list", no_argument, NULL, O_LIST },
		{ "images", no_argument, NULL, O_IMAGES },
		{ "iters", required_argument, NULL, O_ITERS },
		{ "server-pid", required_argument, NULL, O_SPID },
		{ "clients", required_argument, NULL, O_CLIENTS },
		{ "pings", required_argument, NULL, O_PINGS },
		{ "idle-seconds", required_argument, NULL, O_IDLE },
		{ "sizes", required_argument, NULL, 'n' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "area", required_argument, NULL, 'a' },
		{ "objects", required_argument, NULL, O_OBJECTS },
		{ "raw", no_argument, NULL, O_RAW },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "t:s:w:c:n:r:a:h", lo, NULL)) != -1) {
		switch (opt) {
		case 't':
			tname = optarg;
			break;
		case 's':
			secs = atof(optarg);
			break;
		case 'w':
			warm = atof(optarg);
			break;
		case 'c':
			list = optarg;
			break;
		case 'n':
			nlist = optarg;
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'a':
			opt_area = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case O_CSV:
			csv = optarg;
			break;
		case O_OBJECTS:
			if (strcmp(optarg, "x11") && strcmp(optarg, "1"))
				usage();
			opt_single = !strcmp(optarg, "1");
			break;
		case O_QUICK:
			secs = 0.3;
			warm = 0.05;
			rounds = 3;
			iters = 20000;
			pings = 200;
			idle = 1.0;
			break;
		case O_LIST:
			list_cases();
			return 0;
		case O_IMAGES:
			images_mode = true;
			break;
		case O_RAW:
			raw_mode = true;
			break;
		case O_ITERS:
			iters = atol(optarg);
			break;
		case O_SPID:
			spid = atoi(optarg);
			break;
		case O_CLIENTS:
			clist = optarg;
			break;
		case O_PINGS:
			pings = atoi(optarg);
			break;
		case O_IDLE:
			idle = atof(optarg);
			break;
		default:
			usage();
		}
	}
	if (images_mode && getenv("SMT_PERF_ALLOC_ONLY"))
		return images_alloc_only(nlist ? nlist : "100,1000,10000,20000,40000,80000", iters);
	if (images_mode)
		return images(nlist ? nlist : "100,1000,10000,20000,40000,80000", iters, spid, csv);
	if (clist) {
		if (spid <= 0)
			die("--clients needs --server-pid");
		return clients(clist, spid, pings, idle, csv);
	}
	if (rounds < 1 || rounds > 16)
		usage();
	if (raw_mode)
		return raw_limit(secs, rounds, csv);
	return throughput(tname, secs, warm, rounds, list, csv);
}

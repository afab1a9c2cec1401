/* smt-perf: readings from /proc of the compositor (or of smt-perf itself). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "perf.h"

long proc_maps_lines(int pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	long n = 0;
	int ch;
	while ((ch = fgetc(f)) != EOF)
		if (ch == '\n')
			n++;
	fclose(f);
	return n;
}

long proc_rss_kb(int pid)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	long kb = -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* utime + stime in clock ticks */
long long proc_cpu_ticks(int pid)
{
	char path[64], buf[2048];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	if (!p)
		return -1;
	unsigned long ut = 0, st = 0;
	/* fields after ')': state(3) ... utime(14) stime(15) */
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (long long)ut + (long long)st;
}

/* minor page faults (field 10) */
long long proc_minflt(int pid)
{
	char path[64], buf[2048];
	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	unsigned long mf = 0;
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %lu", &mf) != 1)
		return -1;
	return (long long)mf;
}

/* smt-perf: readings from /proc of the compositor (or of smt-perf itself). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clients/perf/perf.h"

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

/* The fields of /proc/PID/stat after the command name (pid <= 0: this
 * process), read into buf; NULL if unreadable. The name is in parentheses
 * and may itself hold spaces or ')', so the fields start after the last ')'. */
static const char *stat_fields(int pid, char *buf, size_t size)
{
	char path[64];
	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return p ? p + 2 : NULL;
}

/* utime + stime in clock ticks */
long long proc_cpu_ticks(int pid)
{
	char buf[2048];
	const char *fields = stat_fields(pid, buf, sizeof(buf));
	unsigned long ut = 0, st = 0;
	/* fields after ')': state(3) ... utime(14) stime(15) */
	if (!fields ||
			sscanf(fields, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut,
					&st) != 2)
		return -1;
	return (long long)ut + (long long)st;
}

/* minor page faults (field 10) */
long long proc_minflt(int pid)
{
	char buf[2048];
	const char *fields = stat_fields(pid, buf, sizeof(buf));
	unsigned long mf = 0;
	if (!fields || sscanf(fields, "%*c %*d %*d %*d %*d %*d %*u %lu", &mf) != 1)
		return -1;
	return (long long)mf;
}

/*
 * compositor/ring/process_confined.c against procfs-shaped trees: a
 * process is confined when its mount or user namespace or its root
 * differs from ours, or when any of them cannot be read (a process gone).
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "compositor/ring/process_confined.h"
#include "unit_check.h"

static char base[256];

static void path_of(char *out, size_t size, const char *rel)
{
	snprintf(out, size, "%s/%s", base, rel);
}

static void make_dir(const char *rel)
{
	char p[512];
	path_of(p, sizeof(p), rel);
	CHECK(mkdir(p, 0700) == 0);
}

static void make_file(const char *rel)
{
	char p[512];
	path_of(p, sizeof(p), rel);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	fclose(f);
}

/* `rel` another name of `target`: the same inode, as two processes in
 * one namespace see it. */
static void make_link(const char *target, const char *rel)
{
	char a[512], b[512];
	path_of(a, sizeof(a), target);
	path_of(b, sizeof(b), rel);
	CHECK(link(a, b) == 0);
}

/* A process entry `pid` sharing self's mount namespace, user namespace
 * and root where asked, with its own otherwise. */
static void make_process(const char *pid, bool mnt, bool user, bool root)
{
	char rel[128];
	make_dir(pid);
	snprintf(rel, sizeof(rel), "%s/ns", pid);
	make_dir(rel);
	snprintf(rel, sizeof(rel), "%s/ns/mnt", pid);
	if (mnt) {
		make_link("self/ns/mnt", rel);
	} else {
		make_file(rel);
	}
	snprintf(rel, sizeof(rel), "%s/ns/user", pid);
	if (user) {
		make_link("self/ns/user", rel);
	} else {
		make_file(rel);
	}
	snprintf(rel, sizeof(rel), "%s/root", pid);
	if (root) {
		char target[512];
		path_of(target, sizeof(target), "self/root");
		char p[512];
		path_of(p, sizeof(p), rel);
		CHECK(symlink(target, p) == 0);
	} else {
		make_dir(rel);
	}
}

static void expect(pid_t pid, bool confined, const char *why_want)
{
	char why[64];
	CHECK_INT(process_confined(base, "self", pid, why, sizeof(why)), confined);
	CHECK_STR(why, why_want);
}

int main(void)
{
	snprintf(base, sizeof(base), "%s/smt-confined-XXXXXX",
			getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	CHECK(mkdtemp(base) != NULL);
	make_dir("self");
	make_dir("self/ns");
	make_file("self/ns/mnt");
	make_file("self/ns/user");
	make_dir("self/root");
	make_process("100", true, true, true);
	make_process("200", false, true, true);
	make_process("300", true, false, true);
	make_process("400", true, true, false);
	make_process("500", false, false, false);

	expect(100, false, "");
	expect(200, true, "another mount namespace");
	expect(300, true, "another user namespace");
	expect(400, true, "another root directory");
	expect(500, true, "another mount namespace");
	expect(600, true, "its namespaces cannot be read"); /* gone */

	/* And on the real procfs: this process is not confined from itself;
	 * a pid above pid_max names nobody. */
	{
		char why[64];
		CHECK(!process_confined("/proc", "self", getpid(), why, sizeof(why)));
		CHECK(process_confined("/proc", "self", 1 << 30, why, sizeof(why)));
		CHECK(strcmp(why, "its namespaces cannot be read") == 0);
	}

	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	CHECK(system(cmd) == 0);
	return failures != 0;
}

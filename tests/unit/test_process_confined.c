/*
 * compositor/ring/process_confined.c against procfs-shaped trees: a
 * process is confined when its root mount (mountinfo's line for "/": the
 * mount's ID and root) or its uid map differs from ours, when no mount is
 * its root (chrooted below a mount point), or when its entries cannot be
 * read (a process gone).
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "compositor/ring/process_confined.h"
#include "tests/unit/unit_check.h"

static char base[256];

#define OUR_MOUNTS                                        \
	"22 27 0:21 / /proc rw,relatime - proc proc rw\n" \
	"27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n" \
	"28 27 0:5 / /dev rw - devtmpfs udev rw\n"
#define OUR_UIDS "         0          0 4294967295\n"

static void write_file(const char *pid, const char *name, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", base, pid);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/%s/%s", base, pid, name);
	FILE *f = fopen(p, "w");
	REQUIRE(f != NULL, "cannot write the tree");
	fputs(text, f);
	fclose(f);
}

static void make_process(const char *pid, const char *mounts, const char *uids)
{
	if (mounts != NULL) {
		write_file(pid, "mountinfo", mounts);
	}
	if (uids != NULL) {
		write_file(pid, "uid_map", uids);
	}
}

static void expect(pid_t pid, bool confined, const char *why_want)
{
	char why[64];
	current_test = "tree";
	CHECK_INT(process_confined(base, "self", pid, why, sizeof(why)), confined);
	CHECK_STR(why, why_want);
}

int main(void)
{
	snprintf(base, sizeof(base), "%s/smt-confined-XXXXXX",
			getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	REQUIRE(mkdtemp(base) != NULL, "mkdtemp");
	make_process("self", OUR_MOUNTS, OUR_UIDS);
	/* the same namespace, mounts listed in another order */
	make_process("100",
			"28 27 0:5 / /dev rw - devtmpfs udev rw\n"
			"27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n",
			OUR_UIDS);
	/* a copy of our mounts: a mount namespace of its own (unshare -m) */
	make_process("200", "43 42 254:0 / / rw,relatime - ext4 /dev/vda rw\n", OUR_UIDS);
	/* chrooted below a mount point: no mount is its root */
	make_process("300", "", OUR_UIDS);
	/* pivoted into a directory of our root's file system */
	make_process("400", "27 1 254:0 /srv/jail / rw - ext4 /dev/vda rw\n", OUR_UIDS);
	/* a user namespace of its own mapping our uid alone (unshare -U) */
	make_process("500", OUR_MOUNTS, "         0       1000          1\n");
	make_process("510", OUR_MOUNTS, "");
	/* half there: mountinfo only */
	make_process("600", OUR_MOUNTS, NULL);

	expect(100, false, "");
	expect(200, true, "another mount namespace or root");
	expect(300, true, "another mount namespace or root");
	expect(400, true, "another mount namespace or root");
	expect(500, true, "another user namespace");
	expect(510, true, "another user namespace");
	expect(600, true, "its /proc entries cannot be read");
	expect(700, true, "its /proc entries cannot be read"); /* gone */

	/* And on the real procfs: this process is not confined from itself;
	 * a pid above pid_max names nobody. */
	current_test = "procfs";
	char why[64];
	CHECK(!process_confined("/proc", "self", getpid(), why, sizeof(why)));
	CHECK(process_confined("/proc", "self", 1 << 30, why, sizeof(why)));
	CHECK_STR(why, "its /proc entries cannot be read");

	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	CHECK(system(cmd) == 0);
	return failures != 0;
}

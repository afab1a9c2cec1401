#include "compositor/ring/process_confined.h"

#include <stdio.h>
#include <string.h>

/* The line of `path` (a mountinfo) whose mount point is "/": the mount
 * the process sees as its root, as "ID ROOT" (its mount ID, unique to
 * one mount namespace's copy, and the directory of that mount it is
 * rooted at). "" when no mount is its root (chrooted below a mount
 * point); false when the file cannot be read. */
static bool root_mount(const char *path, char *out, size_t size)
{
	FILE *f = fopen(path, "re");
	if (f == NULL) {
		return false;
	}
	snprintf(out, size, "%s", "");
	char line[1024];
	while (fgets(line, sizeof(line), f) != NULL) {
		char id[16], root[512], mount_point[512];
		/* ID PARENT MAJ:MIN ROOT MOUNT-POINT ... (proc(5)); a line
		 * longer than the buffer only splits into lines that match
		 * nothing, and the root mount's is short. */
		if (sscanf(line, "%15s %*s %*s %511s %511s", id, root, mount_point) == 3 &&
				strcmp(mount_point, "/") == 0) {
			snprintf(out, size, "%s %s", id, root);
		}
	}
	fclose(f);
	return true;
}

/* A small file read whole (uid_map: at most 340 lines); false if it
 * cannot be read or does not fit. */
static bool read_small(const char *path, char *out, size_t size)
{
	FILE *f = fopen(path, "re");
	if (f == NULL) {
		return false;
	}
	size_t n = fread(out, 1, size - 1, f);
	bool whole = n < size - 1 && !ferror(f);
	fclose(f);
	out[n] = '\0';
	return whole;
}

bool process_confined(const char *proc, const char *self, pid_t pid, char *why, size_t why_size)
{
	/* Read from mountinfo and uid_map, which any process may read of
	 * another (ns/ and root need ptrace access: not ours for a setgid or
	 * non-dumpable client of our own uid, nor for root's). */
	char theirs[512], ours[512];
	char a[12288], b[12288];
	int nt = snprintf(theirs, sizeof(theirs), "%s/%d/mountinfo", proc, (int)pid);
	int no = snprintf(ours, sizeof(ours), "%s/%s/mountinfo", proc, self);
	if (nt < 0 || (size_t)nt >= sizeof(theirs) || no < 0 || (size_t)no >= sizeof(ours) ||
			!root_mount(theirs, a, sizeof(a)) || !root_mount(ours, b, sizeof(b))) {
		snprintf(why, why_size, "%s", "its /proc entries cannot be read");
		return true;
	}
	if (a[0] == '\0' || strcmp(a, b) != 0) {
		snprintf(why, why_size, "%s", "another mount namespace or root");
		return true;
	}
	nt = snprintf(theirs, sizeof(theirs), "%s/%d/uid_map", proc, (int)pid);
	no = snprintf(ours, sizeof(ours), "%s/%s/uid_map", proc, self);
	if (nt < 0 || (size_t)nt >= sizeof(theirs) || no < 0 || (size_t)no >= sizeof(ours) ||
			!read_small(theirs, a, sizeof(a)) || !read_small(ours, b, sizeof(b))) {
		snprintf(why, why_size, "%s", "its /proc entries cannot be read");
		return true;
	}
	if (strcmp(a, b) != 0) {
		snprintf(why, why_size, "%s", "another user namespace");
		return true;
	}
	snprintf(why, why_size, "%s", "");
	return false;
}

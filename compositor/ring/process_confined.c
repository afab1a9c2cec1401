#include "compositor/ring/process_confined.h"

#include <stdio.h>
#include <sys/stat.h>

bool process_confined(const char *proc, const char *self, pid_t pid, char *why, size_t why_size)
{
	static const struct {
		const char *entry;
		const char *reason;
	} checks[] = {
		{ "ns/mnt", "another mount namespace" },
		{ "ns/user", "another user namespace" },
		{ "root", "another root directory" },
	};
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		/* A namespace is its inode under nsfs; a root directory its
		 * inode. A path cut short names nothing: confined. */
		char theirs[512], ours[512];
		struct stat st, so;
		int nt = snprintf(theirs, sizeof(theirs), "%s/%d/%s", proc, (int)pid,
				checks[i].entry);
		int no = snprintf(ours, sizeof(ours), "%s/%s/%s", proc, self, checks[i].entry);
		if (nt < 0 || (size_t)nt >= sizeof(theirs) || no < 0 ||
				(size_t)no >= sizeof(ours) || stat(theirs, &st) != 0 ||
				stat(ours, &so) != 0) {
			snprintf(why, why_size, "%s", "its namespaces cannot be read");
			return true;
		}
		if (st.st_dev != so.st_dev || st.st_ino != so.st_ino) {
			snprintf(why, why_size, "%s", checks[i].reason);
			return true;
		}
	}
	snprintf(why, why_size, "%s", "");
	return false;
}

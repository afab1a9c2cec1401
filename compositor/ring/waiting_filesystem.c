#include "compositor/ring/waiting_filesystem.h"

#include <stddef.h>
#include <sys/vfs.h>

static const long waiting_filesystems[] = {
	0x65735546,       /* FUSE */
	0x6969,           /* NFS */
	0x517b,           /* SMB */
	(long)0xff534d42, /* CIFS */
	(long)0xfe534d42, /* SMB2 */
	0x01021997,       /* 9p */
	0x00c36400,       /* Ceph */
	0x5346414f,       /* AFS */
	0x6b414653,       /* kAFS */
	0x73757245,       /* Coda */
};

bool fd_on_waiting_filesystem(int fd, long *type)
{
	struct statfs sfs;
	if (fstatfs(fd, &sfs) != 0) {
		*type = 0;
		return true; /* cannot tell: not read */
	}
	*type = (long)sfs.f_type;
	for (size_t i = 0; i < sizeof(waiting_filesystems) / sizeof(waiting_filesystems[0]); i++) {
		if ((long)sfs.f_type == waiting_filesystems[i]) {
			return true;
		}
	}
	return false;
}

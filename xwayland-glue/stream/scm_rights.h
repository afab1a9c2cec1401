/*
 * Putting fds into a message as SCM_RIGHTS: both halves of the byte-stream
 * ring pass fds (the handshake's answer, fd messages), so they build the
 * control message the same way.
 */
#ifndef SMT_SCM_RIGHTS_H
#define SMT_SCM_RIGHTS_H

#include <string.h>
#include <sys/socket.h>

#include "protocol/smt-ring.h"

/* Control space for the most fds one stream message carries. */
union scm_rights_buf {
	char buf[CMSG_SPACE(SMT_STREAM_MAX_FDS * sizeof(int))];
	struct cmsghdr align;
};

/* Attaches nfds (<= SMT_STREAM_MAX_FDS) fds to msg; none: no control. */
static inline void scm_rights_attach(
		struct msghdr *msg, union scm_rights_buf *u, const int *fds, unsigned nfds)
{
	msg->msg_control = NULL;
	msg->msg_controllen = 0;
	if (!nfds)
		return;
	memset(u, 0, sizeof(*u));
	msg->msg_control = u->buf;
	msg->msg_controllen = CMSG_SPACE(nfds * sizeof(int));
	struct cmsghdr *cm = CMSG_FIRSTHDR(msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
}

#endif

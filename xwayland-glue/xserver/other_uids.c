/*
 * Connections of other uids, bounded (docs/x11.md "Trust model").
 *
 * The X server keeps a connection that never sends its setup for as long
 * as the peer holds it, in one of its client slots (256: LimitClients),
 * before any authorization is asked. A peer of another uid that Xwayland
 * would refuse (no xhost entry) could hold every slot: the session's own
 * X programs then got "Maximum number of clients reached" for as long as
 * it liked (red team, session 32). Peers of other uids get at most
 * OTHER_UID_CONNECTIONS each and OTHER_UIDS_CONNECTIONS together; past
 * that, a new connection is shut down before the X server sees it, which
 * reads its end and closes it as any client that leaves before its setup
 * (no line in its log), so the session's own uid always keeps the rest
 * of the slots. A user let onto the display (xhost) keeps 64 connections.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xwayland-glue/xserver/xconn.h"

bool other_uids_refuse(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
			cred.uid == geteuid())
		return false;
	unsigned nall, same = 0, others = 0;
	struct xconn **all = xconn_all(&nall);
	for (unsigned i = 0; i < nall; i++) {
		if (!all[i]->other_user)
			continue;
		others++;
		same += all[i]->peer_uid == cred.uid;
	}
	if (same < OTHER_UID_CONNECTIONS && others < OTHER_UIDS_CONNECTIONS)
		return false;
	static bool said;
	if (!said) {
		said = true;
		xconn_log(NULL,
				"connections of other uids past %u per uid or %u in all are closed at "
				"once, so the X server keeps client slots for uid %u (uid %u had %u; "
				"said once)",
				OTHER_UID_CONNECTIONS, OTHER_UIDS_CONNECTIONS, (unsigned)geteuid(),
				(unsigned)cred.uid, same);
	}
	shutdown(fd, SHUT_RDWR);
	return true;
}

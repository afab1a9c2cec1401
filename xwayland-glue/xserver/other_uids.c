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
 *
 * The 128 are shared: two uids holding 64 each filled them, and a third
 * (root's programs run with sudo, a user let in with xhost) had every
 * connection shut down (red team, session 33). When they are full, a uid
 * below its share (128 over the other uids holding connections, itself
 * included) takes one from the uid holding the most, if that one is above
 * the share: that connection is shut down as a refused one is.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xwayland-glue/xserver/xconn.h"

struct uid_count {
	uint32_t uid;
	unsigned n;
};

/* Counts per other uid of the connections not yet given way; returns the
 * number of uids listed (at most OTHER_UIDS_CONNECTIONS + 1, as each
 * counted connection adds at most one and `uid` one more). */
static unsigned count_uids(uint32_t uid, struct uid_count *counts, unsigned *others)
{
	unsigned nall, nuids = 1;
	struct xconn **all = xconn_all(&nall);
	counts[0] = (struct uid_count){ .uid = uid };
	*others = 0;
	for (unsigned i = 0; i < nall && *others < OTHER_UIDS_CONNECTIONS; i++) {
		if (!all[i]->other_user || all[i]->gave_way)
			continue;
		(*others)++;
		unsigned k = 0;
		while (k < nuids && counts[k].uid != all[i]->peer_uid)
			k++;
		if (k == nuids)
			counts[nuids++] = (struct uid_count){ .uid = all[i]->peer_uid };
		counts[k].n++;
	}
	return nuids;
}

/* The newest-tracked connection of uid that has not given way yet. */
static struct xconn *latest_of(uint32_t uid)
{
	unsigned nall;
	struct xconn **all = xconn_all(&nall);
	struct xconn *found = NULL;
	for (unsigned i = 0; i < nall; i++) {
		struct xconn *c = all[i];
		if (c->other_user && !c->gave_way && c->peer_uid == uid &&
				(found == NULL || c->accepted > found->accepted))
			found = c;
	}
	return found;
}

/* With the other uids' connections full, uid (holding `same`) below its
 * share takes a connection of the uid holding the most above it. */
static bool take_from_heaviest(
		uint32_t uid, unsigned same, const struct uid_count *counts, unsigned nuids)
{
	unsigned share = OTHER_UIDS_CONNECTIONS / nuids;
	const struct uid_count *heaviest = &counts[0];
	for (unsigned k = 1; k < nuids; k++) {
		if (counts[k].n > heaviest->n)
			heaviest = &counts[k];
	}
	if (same >= share || heaviest->n <= share)
		return false;
	struct xconn *victim = latest_of(heaviest->uid);
	if (victim == NULL)
		return false;
	static bool said;
	if (!said) {
		said = true;
		xconn_log(NULL,
				"connections of other uids are full (%u): uid %u, below its share of %u, "
				"takes one of uid %u's %u (said once)",
				OTHER_UIDS_CONNECTIONS, (unsigned)uid, share,
				(unsigned)heaviest->uid, heaviest->n);
	}
	victim->gave_way = true;
	shutdown(victim->fd, SHUT_RDWR);
	return true;
}

bool other_uids_refuse(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
			cred.uid == geteuid())
		return false;
	struct uid_count counts[OTHER_UIDS_CONNECTIONS + 1];
	unsigned others;
	unsigned nuids = count_uids(cred.uid, counts, &others);
	unsigned same = counts[0].n;
	if (same < OTHER_UID_CONNECTIONS &&
			(others < OTHER_UIDS_CONNECTIONS ||
					take_from_heaviest(cred.uid, same, counts, nuids)))
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

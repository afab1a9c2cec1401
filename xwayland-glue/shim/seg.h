/*
 * The one shared segment of a connection: created, attached to the server
 * and checked once, detached locally when the connection closes (the server
 * drops its side with the client).
 */
#ifndef SMT_X11SHIM_SEG_H
#define SMT_X11SHIM_SEG_H

#include <stdbool.h>

struct xshim_conn;

/* Fills sc's server facts (formats, byte order, root, MIT-SHM opcode) and its
 * segment. False with a reason when MIT-SHM cannot be used on this
 * connection: no extension, a remote display (attach refused, or the server
 * does not see what we write), no shared memory. Blocks for a few round
 * trips; call without sc->lock. */
bool xshim_seg_setup(struct xshim_conn *sc, const char **why);

void xshim_seg_destroy(struct xshim_conn *sc);

#endif

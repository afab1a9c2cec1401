/*
 * What the two halves of the shim's write side share, and nothing else
 * uses: stream.c (the table of attached connections, the ring writes, the
 * closes) and stream_fd_copies.c (copies of the X fd, the dup and fcntl
 * wrappers). The rest of the shim goes through stream.h.
 */
#ifndef SMT_X11SHIM_STREAM_TABLE_H
#define SMT_X11SHIM_STREAM_TABLE_H

#include <stdbool.h>

#include "xwayland-glue/shim/stream.h"

/* stream.c */
/* The attached connection fd is a name of (its primary fd or a copy). */
struct xstream *xstream_find(int fd);
bool xstream_any_attached(void);
/* The table's lock; see xstream_table_locked_here. */
void xstream_lock_table(void);
void xstream_unlock_table(void);
/* Is this thread inside the table's lock? A signal handler that
 * interrupted it there must leave the table alone. */
bool xstream_table_locked_here(void);
/* May this process change the table (not a vfork or posix_spawn child)? */
bool xstream_owns_memory(void);
/* The connection goes back to the socket from here (a REVERT at fd,
 * between whole writes; the slot kept to the last close), for every cause:
 * a fork child's write, fd handed to a program the shim cannot follow, a
 * copy too many, the only name replaced, a ring's own fd closed. */
bool xstream_revert(struct xstream *s, int fd);
/* A program is about to be exec'd: hands off the connections it will
 * inherit (a name without FD_CLOEXEC). */
void xstream_hand_off_inherited(void);
/* fd is being closed: what close does before the real close. */
void xstream_closing(int fd);
/* The kernel just gave out fd (a new socket): a name of it in the table
 * is stale (closed by a raw syscall) and is dropped. */
void xstream_number_reused(int fd);

/* stream_fd_copies.c */
/* Does any attached connection have a copy (so lookups need the lists)? */
bool xstream_any_copies(void);
bool xstream_named_by_copy(struct xstream *s, int fd);
/* fd, a name of s, is going away: true when s keeps another name; false
 * when fd was its last, or the table cannot be changed here. */
bool xstream_drop_name_locked(struct xstream *s, int fd);
/* fd, a name of s, is going away, and s with its last name: true when
 * fd was its last and this caller took s to free it (detach: from now on
 * no lookup finds s by any number); false when s keeps another name, fd
 * names s no more (another thread dropped it or freed s first), or the
 * table cannot be changed here. So two threads that find the same stale
 * or closing name free the slot once (before session 41 both could take
 * "not kept" for "last": nattached counted down twice, the ring's pages
 * unmapped twice, the second time perhaps another mapping's). */
bool xstream_drop_last_name(struct xstream *s, int fd);
/* Forgets every copy of s (its slot is being freed). Under the lock. */
void xstream_forget_copies(struct xstream *s);
/* Drops the copies of s numbered in [first, last] (close_range). */
void xstream_drop_copies_in(struct xstream *s, unsigned first, unsigned last);

#endif

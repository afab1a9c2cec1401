/*
 * Whether a process runs in a sandbox, from procfs alone (pure: no
 * Wayland; unit-tested against directory trees). privileged_globals.h
 * says what it is for.
 */
#ifndef SMTWC_PROCESS_CONFINED_H
#define SMTWC_PROCESS_CONFINED_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Whether process `pid` runs confined, judged from `proc` (the procfs
 * mount: "/proc"; a directory tree in unit tests) against `self` (a
 * process name under it: "self"): its root mount (mountinfo) or its user
 * namespace's uid map is not ours. A process whose entries cannot be
 * read (gone) counts as confined. `why` gets a short reason ("another
 * mount namespace or root", ...) or "" when not confined. */
bool process_confined(const char *proc, const char *self, pid_t pid, char *why, size_t why_size);

#endif

/*
 * A ring's wake-up eventfds, used without ever blocking. Both eventfds come
 * from the client, and a file descriptor passed over a socket shares its
 * open file description: the O_NONBLOCK the compositor sets on it is a
 * flag the client can clear again with fcntl on its own copy. A client
 * could then make a read of an empty count, or a write to a full one, wait
 * for ever in the compositor's only thread (smt-hostile wake-steal and
 * wake-full). Reads here ask the kernel not to wait (RWF_NOWAIT) whatever
 * the flag says; writes, which have no such flag for eventfds, run under a
 * one-shot timer whose signal interrupts a write that blocks.
 */
#ifndef SMTWC_RING_WAKE_FD_H
#define SMTWC_RING_WAKE_FD_H

#include <stdbool.h>
#include <stdint.h>

/* Takes the eventfd's count (0 if there is none), never waiting. */
uint64_t wake_fd_take(int fd);

enum wake_fd_result {
	WAKE_FD_SENT,    /* the count went up: the client wakes */
	WAKE_FD_PENDING, /* the count is already at its top: it wakes anyway */
	WAKE_FD_BLOCKED, /* the write blocked (O_NONBLOCK cleared, count full):
	                   * interrupted; the client did it on purpose */
	WAKE_FD_FAILED,  /* any other error */
};

/* Adds one to the eventfd's count; a write that would block is
 * interrupted within WAKE_FD_GUARD_NS. Safe from any thread: each thread
 * that calls it gets its own guard timer, which signals that thread (the
 * main thread and each ring worker). A thread's timer lives as long as
 * the thread: wake_fd_thread_done deletes it before the thread ends. */
enum wake_fd_result wake_fd_signal(int fd);
void wake_fd_thread_done(void);

/* True when the eventfd was made with EFD_SEMAPHORE (or refuses the
 * probe's writes): a read then takes one count, not all of them, and one
 * write of a count near 2^64 keeps the fd readable for good, so a
 * level-triggered event loop would read it once a turn and never sleep
 * (smt-hostile wake-semaphore). A probe, for kernels before 6.4, whose
 * fdinfo does not show the flag: it adds two and takes once, which
 * yields 1 only from a semaphore (or a client racing its own reads
 * against ours). For a fresh ring's server eventfd only: it leaves the
 * count at 0 and the client has no reason to write before the ring
 * exists. */
bool wake_fd_is_semaphore(int fd);

#define WAKE_FD_GUARD_NS 1000000

#endif

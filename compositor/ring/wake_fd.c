/*
 * Eventfd reads and writes a client cannot turn into a wait (wake_fd.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include "compositor/ring/wake_fd.h"

uint64_t wake_fd_take(int fd)
{
	uint64_t count = 0;
	struct iovec iov = { &count, sizeof(count) };
	/* RWF_NOWAIT: EAGAIN instead of a wait on an empty count, also when
	 * the client cleared O_NONBLOCK (eventfds honour it since Linux 5.11;
	 * Debian 12 runs 6.1). */
	if (preadv2(fd, &iov, 1, -1, RWF_NOWAIT) != sizeof(count)) {
		return 0;
	}
	return count;
}

/* One guard per thread: the timer signals the thread that created it
 * (SIGEV_THREAD_ID), so a worker's blocked write is interrupted in that
 * worker, and the flag its handler raises is that thread's. */
static _Thread_local timer_t guard_timer;
static _Thread_local bool guard_ready;
static _Thread_local bool guard_broken;
static _Thread_local volatile sig_atomic_t guard_fired;

/* Does nothing but exist: its arrival ends a blocked write with EINTR
 * (installed without SA_RESTART). */
static void handle_guard_signal(int signal)
{
	(void)signal;
	guard_fired = 1;
}

static bool guard_init(void)
{
	if (guard_ready || guard_broken) {
		return guard_ready;
	}
	int signo = SIGRTMIN + 4;
	struct sigaction action = { 0 };
	action.sa_handler = handle_guard_signal;
	sigemptyset(&action.sa_mask);
	sigset_t only;
	sigemptyset(&only);
	sigaddset(&only, signo);
	struct sigevent event = { 0 };
	event.sigev_notify = SIGEV_THREAD_ID;
	event.sigev_signo = signo;
	event._sigev_un._tid = gettid();
	if (sigaction(signo, &action, NULL) != 0 ||
			pthread_sigmask(SIG_UNBLOCK, &only, NULL) != 0 ||
			timer_create(CLOCK_MONOTONIC, &event, &guard_timer) != 0) {
		wlr_log_errno(WLR_ERROR, "wake-up guard timer");
		guard_broken = true;
		return false;
	}
	guard_ready = true;
	return true;
}

void wake_fd_thread_done(void)
{
	if (guard_ready) {
		timer_delete(guard_timer);
		guard_ready = false;
	}
}

static void guard_arm(long ns)
{
	struct itimerspec when = { .it_value = { 0, ns } };
	timer_settime(guard_timer, 0, &when, NULL);
}

enum wake_fd_result wake_fd_signal(int fd)
{
	uint64_t one = 1;
	if (!guard_init()) {
		/* No timer: at least never write to a blocking file. A client
		 * racing fcntl against this check could still stall us. */
		int flags = fcntl(fd, F_GETFL);
		if (flags < 0 || !(flags & O_NONBLOCK)) {
			return WAKE_FD_BLOCKED;
		}
		return write(fd, &one, sizeof(one)) == sizeof(one) ? WAKE_FD_SENT :
				errno == EAGAIN                    ? WAKE_FD_PENDING :
								     WAKE_FD_FAILED;
	}
	for (;;) {
		guard_fired = 0;
		guard_arm(WAKE_FD_GUARD_NS);
		ssize_t n = write(fd, &one, sizeof(one));
		int err = errno;
		guard_arm(0);
		if (n == sizeof(one)) {
			return WAKE_FD_SENT;
		}
		if (err == EAGAIN) {
			return WAKE_FD_PENDING;
		}
		if (err != EINTR) {
			return WAKE_FD_FAILED;
		}
		if (guard_fired) {
			return WAKE_FD_BLOCKED;
		}
		/* another signal: try again, under a fresh guard */
	}
}

bool wake_fd_is_semaphore(int fd)
{
	wake_fd_take(fd);
	if (wake_fd_signal(fd) != WAKE_FD_SENT || wake_fd_signal(fd) != WAKE_FD_SENT) {
		return true;
	}
	return wake_fd_take(fd) == 1;
}

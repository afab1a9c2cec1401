/*
 * Wake-up eventfds turned against the compositor. A ring's two eventfds
 * are the client's: the compositor's copies share the client's open file
 * descriptions, so the O_NONBLOCK the compositor sets on them is a flag
 * the client can clear again with fcntl on its own copy. Then a read of an
 * empty eventfd, or a write to one whose counter is full, would block the
 * compositor's only thread for good:
 *
 * - wake-full: the client's eventfd made blocking with its counter at the
 *   maximum, then a full ring and a wait for room: the compositor wakes
 *   the client when it has taken the commands.
 * - wake-steal: the server's eventfd made blocking; a thread of the
 *   client reads it too, so the compositor, woken by epoll, may find it
 *   empty.
 *
 * Either way the case then needs a second connection's round trip to be
 * answered (within HANG_MS: only a compositor that never answers fails).
 *
 * - wake-semaphore (session 39): the server's eventfd made with
 *   EFD_SEMAPHORE, where a read takes one count, not all of them. One
 *   write of a count near 2^64 would keep it readable for good: the
 *   compositor's level-triggered event loop would read it once a turn and
 *   never sleep again. create_ring must refuse it (bad_eventfd).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "tests/tools/hostile/hostile.h"

static void make_blocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		perror("smt-hostile: fcntl");
	}
}

static void handle_sync_done(void *data, struct wl_callback *cb, uint32_t serial)
{
	*(bool *)data = true;
}

static const struct wl_callback_listener sync_listener = { handle_sync_done };

/* A round trip on a connection of its own, bounded by HANG_MS. */
static bool other_connection_answers(void)
{
	struct wl_display *display = wl_display_connect(NULL);
	if (display == NULL) {
		fputs("smt-hostile: cannot connect a second client\n", stderr);
		return false;
	}
	bool answered = false;
	struct wl_callback *cb = wl_display_sync(display);
	wl_callback_add_listener(cb, &sync_listener, &answered);
	double end = now_ms() + HANG_MS;
	while (!answered && now_ms() < end && wl_display_flush(display) >= 0) {
		struct pollfd pfd = { wl_display_get_fd(display), POLLIN, 0 };
		if (poll(&pfd, 1, 100) > 0 && wl_display_dispatch(display) < 0) {
			break;
		}
	}
	wl_callback_destroy(cb);
	wl_display_disconnect(display);
	return answered;
}

int case_wake_full(struct hostile *h)
{
	create_good_ring(h, 4096);
	/* Filled while still non-blocking: a wake-up of ours may still be on
	 * its way from a compositor thread (worker threads write it after
	 * the round trip that ended our wait), and must not block us. */
	uint64_t full = UINT64_MAX - 1, taken;
	while (write(h->client_efd, &full, sizeof(full)) != sizeof(full)) {
		if (errno != EAGAIN || read(h->client_efd, &taken, sizeof(taken)) < 0) {
			perror("smt-hostile: eventfd");
			return 1;
		}
	}
	make_blocking(h->client_efd);
	/* A ring full of NOOPs, and a wait for all of it to be taken, as a
	 * real client waits for room: the compositor wakes us when it is. */
	struct smt_cmd_header noop = { SMT_OP_NOOP, 0, sizeof(noop) };
	while (h->head < h->area_size) {
		put(h, &noop, sizeof(noop));
	}
	if (!smt_ring_client_begin_wait(h->hdr, h->status, h->head)) {
		fputs("smt-hostile: the ring is dead already\n", stderr);
		return 1;
	}
	kick(h);
	if (!other_connection_answers()) {
		fputs("WAKE_FULL: the compositor stopped answering\n", stderr);
		return 1;
	}
	/* The blocked write is found by whichever thread runs the ring; with
	 * worker threads the error is posted by the main thread after the
	 * worker handed the ring over, so it may come a few round trips
	 * later. (Only the Wayland connection is polled: reading the eventfd
	 * would empty the count the compositor must find full.) */
	double end = now_ms() + HANG_MS;
	while (wl_display_get_error(h->display) == 0 && now_ms() < end &&
			wl_display_roundtrip(h->display) >= 0) {
		struct pollfd pfd = { wl_display_get_fd(h->display), POLLIN, 0 };
		poll(&pfd, 1, 10);
	}
	bool ended = expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_BAD_FD);
	printf("WAKE_FULL answered; the ring %s\n", ended ? "ended with bad_fd" : "lives");
	return ended ? 0 : 1;
}

/* Takes every count of the eventfd as it comes: a blocking reader that
 * competes with the compositor's. */
static void *steal_counts(void *data)
{
	int fd = *(int *)data;
	uint64_t v;
	while (read(fd, &v, sizeof(v)) == sizeof(v) || errno == EINTR) {
	}
	return NULL;
}

int case_wake_steal(struct hostile *h, double seconds)
{
	create_good_ring(h, 4096);
	make_blocking(h->server_efd);
	/* The thief reads its own duplicate; it is detached and ends with the
	 * process (a blocked read cannot be cancelled cleanly). */
	static int thief_fd;
	thief_fd = dup(h->server_efd);
	pthread_t thief;
	if (pthread_create(&thief, NULL, steal_counts, &thief_fd) != 0) {
		fputs("smt-hostile: pthread_create failed\n", stderr);
		return 1;
	}
	pthread_detach(thief);
	unsigned long rounds = 0;
	double end = now_ms() + seconds * 1000;
	while (now_ms() < end) {
		/* One wake-up at a time: the compositor (woken by epoll) and the
		 * thief race for it; if the thief wins, a compositor that reads
		 * with blocking semantics waits for a write that never comes. */
		uint64_t v = 1;
		if (write(h->server_efd, &v, sizeof(v)) != sizeof(v)) {
			perror("smt-hostile: eventfd");
			return 1;
		}
		rounds++;
		if (!other_connection_answers()) {
			fprintf(stderr,
					"WAKE_STEAL: the compositor stopped answering after "
					"%lu wake-ups\n",
					rounds);
			return 1;
		}
	}
	bool alive = wl_display_roundtrip(h->display) >= 0;
	printf("WAKE_STEAL answered: %lu wake-ups raced by a blocking reader\n", rounds);
	return alive ? 0 : 1;
}

int case_wake_semaphore(struct hostile *h)
{
	size_t size = SMT_RING_HEADER_SIZE + 4096;
	int fd = make_memfd(size, F_SEAL_SHRINK | F_SEAL_GROW);
	h->mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h->mem == MAP_FAILED) {
		perror("smt-hostile: mmap");
		return 1;
	}
	h->hdr = (struct smt_ring_header *)h->mem;
	h->area = h->mem + SMT_RING_HEADER_SIZE;
	h->server_efd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE | EFD_NONBLOCK);
	h->client_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	create_ring_with(h, fd, 4096, dup(h->server_efd), dup(h->client_efd));
	close(fd);
	if (wl_display_roundtrip(h->display) < 0) {
		bool refused = expect_error(h, &smt_ring_manager_v1_interface,
				SMT_RING_MANAGER_V1_ERROR_BAD_EVENTFD);
		printf("WAKE_SEMAPHORE %s\n", refused ? "refused" : "ended otherwise");
		return refused ? 0 : 1;
	}
	const struct smt_ring_status *status = mmap(
			NULL, SMT_STATUS_MAP_SIZE, PROT_READ, MAP_SHARED, h->status_fd, 0);
	if (status == MAP_FAILED) {
		perror("smt-hostile: mmap status");
		return 1;
	}
	/* One write, no more: every read the compositor makes after it is a
	 * turn of its loop this client did not pay for. */
	uint64_t lots = UINT64_MAX - 1;
	if (write(h->server_efd, &lots, sizeof(lots)) != sizeof(lots)) {
		perror("smt-hostile: eventfd");
		return 1;
	}
	double end = now_ms() + HANG_MS;
	uint64_t reads = 0;
	while (now_ms() < end && (reads = atomic_load(&status->wakeups_from_client)) < 100000) {
		if (wl_display_roundtrip(h->display) < 0) {
			break;
		}
	}
	printf("WAKE_SEMAPHORE accepted: the compositor read the eventfd %llu times "
	       "after one write\n",
			(unsigned long long)reads);
	return 1;
}

/*
 * Xwayland's Wayland writes held past a full socket
 * (xwayland-glue/xserver/wayland_backlog.c), on a socketpair with a small
 * send buffer: every write is accepted while the reader is away, and the
 * reader then gets every byte in order with every fd, each fd no later
 * than the bytes of the write it came with; the held fds are closed once
 * sent; a reader reading while the writer writes (also run under TSan)
 * gets the same; writes whose fds the kernel refuses for the uid's fds in
 * flight (ETOOMANYREFS, made here) are held and retried until it takes
 * them, then read in order; after the socket's close, writes fail and
 * nothing stays held.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/unit/unit_check.h"
#include "xwayland-glue/xserver/xconn.h"

#define MSG_BYTES 64
#define FD_EVERY 7

/* While set, an fd-carrying send fails as the kernel fails it when the
 * uid's fds in flight are past RLIMIT_NOFILE; tries counted. */
static atomic_bool refuse_refs;
static atomic_int refused_tries;

static ssize_t send_or_refuse(int fd, const struct msghdr *msg, int flags)
{
	if (atomic_load(&refuse_refs) && msg->msg_controllen > 0) {
		atomic_fetch_add(&refused_tries, 1);
		errno = ETOOMANYREFS;
		return -1;
	}
	return sendmsg(fd, msg, flags);
}

static int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* Write i: MSG_BYTES bytes starting with i; every FD_EVERY-th carries a
 * memfd holding i. */
static bool write_one(int fd, uint32_t i, bool retry)
{
	unsigned char data[MSG_BYTES];
	memset(data, (int)(i & 0xff), sizeof(data));
	memcpy(data, &i, sizeof(i));
	struct iovec iov[2] = { { data, 20 }, { data + 20, MSG_BYTES - 20 } };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };
	int mfd = -1;
	if (i % FD_EVERY == 0) {
		mfd = memfd_create("backlog-test", MFD_CLOEXEC);
		if (mfd < 0 || write(mfd, &i, sizeof(i)) != sizeof(i)) {
			perror("memfd");
			exit(1);
		}
		msg.msg_control = control.buf;
		msg.msg_controllen = sizeof(control.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &mfd, sizeof(int));
	}
	ssize_t n = wayland_backlog_sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	/* At the bound nothing is kept and EAGAIN comes back: with a reader
	 * reading, Xwayland's next flush gets in (retry), as libwayland's. */
	while (retry && n < 0 && errno == EAGAIN) {
		usleep(1000);
		n = wayland_backlog_sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	/* libwayland flushes again after a partial write; so do we. */
	while (n >= 0 && n < MSG_BYTES) {
		size_t done = (size_t)n;
		struct iovec rest = { data + done, MSG_BYTES - done };
		struct msghdr m2 = { .msg_iov = &rest, .msg_iovlen = 1 };
		if (done == 0 && mfd >= 0) {
			m2.msg_control = msg.msg_control;
			m2.msg_controllen = msg.msg_controllen;
		}
		ssize_t more = wayland_backlog_sendmsg(fd, &m2, MSG_NOSIGNAL | MSG_DONTWAIT);
		n = more < 0 ? more : n + more;
	}
	CHECK_INT(n, MSG_BYTES);
	if (mfd >= 0)
		close(mfd); /* what libwayland does once a write is taken */
	return n == MSG_BYTES;
}

struct reader {
	int fd;
	uint32_t count;
	int bad_order, late_fds, bad_fds;
};

/* Reads count writes, checking order, and that every fd arrives no
 * later than the bytes of its write and names the right write. */
static void *read_all(void *arg)
{
	struct reader *r = arg;
	unsigned char buf[MSG_BYTES];
	size_t have = 0;
	uint32_t next = 0, fds_seen = 0, fd_writes_done = 0;
	while (next < r->count) {
		union {
			char buf[CMSG_SPACE(sizeof(int) * 32)];
			struct cmsghdr align;
		} control;
		struct iovec iov = { buf + have, MSG_BYTES - have };
		struct msghdr msg = { .msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = control.buf,
			.msg_controllen = sizeof(control.buf) };
		ssize_t n = recvmsg(r->fd, &msg, MSG_CMSG_CLOEXEC);
		if (n <= 0) {
			fprintf(stderr, "reader: recvmsg %zd (%s) at write %u\n", n,
					strerror(errno), next);
			return NULL;
		}
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t j = 0; j < k; j++) {
				int fd;
				memcpy(&fd, CMSG_DATA(c) + j * sizeof(int), sizeof(int));
				uint32_t v = UINT32_MAX;
				if (pread(fd, &v, sizeof(v), 0) != sizeof(v) ||
						v != fds_seen * FD_EVERY)
					r->bad_fds++;
				fds_seen++;
				close(fd);
			}
		}
		have += (size_t)n;
		if (have < MSG_BYTES)
			continue;
		uint32_t i;
		memcpy(&i, buf, sizeof(i));
		if (i != next || buf[MSG_BYTES - 1] != (unsigned char)(next & 0xff))
			r->bad_order++;
		if (next % FD_EVERY == 0 && ++fd_writes_done > fds_seen)
			r->late_fds++;
		next++;
		have = 0;
	}
	return NULL;
}

/* The writer thread closes a held fd just after its write is taken, so
 * the reader can be done a moment before: waited for, 5 s at most. */
static int open_fds_settled(int want)
{
	int n = open_fds();
	for (int i = 0; i < 500 && n != want; i++) {
		usleep(10000);
		n = open_fds();
	}
	return n;
}

static void check_read(struct reader *r, uint32_t count)
{
	CHECK_INT(r->bad_order, 0);
	CHECK_INT(r->late_fds, 0);
	CHECK_INT(r->bad_fds, 0);
	(void)count;
}

int main(void)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		perror("socketpair");
		return 1;
	}
	int small = 4096;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	wayland_backlog_init(send_or_refuse);
	CHECK(wayland_backlog_fd() == -1);
	/* What wayland_conn.c does when Xwayland's wl_display_connect
	 * returns; only the first adoption counts, and only a stream socket. */
	int not_a_socket = open("/dev/null", O_RDONLY | O_CLOEXEC);
	wayland_backlog_adopt(not_a_socket);
	CHECK(wayland_backlog_fd() == -1);
	close(not_a_socket);
	wayland_backlog_adopt(sv[0]);
	wayland_backlog_adopt(sv[1]);
	REQUIRE(wayland_backlog_owns(sv[0]), "the adopted fd taken as the Wayland socket");
	CHECK(!wayland_backlog_owns(sv[1]));

	current_test = "reader away";
	int fds_before = open_fds();
	const uint32_t first = 3000;
	for (uint32_t i = 0; i < first; i++)
		write_one(sv[0], i, false);
	/* Far more than the socket takes: most are held, their fds open here. */
	CHECK(open_fds() > fds_before + 100);
	struct reader r = { .fd = sv[1], .count = first };
	read_all(&r);
	check_read(&r, first);

	current_test = "reader reading";
	struct reader r2 = { .fd = sv[1], .count = 20000 };
	pthread_t t;
	REQUIRE(pthread_create(&t, NULL, read_all, &r2) == 0, "reader thread");
	/* The same numbering on: the reader starts at 0 again. */
	for (uint32_t i = 0; i < r2.count; i++)
		write_one(sv[0], i, true);
	pthread_join(t, NULL);
	check_read(&r2, r2.count);
	/* Everything was read: the writer thread has sent and closed every
	 * held fd (the reader's own are closed too). */
	CHECK_INT(open_fds_settled(fds_before), fds_before);

	/* The kernel refuses fds (ETOOMANYREFS): held, not failed, and
	 * retried; once it takes fds again all are read in order. */
	current_test = "fds in flight refused";
	const uint32_t during = 100;
	atomic_store(&refuse_refs, true);
	bool all_taken = true;
	for (uint32_t i = 0; i < during; i++)
		all_taken = write_one(sv[0], i, false) && all_taken;
	for (int i = 0; i < 500 && atomic_load(&refused_tries) < 3; i++)
		usleep(10000);
	CHECK(atomic_load(&refused_tries) >= 3); /* tried again, not given up */
	atomic_store(&refuse_refs, false);
	/* (a write given back failed is not to be waited for) */
	REQUIRE(all_taken, "every write taken while fds were refused");
	struct reader r3 = { .fd = sv[1], .count = during };
	read_all(&r3);
	check_read(&r3, during);
	CHECK_INT(open_fds_settled(fds_before), fds_before);

	current_test = "socket closed";
	close(sv[1]);
	unsigned char one[MSG_BYTES] = { 0 };
	struct iovec iov = { one, sizeof(one) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n = wayland_backlog_sendmsg(sv[0], &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	CHECK(n < 0 && errno == EPIPE);
	wayland_backlog_closed(sv[0]);
	close(sv[0]);
	CHECK_INT(open_fds(), fds_before - 2);
	CHECK(!wayland_backlog_owns(sv[0]));

	/* An X server's reset connects again, often on the same number: the
	 * new socket is adopted, and a write the old one's reader never took
	 * does not fail it (it did, with the errno kept from the old one). */
	current_test = "connected again";
	int again[2];
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, again) == 0, "socketpair");
	wayland_backlog_adopt(again[0]);
	REQUIRE(wayland_backlog_owns(again[0]), "the new connection adopted");
	n = wayland_backlog_sendmsg(again[0], &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	CHECK_INT(n, (ssize_t)sizeof(one));
	CHECK_INT(read(again[1], one, sizeof(one)), (ssize_t)sizeof(one));
	wayland_backlog_closed(again[0]);
	close(again[0]);
	close(again[1]);
	return failures ? 1 : 0;
}

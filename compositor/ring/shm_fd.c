/*
 * Security-critical: every fd of client memory the compositor maps goes
 * through here (shm_fd.h). It defends the compositor against SIGBUS and
 * against writes into its state: a client memfd is mapped only if it is
 * sealed against shrinking (F_SEAL_SHRINK) and at least the declared size,
 * so truncating it later cannot fault an access (Hyprland #7518), and it is
 * mapped read-only. A pool's memfd must also be sealed against writes
 * (F_SEAL_FUTURE_WRITE or F_SEAL_WRITE, session 41): then no page can
 * leave it, so a page the executor once found in the file stays there and
 * is read through the mapping without creating anything (pool_view.h).
 * The pages the compositor shares are created and sealed by the
 * protocol's server half (smt_server_page_create, smt-ring-server.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "compositor/ring/shm_fd.h"

bool shm_fd_check_client(int fd, uint64_t size, const char **why)
{
	int seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0) {
		*why = "fd is not a memfd (F_GET_SEALS failed)";
		return false;
	}
	if (!(seals & F_SEAL_SHRINK)) {
		*why = "memfd is not sealed against shrinking (F_SEAL_SHRINK)";
		return false;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		*why = "fstat failed on the memfd";
		return false;
	}
	if (size == 0 || size > SIZE_MAX || (uint64_t)st.st_size < size) {
		*why = "memfd is smaller than the declared size";
		return false;
	}
	return true;
}

uint64_t shm_fd_address_space(uint64_t size)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	return size > UINT64_MAX - (page - 1) ? UINT64_MAX : (size + page - 1) / page * page;
}

static bool check_pool(int fd, uint64_t size, const char **why)
{
	if (!shm_fd_check_client(fd, size, why)) {
		return false;
	}
	int seals = fcntl(fd, F_GET_SEALS); /* a memfd: checked above; seals only grow */
	if (!(seals & (F_SEAL_FUTURE_WRITE | F_SEAL_WRITE))) {
		*why = "memfd is not sealed against writes (F_SEAL_FUTURE_WRITE or F_SEAL_WRITE)";
		return false;
	}
	return true;
}

static void *map_read_only(int fd, uint64_t size, const char **why)
{
	void *mapping = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
	if (mapping == MAP_FAILED) {
		*why = "mmap of the memfd failed";
		return NULL;
	}
	return mapping;
}

void *shm_fd_map_client(int fd, uint64_t size, const char **why)
{
	return shm_fd_check_client(fd, size, why) ? map_read_only(fd, size, why) : NULL;
}

void *shm_fd_map_pool(int fd, uint64_t size, const char **why)
{
	return check_pool(fd, size, why) ? map_read_only(fd, size, why) : NULL;
}

/*
 * Security-critical: every fd of client memory the compositor maps goes
 * through here (shm_fd.h). It defends the compositor against SIGBUS and
 * against writes into its state: a client memfd is mapped only if it is
 * sealed against shrinking (F_SEAL_SHRINK) and at least the declared size,
 * so truncating it later cannot fault an access (Hyprland #7518), and it is
 * mapped read-only; the pages the compositor shares are sealed against
 * resizing and any future writable mapping, so clients can only read them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ring/shm_fd.h"

#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010
#endif

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

void *shm_fd_map_client(int fd, uint64_t size, const char **why)
{
	if (!shm_fd_check_client(fd, size, why)) {
		return NULL;
	}
	void *mapping = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
	if (mapping == MAP_FAILED) {
		*why = "mmap of the memfd failed";
		return NULL;
	}
	return mapping;
}

int shm_fd_create_server_page(const char *name, size_t size, void **mapping)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		return -1;
	}
	if (ftruncate(fd, (off_t)size) != 0) {
		close(fd);
		return -1;
	}
	void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		close(fd);
		return -1;
	}
	/* Our writable mapping predates the seal and stays valid; clients can
	 * only ever map the page read-only. */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
			F_SEAL_FUTURE_WRITE | F_SEAL_SEAL) != 0) {
		munmap(map, size);
		close(fd);
		return -1;
	}
	*mapping = map;
	return fd;
}

/*
 * Programs started while X connections are on rings (split from
 * stream_fd_copies.c, session 40): every public way glibc offers to
 * spawn or exec a program is wrapped, so that a name of an X socket
 * without FD_CLOEXEC (cleared by the program, or a dup copy) is handed
 * off to the socket first (xstream_hand_off_inherited): the program
 * started knows nothing of the ring and writes that number raw, and on
 * the socket its bytes reach the X server as they would without the ring.
 *
 * glibc's system() and popen() spawn, and execl, execlp, execle, fexecve
 * and execveat exec, through internal calls that no wrapper of
 * posix_spawn or execve sees;
 * before session 40 they were not wrapped, and a program they started
 * that wrote the inherited X fd raw lost its parent's connection
 * (error=bad_message; smt-x11-fdio system-inherit, popen-dup,
 * vfork-execl). A copy made by a raw dup syscall stays unseen.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/dlsym_next.h"
#include "xwayland-glue/shim/stream_table.h"
#include "xwayland-glue/shim/syms.h"

typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *,
		const posix_spawnattr_t *, char *const[], char *const[]);
static spawn_fn *real_posix_spawn, *real_posix_spawnp;
static int (*real_execve)(const char *, char *const[], char *const[]);
static int (*real_execv)(const char *, char *const[]);
static int (*real_execvp)(const char *, char *const[]);
static int (*real_execvpe)(const char *, char *const[], char *const[]);
static int (*real_fexecve)(int, char *const[], char *const[]);
static int (*real_execveat)(int, const char *, char *const[], char *const[], int);
static int (*real_system)(const char *);
static FILE *(*real_popen)(const char *, const char *);

static void resolve_real(void)
{
	dlsym_next(&real_posix_spawn, "posix_spawn");
	dlsym_next(&real_posix_spawnp, "posix_spawnp");
	dlsym_next(&real_execve, "execve");
	dlsym_next(&real_execv, "execv");
	dlsym_next(&real_execvp, "execvp");
	dlsym_next(&real_execvpe, "execvpe");
	dlsym_next(&real_fexecve, "fexecve");
	dlsym_next(&real_execveat, "execveat");
	dlsym_next(&real_system, "system");
	dlsym_next(&real_popen, "popen");
}

__attribute__((constructor)) static void exec_init(void)
{
	resolve_real();
}
#define REAL(name) (real_##name ? real_##name : (resolve_real(), real_##name))

XSHIM_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	xstream_hand_off_inherited();
	return REAL(posix_spawn)(pid, path, fa, attr, argv, envp);
}

XSHIM_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	xstream_hand_off_inherited();
	return REAL(posix_spawnp)(pid, file, fa, attr, argv, envp);
}

XSHIM_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	xstream_hand_off_inherited();
	return REAL(execve)(path, argv, envp);
}

XSHIM_EXPORT int execv(const char *path, char *const argv[])
{
	xstream_hand_off_inherited();
	return REAL(execv)(path, argv);
}

XSHIM_EXPORT int execvp(const char *file, char *const argv[])
{
	xstream_hand_off_inherited();
	return REAL(execvp)(file, argv);
}

XSHIM_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	xstream_hand_off_inherited();
	return REAL(execvpe)(file, argv, envp);
}

XSHIM_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	xstream_hand_off_inherited();
	return REAL(fexecve)(fd, argv, envp);
}

/* glibc 2.34 on; with an older one the program could not have called it
 * through glibc. */
XSHIM_EXPORT int execveat(
		int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	if (!REAL(execveat)) {
		errno = ENOSYS;
		return -1;
	}
	xstream_hand_off_inherited();
	return real_execveat(dirfd, path, argv, envp, flags);
}

/* The shell system() and popen() start inherits what the program has
 * without FD_CLOEXEC, and so does everything it runs. */
XSHIM_EXPORT int system(const char *command)
{
	/* system(NULL) only asks whether a shell exists: nothing starts. */
	if (command)
		xstream_hand_off_inherited();
	return REAL(system)(command);
}

XSHIM_EXPORT FILE *popen(const char *command, const char *mode)
{
	xstream_hand_off_inherited();
	return REAL(popen)(command, mode);
}

/* execl and its kin take their arguments as a list ending in NULL (execle:
 * then the environment). The argv is built without malloc (an exec in a
 * vfork child must not call it, and glibc's own build it on the stack):
 * up to EXECL_STACK_ARGS on the stack, a longer list in pages of its own,
 * given back if the exec fails. */
#define EXECL_STACK_ARGS 256

enum execl_kind {
	EXECL,
	EXECLP,
	EXECLE
};

static int execl_with(
		enum execl_kind kind, const char *path, char *const argv[], char *const envp[])
{
	xstream_hand_off_inherited();
	if (kind == EXECLP)
		return REAL(execvp)(path, argv);
	if (kind == EXECLE)
		return REAL(execve)(path, argv, envp);
	return REAL(execv)(path, argv);
}

static size_t execl_argc(const char *arg0, va_list ap)
{
	size_t n = 0;
	if (arg0)
		for (n = 1; va_arg(ap, const char *); n++)
			;
	return n;
}

/* argv[0 .. n], the NULL included: reads the n - 1 arguments after arg0
 * and the NULL (none when arg0 is NULL), so that execle's next va_arg is
 * its environment; then the exec. */
static int execl_list(
		enum execl_kind kind, const char *path, const char *arg0, size_t n, va_list ap)
{
	char *stack[EXECL_STACK_ARGS];
	char **argv = stack;
	size_t bytes = (n + 1) * sizeof(char *);
	if (n >= EXECL_STACK_ARGS) {
		if (n > SIZE_MAX / sizeof(char *) - 1) {
			errno = E2BIG;
			return -1;
		}
		argv = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
				0);
		if (argv == MAP_FAILED)
			return -1;
	}
	argv[0] = (char *)arg0;
	for (size_t i = 1; i <= n; i++)
		argv[i] = va_arg(ap, char *);
	char *const *envp = kind == EXECLE ? va_arg(ap, char *const *) : NULL;
	int r = execl_with(kind, path, argv, envp);
	if (argv != stack) {
		int e = errno;
		munmap(argv, bytes);
		errno = e;
	}
	return r;
}

#define EXECL_BODY(kind, path, arg0)                         \
	do {                                                 \
		va_list ap;                                  \
		va_start(ap, arg0);                          \
		size_t n = execl_argc(arg0, ap);             \
		va_end(ap);                                  \
		va_start(ap, arg0);                          \
		int r = execl_list(kind, path, arg0, n, ap); \
		va_end(ap);                                  \
		return r;                                    \
	} while (0)

XSHIM_EXPORT int execl(const char *path, const char *arg0, ...)
{
	EXECL_BODY(EXECL, path, arg0);
}

XSHIM_EXPORT int execlp(const char *file, const char *arg0, ...)
{
	EXECL_BODY(EXECLP, file, arg0);
}

XSHIM_EXPORT int execle(const char *path, const char *arg0, ...)
{
	EXECL_BODY(EXECLE, path, arg0);
}

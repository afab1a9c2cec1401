/*
 * Launching programs from bindings and startup commands. The child is
 * detached (double fork, new session) so it is never our zombie and never
 * receives the terminal's signals meant for the compositor; SIGCHLD stays at
 * its default because wlroots' Xwayland support relies on it.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include "compositor/server.h"
#include "compositor/fd_limit.h"

void launch_command(const char *command)
{
	if (command == NULL || command[0] == '\0') {
		return;
	}
	pid_t child = fork();
	if (child < 0) {
		wlr_log_errno(WLR_ERROR, "fork");
		return;
	}
	if (child == 0) {
		setsid();
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL); /* ignored by the compositor (main.c) */
		pid_t grandchild = fork();
		if (grandchild == 0) {
			fd_limit_restore_for_child();
			execl("/bin/sh", "/bin/sh", "-c", command, (char *)NULL);
			_exit(127);
		}
		_exit(grandchild < 0 ? 1 : 0);
	}
	waitpid(child, NULL, 0);
	wlr_log(WLR_INFO, "launched: %s", command);
}

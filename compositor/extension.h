/*
 * Parts of the session built outside compositor/ plug in here: today the X
 * window manager (xwayland-glue/wm). The compositor names none of them, so
 * it never depends on them: each extension is a static library built
 * against the compositor's headers that defines one
 * `const struct smtwc_extension smtwc_NAME_extension`; the build links it
 * into smtwc and lists it in smtwc_extensions (compositor/meson.build,
 * extension_list.c.in). docs/architecture.md says where things go.
 */
#ifndef SMTWC_EXTENSION_H
#define SMTWC_EXTENSION_H

#include <stdbool.h>

struct smtwc_server;

struct smtwc_extension {
	const char *name;
	/* Once the globals, the seat and the ring transport exist, before the
	 * socket. false: the session goes on without it (the extension says
	 * why in the log). */
	bool (*init)(struct smtwc_server *server);
	/* First in server_finish, before clients are disconnected. Called
	 * whatever init returned, and also when server_init failed before
	 * init ran: it must find nothing to undo then. */
	void (*finish)(struct smtwc_server *server);
};

/* The extensions linked into this program, NULL-terminated. */
extern const struct smtwc_extension *const smtwc_extensions[];

#endif

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
#include <stdint.h>

struct smtwc_server;

/* Where an extension writes what it counts for `smtctl stats` (control
 * writes it as JSON: objects, lists of objects, numbers, strings). The
 * extension does not know the control socket; control does not know the
 * extension. */
struct smtwc_stats_out {
	void *ctx;
	void (*begin_object)(void *ctx, const char *key);
	void (*end_object)(void *ctx);
	void (*begin_list)(void *ctx, const char *key); /* of objects */
	void (*begin_item)(void *ctx);
	void (*end_item)(void *ctx);
	void (*end_list)(void *ctx);
	void (*number)(void *ctx, const char *key, uint64_t value);
	void (*string)(void *ctx, const char *key, const char *value);
};

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
	/* Optional (NULL: none): what it counts, for `smtctl stats`; named
	 * objects at the top level of the answer. */
	void (*stats)(struct smtwc_server *server, const struct smtwc_stats_out *out);
};

/* The extensions linked into this program, NULL-terminated. */
extern const struct smtwc_extension *const smtwc_extensions[];

#endif

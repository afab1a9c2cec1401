/*
 * resource_usage — what one client holds of what the compositor has, under
 * limits (pure: no wlroots, no Wayland). Every resource a client causes is
 * charged to its connection's counters and, through `parent`, to its
 * process's, its uid's and the compositor's total, so one client can
 * neither take what the others need nor, by opening many connections (or
 * many processes), more than one share. A charge that would cross any
 * limit charges nothing and says which limit, so the client's protocol
 * error can name it and its value.
 */
#ifndef SMT_RESOURCE_USAGE_H
#define SMT_RESOURCE_USAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum smt_resource {
	SMT_RES_FDS, /* descriptors the compositor holds for the client:
			  * its socket, what rings and pools keep (with the
			  * event loop's dups) and fds in flight */
	SMT_RES_RINGS,
	SMT_RES_POOLS,
	SMT_RES_MEMORY, /* bytes: pixmaps (pixels + overhead) and canvases */
	SMT_RES_CANVASES,
	SMT_RES_MAPPINGS, /* mappings of client and server memfds */
	SMT_RES_ADDRESS,  /* bytes of address space those mappings take */
	SMT_RES_CONNECTIONS,
	SMT_RES_FDS_IN_FLIGHT, /* fds read by libwayland, not yet dispatched:
				* capped per connection; above it they count
				* as fds of the process, uid and total */
	SMT_RES_FDS_UNREAD,    /* fds sent to the client, in its socket, not yet
			     * read: held by the kernel, not in the
			     * compositor's fd table, but counted against its
			     * uid (RLIMIT_NOFILE of them refuse every further
			     * fd it sends, to anyone) */
	SMT_RES_OBJECTS,       /* every Wayland object of the client
			  * (object_usage.h) */
	SMT_RES_SURFACES,      /* wl_surfaces, bare or under a canvas: each is
			   * work in the one dispatch that destroys its
			   * client (surface_usage.h) */
	SMT_RES_COUNT,
};

/* Who an account is for; names the limits ("client-...", "process-..."). */
enum smt_usage_level {
	SMT_LEVEL_CLIENT,  /* one connection */
	SMT_LEVEL_PROCESS, /* every connection of one pid (SO_PEERCRED) */
	SMT_LEVEL_UID,     /* every process of one uid */
	SMT_LEVEL_TOTAL,   /* the compositor */
};

struct smt_usage {
	uint64_t used[SMT_RES_COUNT];
	uint64_t max[SMT_RES_COUNT]; /* 0: no limit at this level */
	/* The last reserve[r] below max[r] is kept for newcomers: a charge
	 * may use it only while its process holds no more than reserve[r]
	 * afterwards (a new client's first window). */
	uint64_t reserve[SMT_RES_COUNT];
	struct smt_usage *parent; /* the next level up, or NULL */
	enum smt_usage_level level;
};

struct smt_usage_refusal {
	enum smt_resource resource;
	enum smt_usage_level level; /* whose limit */
	bool reserve;               /* refused the newcomers' reserve */
	uint64_t max, used, asked;
};

/* Charge and release are safe from several threads on
 * accounts of one tree (one lock for all accounts). */
bool smt_usage_charge(struct smt_usage *u, enum smt_resource r, uint64_t n,
		struct smt_usage_refusal *why);
void smt_usage_release(struct smt_usage *u, enum smt_resource r, uint64_t n);
/* A copy of one account's counters (used, and max when not NULL), taken
 * under the lock the charges hold: worker threads charge while the main
 * thread reads statistics. */
void smt_usage_read(const struct smt_usage *u, uint64_t used[SMT_RES_COUNT],
		uint64_t max[SMT_RES_COUNT]);
/* Counts n of r at every level whatever the limits: for what must not be
 * refused (the compositor's own connection), yet is held. */
void smt_usage_charge_over_limits(struct smt_usage *u, enum smt_resource r, uint64_t n);

/* "limit client-memory-mib=256 reached: 268435200 bytes in use, 65536 more
 * asked" — the configuration key and value, then the figures. */
void smt_usage_describe(const struct smt_usage_refusal *why, char *buf, size_t len);
/* The key's name without its level: "memory-mib", "fds". */
const char *smt_resource_key(enum smt_resource r);

#endif

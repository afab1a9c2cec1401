/*
 * resource_usage — what one client holds of what the compositor has, under
 * limits (pure: no wlroots, no Wayland). Every resource a client causes is
 * charged to its counters and, through `parent`, to the compositor's total,
 * so one client can neither take what the others need nor, by opening many
 * connections, everything together. A charge that would cross any limit
 * charges nothing and says which limit, so the client's protocol error can
 * name it and its value.
 */
#ifndef SMT_RESOURCE_USAGE_H
#define SMT_RESOURCE_USAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum smt_resource {
	SMT_RES_FDS,     /* descriptors the compositor keeps for the client */
	SMT_RES_RINGS,
	SMT_RES_POOLS,
	SMT_RES_MEMORY,  /* bytes: pixmaps (pixels + overhead) and canvases */
	SMT_RES_CANVASES,
	SMT_RES_COUNT,
};

struct smt_usage {
	uint64_t used[SMT_RES_COUNT];
	uint64_t max[SMT_RES_COUNT];   /* 0: no limit at this level */
	struct smt_usage *parent;      /* the compositor's total, or NULL */
	bool is_total;                 /* names the limits "total-..." */
};

struct smt_usage_refusal {
	enum smt_resource resource;
	bool total;                    /* the compositor-wide limit, not the client's */
	uint64_t max, used, asked;
};

bool smt_usage_charge(struct smt_usage *u, enum smt_resource r, uint64_t n,
		      struct smt_usage_refusal *why);
void smt_usage_release(struct smt_usage *u, enum smt_resource r, uint64_t n);

/* "limit client-memory-mib=256 reached: 268435200 bytes in use, 65536 more
 * asked" — the configuration key and value, then the figures. */
void smt_usage_describe(const struct smt_usage_refusal *why, char *buf, size_t len);

#endif

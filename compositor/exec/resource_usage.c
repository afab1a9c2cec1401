/*
 * Charging what a client holds to it, its process, its uid and the
 * compositor's total under limits (resource_usage.h), so no client takes
 * what the others need.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "compositor/exec/resource_usage.h"

/* What the charge's process would hold afterwards (the client's own usage
 * when no process level is above it). */
static uint64_t process_used_after(const struct smt_usage *u, enum smt_resource r, uint64_t n)
{
	const struct smt_usage *process = u;
	for (const struct smt_usage *level = u; level; level = level->parent) {
		if (level->level == SMT_LEVEL_PROCESS) {
			process = level;
			break;
		}
	}
	uint64_t used = process->used[r];
	return used > UINT64_MAX - n ? UINT64_MAX : used + n;
}

/* Worker threads charge pixmaps to the accounts a client's rings share
 * (its connection, process, uid and the total) while the main thread
 * charges its requests: a check against a limit and the addition that
 * follows are one step under this lock, so two threads cannot both pass
 * a limit with room for one (docs/architecture.md "Threads"). One lock
 * for the whole tree: a charge walks four levels, none contended long. */
static pthread_mutex_t usage_lock = PTHREAD_MUTEX_INITIALIZER;

static bool usage_charge_locked(
		struct smt_usage *u, enum smt_resource r, uint64_t n, struct smt_usage_refusal *why)
{
	for (struct smt_usage *level = u; level; level = level->parent) {
		uint64_t max = level->max[r], used = level->used[r];
		bool reserved = false;
		if (max != 0 && level->reserve[r] != 0 && level->reserve[r] < max &&
				process_used_after(u, r, n) > level->reserve[r]) {
			max -= level->reserve[r]; /* not a newcomer */
			reserved = true;
		}
		if (max != 0 && (n > max || used > max - n)) {
			if (why)
				*why = (struct smt_usage_refusal){
					.resource = r,
					.level = level->level,
					.reserve = reserved,
					.max = level->max[r],
					.used = used,
					.asked = n,
				};
			return false;
		}
	}
	for (struct smt_usage *level = u; level; level = level->parent)
		level->used[r] += n;
	return true;
}

bool smt_usage_charge(
		struct smt_usage *u, enum smt_resource r, uint64_t n, struct smt_usage_refusal *why)
{
	pthread_mutex_lock(&usage_lock);
	bool ok = usage_charge_locked(u, r, n, why);
	pthread_mutex_unlock(&usage_lock);
	return ok;
}

void smt_usage_release(struct smt_usage *u, enum smt_resource r, uint64_t n)
{
	pthread_mutex_lock(&usage_lock);
	for (struct smt_usage *level = u; level; level = level->parent)
		level->used[r] -= n < level->used[r] ? n : level->used[r];
	pthread_mutex_unlock(&usage_lock);
}

void smt_usage_charge_over_limits(struct smt_usage *u, enum smt_resource r, uint64_t n)
{
	pthread_mutex_lock(&usage_lock);
	for (struct smt_usage *level = u; level; level = level->parent)
		level->used[r] = level->used[r] > UINT64_MAX - n ? UINT64_MAX : level->used[r] + n;
	pthread_mutex_unlock(&usage_lock);
}

void smt_usage_read(const struct smt_usage *u, uint64_t used[SMT_RES_COUNT],
		uint64_t max[SMT_RES_COUNT])
{
	pthread_mutex_lock(&usage_lock);
	memcpy(used, u->used, sizeof(u->used));
	if (max != NULL) {
		memcpy(max, u->max, sizeof(u->max));
	}
	pthread_mutex_unlock(&usage_lock);
}

const char *smt_resource_key(enum smt_resource r)
{
	static const char *const names[SMT_RES_COUNT] = {
		[SMT_RES_FDS] = "fds",
		[SMT_RES_RINGS] = "rings",
		[SMT_RES_POOLS] = "pools",
		[SMT_RES_MEMORY] = "memory-mib",
		[SMT_RES_CANVASES] = "canvases",
		[SMT_RES_MAPPINGS] = "mappings",
		[SMT_RES_ADDRESS] = "address-space-mib",
		[SMT_RES_CONNECTIONS] = "connections",
		[SMT_RES_FDS_IN_FLIGHT] = "fds-in-flight",
		[SMT_RES_FDS_UNREAD] = "fds-unread",
		[SMT_RES_OBJECTS] = "objects",
		[SMT_RES_SURFACES] = "surfaces",
	};
	return (unsigned)r < SMT_RES_COUNT ? names[r] : "?";
}

void smt_usage_describe(const struct smt_usage_refusal *why, char *buf, size_t len)
{
	static const char *const levels[] = {
		[SMT_LEVEL_CLIENT] = "client",
		[SMT_LEVEL_PROCESS] = "process",
		[SMT_LEVEL_UID] = "uid",
		[SMT_LEVEL_TOTAL] = "total",
	};
	bool bytes = why->resource == SMT_RES_MEMORY || why->resource == SMT_RES_ADDRESS;
	uint64_t shown = bytes ? why->max >> 20 : why->max;
	snprintf(buf, len, "limit %s-%s=%llu reached%s: %llu%s in use, %llu more asked",
			levels[why->level], smt_resource_key(why->resource),
			(unsigned long long)shown, why->reserve ? " (new-client reserve)" : "",
			(unsigned long long)why->used, bytes ? " bytes" : "",
			(unsigned long long)why->asked);
}

/*
 * Which X request sequences the shim converted, so that an error the server
 * reports for one (as MIT-SHM ShmPutImage/ShmGetImage) can be shown to the
 * application as the core request it made (PutImage/GetImage).
 *
 * Pure logic, no locking. Sequences are kept as ranges: a stream of converted
 * requests with nothing else in between (typical for image-heavy loops, and
 * the shim's own fence requests never fail, so they may sit inside a range)
 * costs one entry. Entries are dropped once the application has dequeued an
 * event or error with a later sequence: the server answers in request order,
 * so no error for an older request can still be coming. The table is bounded;
 * when it overflows the oldest range is dropped and an error for it would be
 * reported as the MIT-SHM request (counted in `dropped`).
 */
#ifndef SMT_X11SHIM_ERRTAB_H
#define SMT_X11SHIM_ERRTAB_H

#include <stdbool.h>
#include <stdint.h>

struct xshim_errtab_range {
	uint32_t first, last; /* inclusive */
	uint8_t major;        /* the core request it stands for (72 or 73) */
};

struct xshim_errtab {
	struct xshim_errtab_range *v; /* circular, oldest first */
	uint32_t cap, start, count;
	uint32_t max; /* bound on count */
	uint64_t dropped;
};

void xshim_errtab_init(struct xshim_errtab *t, uint32_t max_ranges);
void xshim_errtab_finish(struct xshim_errtab *t);

/* Request seq was converted from core request `major`. */
void xshim_errtab_add(struct xshim_errtab *t, uint32_t seq, uint8_t major);

/* Request seq is one of the shim's own that cannot fail (a fence): it may
 * join the preceding range so that the next conversion extends it. */
void xshim_errtab_own(struct xshim_errtab *t, uint32_t seq);

/* The core major opcode seq was converted from, or 0. */
uint8_t xshim_errtab_lookup(const struct xshim_errtab *t, uint32_t seq);

/* The application dequeued a response with sequence seen: forget everything
 * before it. */
void xshim_errtab_prune(struct xshim_errtab *t, uint32_t seen);

#endif

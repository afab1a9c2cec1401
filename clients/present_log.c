/* The measuring clients' PRESENT bookkeeping: see present_log.h. */
#include "clients/present_log.h"

#include <stdio.h>
#include <stdlib.h>

/* A measuring client that cannot keep its log has nothing to report. */
static void *grow(void *p, size_t n, size_t size)
{
	void *q = realloc(p, n * size);
	if (!q) {
		fprintf(stderr, "out of memory for the present log\n");
		exit(1);
	}
	return q;
}

void present_log_mark(struct present_log *log, uint32_t mark_serial, size_t item)
{
	if (mark_serial >= log->mark_cap) {
		size_t n = log->mark_cap ? log->mark_cap : 4096;
		while (n <= mark_serial)
			n *= 2;
		log->item_by_mark = grow(log->item_by_mark, n, sizeof(*log->item_by_mark));
		for (size_t k = log->mark_cap; k < n; k++)
			log->item_by_mark[k] = SIZE_MAX;
		log->mark_cap = n;
	}
	log->item_by_mark[mark_serial] = item;
}

size_t present_log_presented(struct present_log *log, uint32_t serial, uint64_t display_ns)
{
	if (serial < log->mark_cap && log->item_by_mark[serial] != SIZE_MAX) {
		if (display_ns)
			log->marks_on_screen++;
		return log->item_by_mark[serial];
	}
	if (!display_ns)
		return SIZE_MAX;
	if (log->n_vis == log->vis_cap) {
		log->vis_cap = log->vis_cap ? 2 * log->vis_cap : 4096;
		log->vis_serial = grow(log->vis_serial, log->vis_cap, sizeof(*log->vis_serial));
		log->vis_display = grow(log->vis_display, log->vis_cap, sizeof(*log->vis_display));
	}
	log->vis_serial[log->n_vis] = serial;
	log->vis_display[log->n_vis++] = display_ns;
	return SIZE_MAX;
}

uint64_t present_log_display(const struct present_log *log, uint32_t vis_serial, size_t *cursor)
{
	while (*cursor < log->n_vis && log->vis_serial[*cursor] < vis_serial)
		(*cursor)++;
	return *cursor < log->n_vis ? log->vis_display[*cursor] : 0;
}

void present_log_finish(struct present_log *log)
{
	free(log->item_by_mark);
	free(log->vis_serial);
	free(log->vis_display);
	*log = (struct present_log){ 0 };
}

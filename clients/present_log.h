/*
 * What the measuring clients (smt-anim, smt-rubberband) learn from
 * smt_canvas_v1.presented. A PRESENT that a later one replaces before the
 * next output frame is never reported, so each measured item (a frame, an
 * input event) follows its visible PRESENT with a 1x1 "marker" PRESENT of
 * an off-screen part of the canvas: the compositor reports that one at once
 * with its execution time. Visible PRESENTs are reported when displayed.
 */
#ifndef SMT_PRESENT_LOG_H
#define SMT_PRESENT_LOG_H

#include <stddef.h>
#include <stdint.h>

struct present_log {
	size_t *item_by_mark; /* marker serial -> item, SIZE_MAX if none */
	size_t mark_cap;
	uint32_t *vis_serial; /* displayed visible PRESENTs, in order */
	uint64_t *vis_display;
	size_t n_vis, vis_cap;
	uint64_t marks_on_screen; /* sanity: markers must never be displayed */
};

/* Item `item`'s marker PRESENT got serial `mark_serial`. */
void present_log_mark(struct present_log *log, uint32_t mark_serial, size_t item);
/* From the presented event: the item whose marker this is (exec_ns is its
 * execution time), or SIZE_MAX for a visible PRESENT (recorded if displayed). */
size_t present_log_presented(struct present_log *log, uint32_t serial, uint64_t display_ns);
/* Display time of the first displayed visible PRESENT at or after vis_serial
 * (0: none). Ask in increasing vis_serial order; *cursor starts at 0. */
uint64_t present_log_display(const struct present_log *log, uint32_t vis_serial, size_t *cursor);
void present_log_finish(struct present_log *log);

#endif

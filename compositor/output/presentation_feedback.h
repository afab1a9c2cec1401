/*
 * wp_presentation feedback: which surfaces' content updates a committed
 * frame of an output showed, answered by that commit's present event
 * (presentation_feedback.c says why not wlroots' own tracking).
 */
#ifndef SMTWC_PRESENTATION_FEEDBACK_H
#define SMTWC_PRESENTATION_FEEDBACK_H

#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_presentation_time.h>
#include <wlr/types/wlr_scene.h>

/* One output's feedbacks waiting for their present event. */
struct presentation_feedbacks;

struct presentation_feedbacks *presentation_feedbacks_create(void);
/* The output goes: what waits is discarded. */
void presentation_feedbacks_destroy(struct presentation_feedbacks *feedbacks);

/* After a commit of `output` that showed the scene under `root`: every
 * surface the frame sampled (enabled, this output its primary one, with
 * content) has its feedback taken for that commit. */
void presentation_feedbacks_frame_committed(struct presentation_feedbacks *feedbacks,
		struct wlr_presentation *presentation, struct wlr_scene_node *root,
		struct wlr_output *output);

/* The output's present event. */
void presentation_feedbacks_presented(struct presentation_feedbacks *feedbacks,
		const struct wlr_output_event_present *event);

#endif

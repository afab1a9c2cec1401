/*
 * wp_presentation feedback for the surfaces an output's frame showed.
 *
 * wlroots 0.15's own tracking (wlr_presentation_surface_sampled_on_output,
 * which wlr_scene_output_commit and our renderer used) waits for the
 * output's commit event, then for a present event carrying that commit's
 * sequence number. The headless backend reports presentation from inside
 * the commit, before wlroots counts the commit and emits that event, so
 * the present was always one commit early: no feedback ever resolved.
 * Clients got neither `presented` nor `discarded` (smt-shm-echo saw
 * nothing, weston-presentation-shm printed nothing), and every commit's
 * feedback stayed allocated until the output went away. Here a frame's
 * feedbacks are taken once the commit is done, tagged with its sequence
 * number, and answered by that commit's present event, whether the
 * backend reported it during the commit (headless: remembered until now)
 * or reports it later (DRM's page flip, a nested compositor's feedback).
 */
#include <stdint.h>
#include <stdlib.h>
#include <wlr/types/wlr_surface.h>
#include "compositor/output/presentation_feedback.h"

/* A backend keeps at most a frame or two in flight (wlroots commits no new
 * buffer while a frame is pending); one that never reports presentation
 * must not let feedbacks pile up: older ones are discarded. */
#define FRAMES_IN_FLIGHT_MAX 16u

struct waiting_feedback {
	struct wl_list link; /* presentation_feedbacks.waiting, oldest first */
	struct wlr_presentation_feedback *feedback;
	uint32_t commit_seq;
};

struct presentation_feedbacks {
	struct wl_list waiting;
	/* The last present event, for a backend that sends it during the
	 * commit, before that commit's surfaces are taken. */
	bool have_last;
	bool last_presented;
	uint32_t last_commit_seq;
	struct wlr_presentation_event last;
};

struct presentation_feedbacks *presentation_feedbacks_create(void)
{
	struct presentation_feedbacks *feedbacks = calloc(1, sizeof(*feedbacks));
	if (feedbacks != NULL) {
		wl_list_init(&feedbacks->waiting);
	}
	return feedbacks;
}

/* Sends presented or discarded and frees the feedback (its resources'
 * clients may be gone: libwayland took those resources off its list). */
static void feedback_answer(struct wlr_presentation_feedback *feedback, bool presented,
		struct wlr_presentation_event *event)
{
	if (presented) {
		wlr_presentation_feedback_send_presented(feedback, event);
	}
	wlr_presentation_feedback_destroy(feedback); /* the rest: discarded */
}

static void waiting_answer(
		struct waiting_feedback *w, bool presented, struct wlr_presentation_event *event)
{
	feedback_answer(w->feedback, presented, event);
	wl_list_remove(&w->link);
	free(w);
}

void presentation_feedbacks_destroy(struct presentation_feedbacks *feedbacks)
{
	if (feedbacks == NULL) {
		return;
	}
	struct waiting_feedback *w, *tmp;
	wl_list_for_each_safe (w, tmp, &feedbacks->waiting, link) {
		waiting_answer(w, false, NULL);
	}
	free(feedbacks);
}

/* Whether commit `seq` came before `other` (modulo the 32-bit wrap). */
static bool commit_before(uint32_t seq, uint32_t other)
{
	return (int32_t)(seq - other) < 0;
}

static void take_feedback(struct presentation_feedbacks *feedbacks,
		struct wlr_presentation_feedback *feedback, struct wlr_output *output)
{
	if (feedbacks->have_last && feedbacks->last_commit_seq == output->commit_seq) {
		/* already reported, during the commit */
		feedback_answer(feedback, feedbacks->last_presented, &feedbacks->last);
		return;
	}
	struct waiting_feedback *w = calloc(1, sizeof(*w));
	if (w == NULL) {
		feedback_answer(feedback, false, NULL);
		return;
	}
	w->feedback = feedback;
	w->commit_seq = output->commit_seq;
	wl_list_insert(feedbacks->waiting.prev, &w->link);
}

/* Front to back over enabled nodes, as the renderer walks them: a surface
 * covered by others is still part of the frame (clients pace themselves on
 * this feedback; wlroots' scene renderer sampled it too). */
static void take_shown(struct presentation_feedbacks *feedbacks,
		struct wlr_presentation *presentation, struct wlr_scene_node *node,
		struct wlr_output *output)
{
	if (!node->state.enabled) {
		return;
	}
	struct wlr_scene_node *child;
	wl_list_for_each (child, &node->state.children, state.link) {
		take_shown(feedbacks, presentation, child, output);
	}
	if (node->type != WLR_SCENE_NODE_SURFACE) {
		return;
	}
	struct wlr_scene_surface *scene_surface = wlr_scene_surface_from_node(node);
	if (scene_surface->primary_output != output ||
			wlr_surface_get_texture(scene_surface->surface) == NULL) {
		return;
	}
	struct wlr_presentation_feedback *feedback = wlr_presentation_surface_sampled(
			presentation, scene_surface->surface);
	if (feedback != NULL) {
		take_feedback(feedbacks, feedback, output);
	}
}

void presentation_feedbacks_frame_committed(struct presentation_feedbacks *feedbacks,
		struct wlr_presentation *presentation, struct wlr_scene_node *root,
		struct wlr_output *output)
{
	if (feedbacks == NULL || presentation == NULL) {
		return;
	}
	struct waiting_feedback *w, *tmp;
	wl_list_for_each_safe (w, tmp, &feedbacks->waiting, link) {
		if (commit_before(w->commit_seq, output->commit_seq - FRAMES_IN_FLIGHT_MAX)) {
			waiting_answer(w, false, NULL);
		}
	}
	take_shown(feedbacks, presentation, root, output);
}

void presentation_feedbacks_presented(struct presentation_feedbacks *feedbacks,
		const struct wlr_output_event_present *event)
{
	if (feedbacks == NULL) {
		return;
	}
	feedbacks->have_last = true;
	feedbacks->last_commit_seq = event->commit_seq;
	/* (wlroots leaves `when` NULL for a frame not presented) */
	feedbacks->last_presented = event->presented && event->when != NULL;
	if (feedbacks->last_presented) {
		wlr_presentation_event_from_output(&feedbacks->last, event);
	}
	/* Present events come in commit order: a frame older than this one
	 * that was not reported never will be. */
	struct waiting_feedback *w, *tmp;
	wl_list_for_each_safe (w, tmp, &feedbacks->waiting, link) {
		if (w->commit_seq == event->commit_seq) {
			waiting_answer(w, feedbacks->last_presented, &feedbacks->last);
		} else if (commit_before(w->commit_seq, event->commit_seq)) {
			waiting_answer(w, false, NULL);
		}
	}
}

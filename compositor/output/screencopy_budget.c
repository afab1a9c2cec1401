/*
 * The screencopy budget per output frame (screencopy_budget.h says why).
 *
 * wlroots 0.15 arms a frame at its copy request: the frame's
 * `output_commit` listener joins its output's commit signal, and at the
 * next commit with a buffer it copies the front buffer into the client's
 * buffer, answers and frees the frame. wlroots' frame struct and the
 * manager's list of frames are public, so at each such commit's precommit
 * this module walks the output's waiting frames, leaves armed the ones the
 * budget serves and takes the others' listener off the signal (a frame
 * taken off waits, exactly as wlroots would leave a frame waiting for a
 * commit); a later precommit arms them again. A listener of ours added
 * after the frames' runs after their copies and counts what was copied: a
 * frame wlroots has freed leaves its resource without user data.
 */
#include <stdlib.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_screencopy_v1.h>
#include <wlr/util/log.h>
#include "compositor/output/screencopy_budget.h"

/* Bytes per pixel of what wlroots 0.15 copies (its frames' stride is
 * 4 x width whatever the read format). */
#define COPY_BYTES_PER_PIXEL 4u

struct capture_uid {
	struct wl_list link; /* smtwc_screencopy.uids */
	uid_t uid;
	uint64_t last_served; /* the tick it was last served at (or came) */
	int clients;
};

/* A connection that asked for a copy. */
struct capture_client {
	struct wl_list link; /* smtwc_screencopy.clients */
	struct wl_listener destroy;
	struct smtwc_screencopy *sc;
	struct capture_uid *uid;
	uint64_t last_served;
	struct screencopy_client_stats stats;
};

/* A frame with a copy asked, from the first commit that saw it waiting
 * until it is copied or its resource goes (frame->data points at it while
 * the frame lives; a frame wlroots answered leaves its resource inert). */
struct capture_frame {
	struct wl_listener resource_destroy;
	struct wl_resource *resource;
	struct capture_client *client;
	uint64_t seq;   /* order of being seen waiting */
	uint64_t bytes; /* what its copy costs */
};

/* One output's decision for the commit under way. */
struct budget_output {
	struct wl_list link; /* smtwc_screencopy.outputs */
	struct smtwc_screencopy *sc;
	struct wlr_output *output;
	struct wl_listener precommit, commit, destroy;
	/* The frames the budget let copy at this commit, and how many were
	 * held back; valid from the precommit to the commit event. */
	struct capture_frame **served;
	size_t served_count, served_cap;
	uint64_t held_back;
	bool decided;
};

struct smtwc_screencopy {
	struct smtwc_server *server;
	struct wlr_screencopy_manager_v1 *manager;
	struct wl_listener new_output;
	struct wl_list outputs; /* budget_output.link */
	struct wl_list clients; /* capture_client.link */
	struct wl_list uids;    /* capture_uid.link */
	uint64_t tick, seq;
	struct screencopy_stats stats;
	/* The candidates of one precommit, reused. */
	struct capture_frame **waiting;
	size_t waiting_cap;
};

static void client_free(struct capture_client *cc)
{
	wl_list_remove(&cc->link);
	wl_list_remove(&cc->destroy.link);
	if (--cc->uid->clients == 0) {
		wl_list_remove(&cc->uid->link);
		free(cc->uid);
	}
	free(cc);
}

/* libwayland signals a client's destroy before destroying its
 * resources: its frames forget it here, their records go with them. */
static void handle_client_destroy(struct wl_listener *listener, void *data)
{
	struct capture_client *cc = wl_container_of(listener, cc, destroy);
	struct wlr_screencopy_frame_v1 *frame;
	wl_list_for_each (frame, &cc->sc->manager->frames, link) {
		struct capture_frame *cf = frame->data;
		if (cf != NULL && cf->client == cc) {
			cf->client = NULL;
		}
	}
	client_free(cc);
}

static struct capture_uid *uid_find_or_add(struct smtwc_screencopy *sc, uid_t uid)
{
	struct capture_uid *cu;
	wl_list_for_each (cu, &sc->uids, link) {
		if (cu->uid == uid) {
			return cu;
		}
	}
	cu = calloc(1, sizeof(*cu));
	if (cu == NULL) {
		return NULL;
	}
	cu->uid = uid;
	cu->last_served = sc->tick; /* a newcomer joins at the back */
	wl_list_insert(&sc->uids, &cu->link);
	return cu;
}

static struct capture_client *client_find_or_add(
		struct smtwc_screencopy *sc, struct wl_client *client)
{
	struct wl_listener *l = wl_client_get_destroy_listener(client, handle_client_destroy);
	if (l != NULL) {
		struct capture_client *cc = wl_container_of(l, cc, destroy);
		return cc;
	}
	pid_t pid = 0;
	uid_t uid = 0;
	wl_client_get_credentials(client, &pid, &uid, NULL);
	struct capture_client *cc = calloc(1, sizeof(*cc));
	struct capture_uid *cu = cc != NULL ? uid_find_or_add(sc, uid) : NULL;
	if (cu == NULL) {
		free(cc);
		return NULL;
	}
	cu->clients++;
	cc->sc = sc;
	cc->uid = cu;
	cc->last_served = sc->tick;
	cc->stats.pid = pid;
	cc->stats.uid = uid;
	cc->destroy.notify = handle_client_destroy;
	wl_client_add_destroy_listener(client, &cc->destroy);
	wl_list_insert(sc->clients.prev, &cc->link);
	return cc;
}

static void handle_frame_resource_destroy(struct wl_listener *listener, void *data)
{
	struct capture_frame *cf = wl_container_of(listener, cf, resource_destroy);
	struct wlr_screencopy_frame_v1 *frame = wl_resource_get_user_data(cf->resource);
	if (frame != NULL) {
		frame->data = NULL; /* wlroots frees it right after */
	}
	wl_list_remove(&cf->resource_destroy.link);
	free(cf);
}

/* The record of a waiting frame, made when a commit first sees it. NULL:
 * out of memory (the frame is then served as wlroots would, unbudgeted,
 * rather than left waiting forever). */
static struct capture_frame *frame_record(
		struct smtwc_screencopy *sc, struct wlr_screencopy_frame_v1 *frame)
{
	if (frame->data != NULL) {
		return frame->data;
	}
	struct capture_client *cc = client_find_or_add(sc, wl_resource_get_client(frame->resource));
	struct capture_frame *cf = cc != NULL ? calloc(1, sizeof(*cf)) : NULL;
	if (cf == NULL) {
		return NULL;
	}
	cf->resource = frame->resource;
	cf->client = cc;
	cf->seq = ++sc->seq;
	cf->resource_destroy.notify = handle_frame_resource_destroy;
	wl_resource_add_destroy_listener(frame->resource, &cf->resource_destroy);
	frame->data = cf;
	return cf;
}

static bool armed(struct wlr_screencopy_frame_v1 *frame)
{
	return !wl_list_empty(&frame->output_commit.link);
}

static void arm(struct wlr_screencopy_frame_v1 *frame)
{
	if (!armed(frame)) {
		wl_signal_add(&frame->output->events.commit, &frame->output_commit);
	}
}

static void hold_back(struct wlr_screencopy_frame_v1 *frame)
{
	wl_list_remove(&frame->output_commit.link);
	wl_list_init(&frame->output_commit.link);
}

/* Is a before b in the round robin: the uid served longer ago, then the
 * connection served longer ago, then the older frame. */
static bool goes_before(const struct capture_frame *a, const struct capture_frame *b)
{
	if (a->client->uid->last_served != b->client->uid->last_served) {
		return a->client->uid->last_served < b->client->uid->last_served;
	}
	if (a->client->last_served != b->client->last_served) {
		return a->client->last_served < b->client->last_served;
	}
	return a->seq < b->seq;
}

static bool grow(struct smtwc_screencopy *sc, size_t n)
{
	if (n <= sc->waiting_cap) {
		return true;
	}
	size_t cap = sc->waiting_cap > 0 ? sc->waiting_cap : 16;
	while (cap < n) {
		cap *= 2;
	}
	struct capture_frame **waiting = realloc(sc->waiting, cap * sizeof(*waiting));
	if (waiting == NULL) {
		return false;
	}
	sc->waiting = waiting;
	sc->waiting_cap = cap;
	return true;
}

static bool add_served(struct budget_output *bo, struct capture_frame *cf)
{
	if (bo->served_count == bo->served_cap) {
		size_t cap = bo->served_cap > 0 ? bo->served_cap * 2 : 8;
		struct capture_frame **served = realloc(bo->served, cap * sizeof(*served));
		if (served == NULL) {
			return false;
		}
		bo->served = served;
		bo->served_cap = cap;
	}
	bo->served[bo->served_count++] = cf;
	return true;
}

static uint64_t frame_cost(const struct wlr_screencopy_frame_v1 *frame)
{
	return (uint64_t)frame->box.width * (uint64_t)frame->box.height * COPY_BYTES_PER_PIXEL;
}

/* Before a commit with a buffer: which of the output's waiting frames
 * copy at it. */
static void handle_precommit(struct wl_listener *listener, void *data)
{
	struct budget_output *bo = wl_container_of(listener, bo, precommit);
	struct smtwc_screencopy *sc = bo->sc;
	struct wlr_output *output = bo->output;
	bo->served_count = 0;
	bo->held_back = 0;
	bo->decided = false;
	if (!(output->pending.committed & WLR_OUTPUT_STATE_BUFFER)) {
		return; /* wlroots copies nothing at it */
	}
	size_t n = 0;
	struct wlr_screencopy_frame_v1 *frame;
	wl_list_for_each (frame, &sc->manager->frames, link) {
		if (frame->output != output ||
				(frame->shm_buffer == NULL && frame->dma_buffer == NULL)) {
			continue;
		}
		struct capture_frame *cf = frame_record(sc, frame);
		if (cf == NULL || cf->client == NULL || !grow(sc, n + 1)) {
			arm(frame); /* no record: wlroots' own way */
			continue;
		}
		cf->bytes = frame_cost(frame);
		sc->waiting[n++] = cf;
	}
	if (n == 0) {
		return;
	}
	bo->decided = true;
	int copies = sc->server->config.limits.frame_screencopy_copies;
	uint64_t budget = (uint64_t)copies * (uint64_t)output->width * (uint64_t)output->height *
			COPY_BYTES_PER_PIXEL;
	uint64_t used = 0;
	/* Served ones leave the candidates (swapped past the end). */
	size_t left = n;
	while (left > 0 && bo->served_count < (size_t)copies) {
		size_t best = 0;
		for (size_t i = 1; i < left; i++) {
			if (goes_before(sc->waiting[i], sc->waiting[best])) {
				best = i;
			}
		}
		/* A region larger than the budget is served alone. */
		if (bo->served_count > 0 && used + sc->waiting[best]->bytes > budget) {
			break;
		}
		struct capture_frame *cf = sc->waiting[best];
		if (!add_served(bo, cf)) {
			break;
		}
		used += cf->bytes;
		cf->client->last_served = cf->client->uid->last_served = ++sc->tick;
		left--;
		sc->waiting[best] = sc->waiting[left];
		sc->waiting[left] = cf;
	}
	for (size_t i = 0; i < n; i++) {
		frame = wl_resource_get_user_data(sc->waiting[i]->resource);
		if (i >= left) {
			arm(frame);
		} else {
			hold_back(frame);
			sc->waiting[i]->client->stats.held_back++;
			bo->held_back++;
		}
	}
	/* Ours runs after every frame's listener: it sees what they did. */
	wl_list_remove(&bo->commit.link);
	wl_signal_add(&output->events.commit, &bo->commit);
}

/* After the frames' copies: count what was copied, and ask for the next
 * frame when some wait. */
static void handle_commit(struct wl_listener *listener, void *data)
{
	struct budget_output *bo = wl_container_of(listener, bo, commit);
	struct smtwc_screencopy *sc = bo->sc;
	if (!bo->decided) {
		return;
	}
	bo->decided = false;
	uint64_t copied = 0;
	for (size_t i = 0; i < bo->served_count; i++) {
		struct capture_frame *cf = bo->served[i];
		struct wlr_screencopy_frame_v1 *frame = wl_resource_get_user_data(cf->resource);
		if (frame != NULL) {
			continue; /* copy_with_damage and nothing damaged: waits on */
		}
		/* wlroots freed it: copied (or failed at the copy) */
		copied++;
		sc->stats.bytes += cf->bytes;
		if (cf->client != NULL) {
			cf->client->stats.copies++;
			cf->client->stats.bytes += cf->bytes;
		}
		/* Its resource stays until the client destroys it; the
		 * record is done with. */
		wl_list_remove(&cf->resource_destroy.link);
		free(cf);
	}
	bo->served_count = 0;
	sc->stats.copies += copied;
	sc->stats.held_back += bo->held_back;
	if (copied > 0) {
		sc->stats.commits_with_copy++;
	}
	if (copied > sc->stats.max_frame_copies) {
		sc->stats.max_frame_copies = copied;
	}
	if (bo->held_back > 0) {
		wlr_output_schedule_frame(bo->output);
	}
}

static void budget_output_free(struct budget_output *bo)
{
	wl_list_remove(&bo->link);
	wl_list_remove(&bo->precommit.link);
	wl_list_remove(&bo->commit.link);
	wl_list_remove(&bo->destroy.link);
	free(bo->served);
	free(bo);
}

static void handle_output_destroy(struct wl_listener *listener, void *data)
{
	struct budget_output *bo = wl_container_of(listener, bo, destroy);
	budget_output_free(bo);
}

static void handle_new_output(struct wl_listener *listener, void *data)
{
	struct smtwc_screencopy *sc = wl_container_of(listener, sc, new_output);
	struct wlr_output *output = data;
	struct budget_output *bo = calloc(1, sizeof(*bo));
	if (bo == NULL) {
		wlr_log(WLR_ERROR, "output %s: out of memory: screencopy unbudgeted", output->name);
		return;
	}
	bo->sc = sc;
	bo->output = output;
	bo->precommit.notify = handle_precommit;
	wl_signal_add(&output->events.precommit, &bo->precommit);
	bo->commit.notify = handle_commit;
	wl_signal_add(&output->events.commit, &bo->commit);
	bo->destroy.notify = handle_output_destroy;
	wl_signal_add(&output->events.destroy, &bo->destroy);
	wl_list_insert(&sc->outputs, &bo->link);
}

void screencopy_budget_init(struct smtwc_server *server)
{
	struct smtwc_screencopy *sc = calloc(1, sizeof(*sc));
	struct wlr_screencopy_manager_v1 *manager = wlr_screencopy_manager_v1_create(
			server->display);
	if (sc == NULL || manager == NULL) {
		wlr_log(WLR_ERROR, "screencopy: out of memory: captures %s",
				manager != NULL ? "unbudgeted" : "unavailable");
		free(sc);
		return;
	}
	sc->server = server;
	sc->manager = manager;
	wl_list_init(&sc->outputs);
	wl_list_init(&sc->clients);
	wl_list_init(&sc->uids);
	sc->stats.budget_copies = server->config.limits.frame_screencopy_copies;
	sc->new_output.notify = handle_new_output;
	wl_signal_add(&server->backend->events.new_output, &sc->new_output);
	server->screencopy = sc;
}

void screencopy_budget_finish(struct smtwc_server *server)
{
	struct smtwc_screencopy *sc = server->screencopy;
	if (sc == NULL) {
		return;
	}
	wl_list_remove(&sc->new_output.link);
	struct budget_output *bo, *tmp_bo;
	wl_list_for_each_safe (bo, tmp_bo, &sc->outputs, link) {
		budget_output_free(bo);
	}
	/* Clients are gone (their destroy freed their records); any left
	 * have frames only through wlroots' list, which forgets them too. */
	struct capture_client *cc, *tmp_cc;
	wl_list_for_each_safe (cc, tmp_cc, &sc->clients, link) {
		handle_client_destroy(&cc->destroy, NULL);
	}
	free(sc->waiting);
	free(sc);
	server->screencopy = NULL;
}

void screencopy_budget_stats(const struct smtwc_server *server, struct screencopy_stats *out)
{
	*out = (struct screencopy_stats){ 0 };
	if (server->screencopy != NULL) {
		*out = server->screencopy->stats;
		out->budget_copies = server->config.limits.frame_screencopy_copies;
	}
}

void screencopy_budget_for_each_client(const struct smtwc_server *server,
		void (*fn)(const struct screencopy_client_stats *stats, void *data), void *data)
{
	if (server->screencopy == NULL) {
		return;
	}
	struct capture_client *cc;
	wl_list_for_each (cc, &server->screencopy->clients, link) {
		fn(&cc->stats, data);
	}
}

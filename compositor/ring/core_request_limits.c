/*
 * wlroots' handlers of core requests, bounded and counted from a protocol
 * logger that runs before each of them (core_request_limits.h).
 */
#define _GNU_SOURCE
#include <pixman.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wlr/types/wlr_region.h>
#include <wlr/types/wlr_screencopy_v1.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/types/wlr_xdg_activation_v1.h>
#include <wlr/util/addon.h>
#include <wlr/util/log.h>
#include "compositor/log_limit.h"
#include "compositor/output/pixel_format.h"
#include "compositor/server.h"
#include "compositor/ring/client_usage.h"
#include "compositor/ring/core_request_limits.h"
#include "compositor/ring/ring_types.h"
#include "compositor/ring/waiting_filesystem.h"

/* What an offered MIME type costs beyond its bytes: its pointer in
 * wlroots' array and malloc's header of its copy. */
#define MIME_ENTRY_BYTES 24u
/* A region's first rectangles are part of what its object costs (every
 * toolkit's input and opaque regions are a few); past them each of
 * pixman's boxes is charged. */
#define REGION_FREE_RECTS 32
/* A committed activation token: wlroots' struct, its token string and
 * its timer (the app id is charged by its length). */
#define TOKEN_BYTES (sizeof(struct wlr_xdg_activation_token_v1) + 128u)

/* What one object (a data source, a region, an activation token) has had
 * charged to its client, given back when the object goes. */
struct charge_record {
	struct wl_listener destroy;
	struct smtwc_client_usage *usage; /* a reference: tokens outlive
					    * their client */
	uint64_t memory, objects;
	uint64_t mime_types, mime_bytes; /* a data source's offers */
};

/* The request being looked at; its name ("wl_region.add") is made only
 * for a refusal or a log line. */
struct request {
	const char *class, *name;
	char text[96];
};

static const char *request_name(struct request *rq)
{
	if (rq->text[0] == '\0') {
		snprintf(rq->text, sizeof(rq->text), "%s.%s", rq->class, rq->name);
	}
	return rq->text;
}

static struct {
	struct smtwc_transport *transport;
	struct wl_protocol_logger *logger;
	struct log_limit coalesce_log;
	int null_fd; /* put in place of a pool's fd that must not be mapped */
} core;

static const struct smtwc_limits_config *config(void)
{
	return &core.transport->server->config.limits;
}

static void record_release(struct charge_record *rec)
{
	wl_list_remove(&rec->destroy.link);
	client_usage_release(rec->usage, SMT_RES_MEMORY, rec->memory);
	client_usage_release(rec->usage, SMT_RES_OBJECTS, rec->objects);
	client_usage_unref(rec->usage);
	free(rec);
}

static void handle_record_destroy(struct wl_listener *listener, void *data)
{
	struct charge_record *rec = wl_container_of(listener, rec, destroy);
	record_release(rec);
}

static bool own_connection(const struct smtwc_client_usage *cu)
{
	return cu->pid == getpid();
}

/* The record of `resource`, made at its first charge (NULL: a client
 * without an account, or out of memory, said to the client). */
static struct charge_record *record_of(struct wl_resource *resource)
{
	struct wl_listener *l = wl_resource_get_destroy_listener(resource, handle_record_destroy);
	if (l != NULL) {
		struct charge_record *rec = wl_container_of(l, rec, destroy);
		return rec;
	}
	struct wl_client *client = wl_resource_get_client(resource);
	struct smtwc_client_usage *cu = client_usage_find(client);
	if (cu == NULL || cu->client == NULL) {
		return NULL;
	}
	struct charge_record *rec = calloc(1, sizeof(*rec));
	if (rec == NULL) {
		wl_client_post_no_memory(client);
		return NULL;
	}
	rec->usage = client_usage_hold(cu);
	rec->destroy.notify = handle_record_destroy;
	wl_resource_add_destroy_listener(resource, &rec->destroy);
	return rec;
}

/* Charges n of r to cu; false: refused, the client is ended with the
 * limit's name. The compositor's own connection is charged past limits. */
static bool usage_charge(struct smtwc_client_usage *cu, struct wl_client *client,
		struct request *rq, enum smt_resource r, uint64_t n)
{
	if (own_connection(cu)) {
		smt_usage_charge_over_limits(&cu->usage, r, n);
		return true;
	}
	struct smt_usage_refusal why;
	if (!smt_usage_charge(&cu->usage, r, n, &why)) {
		client_usage_refuse(client, request_name(rq), &why);
		return false;
	}
	return true;
}

/* Charges n of r to the record's client (usage_charge). */
static bool record_charge(struct charge_record *rec, struct wl_client *client, struct request *rq,
		enum smt_resource r, uint64_t n)
{
	if (!usage_charge(rec->usage, client, rq, r, n)) {
		return false;
	}
	if (r == SMT_RES_MEMORY) {
		rec->memory += n;
	} else {
		rec->objects += n;
	}
	return true;
}

/* A per-object limit, unless the connection is the compositor's own. */
static bool over_limit(struct wl_client *client, const struct smtwc_client_usage *cu,
		struct request *rq, const char *key, int limit, uint64_t used, uint64_t asked,
		const char *unit)
{
	if (used + asked <= (uint64_t)limit || own_connection(cu)) {
		return false;
	}
	char text[160];
	snprintf(text, sizeof(text), "limit %s=%d reached: %llu %s, %llu more asked", key, limit,
			(unsigned long long)used, unit, (unsigned long long)asked);
	client_usage_refuse_text(client, request_name(rq), text);
	return true;
}

/* wl_data_source, zwp_primary_selection_source_v1 and
 * zwlr_data_control_source_v1 .offer: wlroots keeps a copy of each MIME
 * type (duplicates, which it drops, count too) until the source goes. */
static void check_offer(struct wl_resource *resource, const char *mime, struct request *rq)
{
	struct wl_client *client = wl_resource_get_client(resource);
	struct charge_record *rec = record_of(resource);
	if (rec == NULL) {
		return;
	}
	const struct smtwc_limits_config *c = config();
	uint64_t len = (mime != NULL ? strlen(mime) : 0) + 1;
	if (over_limit(client, rec->usage, rq, "source-mime-types", c->source_mime_types,
			    rec->mime_types, 1, "offered") ||
			over_limit(client, rec->usage, rq, "source-mime-bytes",
					c->source_mime_bytes, rec->mime_bytes, len,
					"bytes offered") ||
			!record_charge(rec, client, rq, SMT_RES_MEMORY, len + MIME_ENTRY_BYTES)) {
		return;
	}
	rec->mime_types++;
	rec->mime_bytes += len;
}

/* wl_surface.damage / damage_buffer: wlroots unions each rectangle into
 * the pending damage, at a cost that grows with the region. Past
 * surface-damage-rects the region becomes its bounding box: a superset,
 * so nothing that changed goes unpainted, and every later union is short. */
static void coalesce_damage(struct wl_resource *resource, bool buffer, struct request *rq)
{
	int limit = config()->surface_damage_rects;
	if (limit == 0) {
		return;
	}
	struct wlr_surface *surface = wlr_surface_from_resource(resource);
	pixman_region32_t *damage = buffer ? &surface->pending.buffer_damage :
					     &surface->pending.surface_damage;
	if (pixman_region32_n_rects(damage) < limit) {
		return;
	}
	pixman_box32_t box = *pixman_region32_extents(damage);
	pixman_region32_reset(damage, &box);
	uint64_t left_out;
	if (log_limit_allow(&core.coalesce_log, &left_out)) {
		pid_t pid = 0;
		wl_client_get_credentials(wl_resource_get_client(resource), &pid, NULL, NULL);
		wlr_log(WLR_INFO,
				"client pid %d: %s: past surface-damage-rects=%d rectangles before a "
				"commit, damage made its bounding box %dx%d (%llu such not logged "
				"before)",
				(int)pid, request_name(rq), limit, box.x2 - box.x1, box.y2 - box.y1,
				(unsigned long long)left_out);
	}
}

/* wl_region.add / subtract: exact (input and opaque regions), so bounded
 * by refusal; the boxes past a small region's are charged as memory. */
static void check_region(struct wl_resource *resource, struct request *rq)
{
	struct wl_client *client = wl_resource_get_client(resource);
	pixman_region32_t *region = wlr_region_from_resource(resource);
	int n = pixman_region32_n_rects(region);
	struct wl_listener *l = wl_resource_get_destroy_listener(resource, handle_record_destroy);
	struct charge_record *rec = NULL;
	if (l != NULL) {
		rec = wl_container_of(l, rec, destroy);
	}
	struct smtwc_client_usage *cu = rec != NULL ? rec->usage : client_usage_find(client);
	if (cu == NULL ||
			over_limit(client, cu, rq, "region-rects", config()->region_rects,
					(uint64_t)n, 1, "rectangles")) {
		return;
	}
	if (rec == NULL && n > REGION_FREE_RECTS) {
		rec = record_of(resource); /* a small region costs no record */
	}
	if (rec == NULL) {
		return;
	}
	/* What the previous requests left: this one's boxes are charged at
	 * the next request on the region, or never if it is the last. What
	 * pixman allocated, not the boxes in use: its union keeps room for
	 * about three times as many (a region of 1,000 boxes held 55 KB, 16
	 * bytes a box charged before session 37). */
	long room = region->data != NULL ? region->data->size : 0;
	uint64_t want = room > REGION_FREE_RECTS ?
			(uint64_t)(room - REGION_FREE_RECTS) * sizeof(pixman_box32_t) :
			0;
	if (want > rec->memory) {
		record_charge(rec, client, rq, SMT_RES_MEMORY, want - rec->memory);
	} else if (want < rec->memory) {
		client_usage_release(rec->usage, SMT_RES_MEMORY, rec->memory - want);
		rec->memory = want;
	}
}

/* wl_surface.frame: the callbacks of a surface no output shows are never
 * answered, and each commit adds its own. */
static void check_frame(struct wl_resource *resource, struct request *rq)
{
	struct wlr_surface *surface = wlr_surface_from_resource(resource);
	struct wl_client *client = wl_resource_get_client(resource);
	int limit = config()->surface_frame_callbacks;
	if (wl_list_length(&surface->current.frame_callback_list) >= limit) {
		/* As if a frame had been shown: the client paces on them. */
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		wlr_surface_send_frame_done(surface, &now);
	}
	struct smtwc_client_usage *cu = client_usage_find(client);
	if (cu == NULL) {
		return;
	}
	int pending = wl_list_length(&surface->pending.frame_callback_list);
	over_limit(client, cu, rq, "surface-frame-callbacks", limit, (uint64_t)pending, 1,
			"asked before a commit");
}

/* wl_surface.commit of a synchronized subsurface: wlroots keeps each
 * commit's state until the parent commits. */
static void check_commit(struct wl_resource *resource, struct request *rq)
{
	struct wlr_surface *surface = wlr_surface_from_resource(resource);
	if (wl_list_empty(&surface->cached)) {
		return; /* the first commit it keeps is free */
	}
	struct wl_client *client = wl_resource_get_client(resource);
	struct smtwc_client_usage *cu = client_usage_find(client);
	if (cu == NULL) {
		return;
	}
	int cached = wl_list_length(&surface->cached);
	over_limit(client, cu, rq, "surface-cached-commits", config()->surface_cached_commits,
			(uint64_t)cached, 1, "commits wait for the parent's");
}

/* What a surface's states hold, charged to its client while the surface
 * lives. wlroots copies a region into the pending state at
 * set_opaque_region / set_input_region, again into the current state or a
 * new cached state at each commit, and again clipped into the surface: one
 * wl_region of 1024 boxes, charged once as a region, was 16 KB in each
 * of these copies, in each of a client's surfaces, and a synchronized
 * subsurface keeps up to surface-cached-commits states, each with its own
 * copies and damage (session 26's red team: 4096 surfaces x 256 cached
 * states x 32 KB was reachable, counted nowhere). */
struct held_states {
	struct wlr_addon addon;
	struct wl_listener commit;
	struct smtwc_client_usage *usage;
	uint64_t memory;
};

/* A surface's first 4 KiB of states are not charged: every toolkit's
 * regions and a frame's damage fit, so most surfaces' accounts never
 * move (what goes uncounted: 16 MiB for a process at 4096 surfaces). */
#define SURFACE_FREE_BYTES 4096u

static uint64_t state_boxes(pixman_region32_t *opaque, pixman_region32_t *input,
		pixman_region32_t *surface_damage, pixman_region32_t *buffer_damage)
{
	return (uint64_t)pixman_region32_n_rects(opaque) +
			(uint64_t)pixman_region32_n_rects(input) +
			(uint64_t)pixman_region32_n_rects(surface_damage) +
			(uint64_t)pixman_region32_n_rects(buffer_damage);
}

static uint64_t pending_boxes(struct wlr_surface *surface)
{
	struct wlr_surface_state *p = &surface->pending;
	return state_boxes(&p->opaque, &p->input, &p->surface_damage, &p->buffer_damage);
}

/* The bytes `surface` holds past its own cost, with `extra_boxes` and
 * `extra_states` about to be added by the request being looked at. A
 * cached state wlroots is applying (the commit signal comes before it
 * frees it) is left out when `skip_applied`. */
static uint64_t held_bytes(struct wlr_surface *surface, uint64_t extra_boxes, uint64_t extra_states,
		bool skip_applied)
{
	struct wlr_surface_state *c = &surface->current;
	uint64_t boxes = extra_boxes + pending_boxes(surface) +
			state_boxes(&c->opaque, &c->input, &c->surface_damage, &c->buffer_damage) +
			(uint64_t)pixman_region32_n_rects(&surface->opaque_region) +
			(uint64_t)pixman_region32_n_rects(&surface->input_region) +
			(uint64_t)pixman_region32_n_rects(&surface->buffer_damage);
	uint64_t states = extra_states;
	struct wlr_surface_state *st;
	wl_list_for_each (st, &surface->cached, cached_state_link) {
		if (skip_applied && st->cached_state_link.prev == &surface->cached &&
				st->seq == c->seq) {
			continue;
		}
		boxes += state_boxes(
				&st->opaque, &st->input, &st->surface_damage, &st->buffer_damage);
		states++;
	}
	uint64_t bytes = states * sizeof(struct wlr_surface_state) + boxes * sizeof(pixman_box32_t);
	return bytes > SURFACE_FREE_BYTES ? bytes - SURFACE_FREE_BYTES : 0;
}

static void held_states_destroy(struct wlr_addon *addon)
{
	struct held_states *held = wl_container_of(addon, held, addon);
	wlr_addon_finish(&held->addon);
	wl_list_remove(&held->commit.link);
	client_usage_release(held->usage, SMT_RES_MEMORY, held->memory);
	client_usage_unref(held->usage);
	free(held);
}

static const struct wlr_addon_interface held_states_impl = {
	.name = "smtwc_held_states",
	.destroy = held_states_destroy,
};

/* After a state was applied (the pending one, or a cached one at the
 * parent's commit): what the surface holds now, exactly. Charges were
 * made at the requests, each at least what they could add, so this mostly
 * gives back; what a parent's commit applies is charged here, past the
 * limits (wlroots' handler is running), and the client's next request
 * meets the full account. */
static void handle_held_commit(struct wl_listener *listener, void *data)
{
	struct held_states *held = wl_container_of(listener, held, commit);
	struct wlr_surface *surface = data;
	uint64_t now = held_bytes(surface, 0, 0, true);
	if (now < held->memory) {
		client_usage_release(held->usage, SMT_RES_MEMORY, held->memory - now);
	} else if (now > held->memory) {
		smt_usage_charge_over_limits(
				&held->usage->usage, SMT_RES_MEMORY, now - held->memory);
	}
	held->memory = now;
}

/* Charges what `surface` will hold after the request being looked at
 * (at most): `extra_boxes` boxes copied into it, `extra_states` states
 * made. The record, made at a surface's first such request, watches its
 * commits: what wlroots computes there (a union of two damages can have
 * many more boxes than both) is charged exactly after it. */
static void charge_held(struct wl_resource *resource, struct request *rq, uint64_t extra_boxes,
		uint64_t extra_states)
{
	struct wlr_surface *surface = wlr_surface_from_resource(resource);
	struct wlr_addon *addon = wlr_addon_find(
			&surface->addons, core.transport, &held_states_impl);
	struct held_states *held = NULL;
	if (addon != NULL) {
		held = wl_container_of(addon, held, addon);
	}
	uint64_t want = held_bytes(surface, extra_boxes, extra_states, false);
	if (held == NULL) {
		struct wl_client *client = wl_resource_get_client(resource);
		struct smtwc_client_usage *cu = client_usage_find(client);
		if (cu == NULL || cu->client == NULL) {
			return;
		}
		held = calloc(1, sizeof(*held));
		if (held == NULL) {
			wl_client_post_no_memory(client);
			return;
		}
		held->usage = client_usage_hold(cu);
		wlr_addon_init(&held->addon, &surface->addons, core.transport, &held_states_impl);
		held->commit.notify = handle_held_commit;
		wl_signal_add(&surface->events.commit, &held->commit);
	}
	if (want <= held->memory) {
		return;
	}
	if (usage_charge(held->usage, wl_resource_get_client(resource), rq, SMT_RES_MEMORY,
			    want - held->memory)) {
		held->memory = want;
	}
}

/* wl_surface.set_opaque_region / set_input_region: the region (or the
 * infinite one) becomes the pending state's copy. */
static void check_set_region(const struct wl_protocol_logger_message *m, struct request *rq)
{
	struct wl_resource *region = m->arguments_count > 0 ?
			(struct wl_resource *)m->arguments[0].o :
			NULL;
	uint64_t boxes = region != NULL ?
			(uint64_t)pixman_region32_n_rects(wlr_region_from_resource(region)) :
			1;
	charge_held(m->resource, rq, boxes, 0);
}

static void handle_token_destroy(struct wl_listener *listener, void *data)
{
	struct charge_record *rec = wl_container_of(listener, rec, destroy);
	record_release(rec);
}

/* xdg_activation_token_v1.commit: the token lives on after its object
 * (until used, or 30 s), so it is charged as an object and its memory
 * until wlroots destroys it. */
static void check_token_commit(struct wl_resource *resource, struct request *rq)
{
	struct wlr_xdg_activation_token_v1 *token = wl_resource_get_user_data(resource);
	if (token == NULL || wl_signal_get(&token->events.destroy, handle_token_destroy) != NULL) {
		return; /* used already: wlroots posts its error */
	}
	struct wl_client *client = wl_resource_get_client(resource);
	struct smtwc_client_usage *cu = client_usage_find(client);
	if (cu == NULL || cu->client == NULL) {
		return;
	}
	struct charge_record *rec = calloc(1, sizeof(*rec));
	if (rec == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	rec->usage = client_usage_hold(cu);
	rec->destroy.notify = handle_token_destroy;
	wl_signal_add(&token->events.destroy, &rec->destroy);
	uint64_t bytes = TOKEN_BYTES + (token->app_id != NULL ? strlen(token->app_id) + 1 : 0);
	if (record_charge(rec, client, rq, SMT_RES_OBJECTS, 1)) {
		record_charge(rec, client, rq, SMT_RES_MEMORY, bytes);
	}
}

/* Copies waiting (asked, their frame not destroyed) of one client. */
struct client_copies {
	struct wl_listener client_destroy;
	int waiting;
	int refs; /* the client's, and each frame's: frames outlive the
		   * client's destroy signal */
};

struct copy_record {
	struct wl_listener destroy;
	struct client_copies *copies;
	struct smtwc_client_usage *usage; /* charged SCREENCOPY_FRAME_BYTES */
};

/* What a frame with a copy asked holds while it waits: wlroots' frame,
 * this record and the budget's (output/screencopy_budget.c), with
 * malloc's headers. Charged until the client destroys the frame. */
#define SCREENCOPY_FRAME_BYTES (sizeof(struct wlr_screencopy_frame_v1) + 160u)

static void copies_unref(struct client_copies *cc)
{
	if (--cc->refs == 0) {
		free(cc);
	}
}

static void handle_copies_client_destroy(struct wl_listener *listener, void *data)
{
	struct client_copies *cc = wl_container_of(listener, cc, client_destroy);
	wl_list_remove(&cc->client_destroy.link);
	copies_unref(cc);
}

static void handle_copy_destroy(struct wl_listener *listener, void *data)
{
	struct copy_record *rec = wl_container_of(listener, rec, destroy);
	wl_list_remove(&rec->destroy.link);
	rec->copies->waiting--;
	copies_unref(rec->copies);
	client_usage_release(rec->usage, SMT_RES_MEMORY, SCREENCOPY_FRAME_BYTES);
	client_usage_unref(rec->usage);
	free(rec);
}

/* zwlr_screencopy_frame_v1.copy / copy_with_damage: at the output's next
 * commit wlroots copies the whole output (or the frame's region) into the
 * client's buffer, once for every frame waiting: thousands of frames on
 * one wl_buffer were gigabytes of copying in one commit. A frame counts
 * from its copy until the client destroys it (grim, wf-recorder: one per
 * output at a time), and its memory is charged to the client as long. */
static void check_copy(struct wl_resource *resource, struct request *rq)
{
	if (wl_resource_get_destroy_listener(resource, handle_copy_destroy) != NULL) {
		return; /* a second copy: wlroots' error */
	}
	struct wl_client *client = wl_resource_get_client(resource);
	struct smtwc_client_usage *cu = client_usage_find(client);
	if (cu == NULL) {
		return;
	}
	struct wl_listener *l = wl_client_get_destroy_listener(
			client, handle_copies_client_destroy);
	struct client_copies *cc = NULL;
	if (l != NULL) {
		cc = wl_container_of(l, cc, client_destroy);
	} else {
		cc = calloc(1, sizeof(*cc));
		if (cc == NULL) {
			wl_client_post_no_memory(client);
			return;
		}
		cc->refs = 1;
		cc->client_destroy.notify = handle_copies_client_destroy;
		wl_client_add_destroy_listener(client, &cc->client_destroy);
	}
	if (over_limit(client, cu, rq, "client-screencopy-copies",
			    config()->client_screencopy_copies, (uint64_t)cc->waiting, 1,
			    "waiting")) {
		return;
	}
	struct copy_record *rec = calloc(1, sizeof(*rec));
	if (rec == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	if (!usage_charge(cu, client, rq, SMT_RES_MEMORY, SCREENCOPY_FRAME_BYTES)) {
		free(rec);
		return;
	}
	rec->usage = client_usage_hold(cu);
	rec->copies = cc;
	cc->refs++;
	cc->waiting++;
	rec->destroy.notify = handle_copy_destroy;
	wl_resource_add_destroy_listener(resource, &rec->destroy);
}

static bool is(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

/* Requests whose fd the compositor reads or maps on its main loop:
 * wl_shm.create_pool (libwayland maps it; the compositor reads its pages
 * whenever it draws a buffer of the pool, or writes them when it copies
 * the screen into one), zwlr_gamma_control_v1.set_gamma (wlroots reads
 * the table with read(2): O_NONBLOCK, which it sets, does not keep a read
 * of a FUSE file from waiting) and zwp_linux_buffer_params_v1.add (a
 * plane's fd; with a GPU the renderer imports it). A file on FUSE or a
 * network filesystem makes each of those a request to whoever serves it,
 * who need never answer: the session would stand still. Refused (the
 * client's error names the request and the filesystem); the fd is
 * replaced by /dev/null, which cannot be mapped and reads empty, so the
 * handler, which still runs, fails at once. */
static void check_waiting_fd(const struct wl_protocol_logger_message *m, struct request *rq,
		int arg, const char *what)
{
	if (m->arguments_count <= arg) {
		return;
	}
	int fd = m->arguments[arg].h;
	long type;
	if (!fd_on_waiting_filesystem(fd, &type)) {
		return;
	}
	char text[192];
	snprintf(text, sizeof(text),
			"%s fd is on a filesystem whose reads wait on another process "
			"or the network (type 0x%lx): not read",
			what, (unsigned long)type);
	client_usage_refuse_text(wl_resource_get_client(m->resource), request_name(rq), text);
	if (core.null_fd < 0 || dup3(core.null_fd, fd, O_CLOEXEC) < 0) {
		close(fd); /* nothing to map or read: the handler fails */
	}
}

/* wl_shm_pool.create_buffer: libwayland checks that the rows fit the pool
 * as stride x height, and only that stride >= width, in bytes. A stride
 * shorter than a row's pixels makes rows overlap and the last one run
 * past the pool by up to three rows' worth: wlroots' renderer and ours
 * read it, past the mapping (the compositor died of SIGSEGV on a 1000x8
 * ARGB buffer of stride 1000, session 35). Refused before the buffer is
 * made. Not on the compositor's own connections: Xwayland makes one for
 * every depth-16 pixmap (XRGB8888 named, 16-bit rows: its
 * shm_format_for_depth tests an enum with #ifdef), and ending its
 * connection would end every X program; the frame leaves such a buffer
 * out instead (output/paint_direct.h, buffer_rows_fit). */
static void check_shm_stride(const struct wl_protocol_logger_message *m, struct request *rq)
{
	if (m->arguments_count < 6) {
		return;
	}
	int32_t width = m->arguments[2].i, stride = m->arguments[4].i;
	uint32_t format = m->arguments[5].u;
	int bpp = drm_format_bytes_per_pixel(drm_format_of_shm(format));
	if (width <= 0 || stride < 0 || (int64_t)stride >= (int64_t)width * bpp) {
		return; /* libwayland's own checks refuse the rest */
	}
	struct wl_client *client = wl_resource_get_client(m->resource);
	pid_t pid = 0;
	wl_client_get_credentials(client, &pid, NULL, NULL);
	if (pid == getpid()) {
		return;
	}
	char text[160];
	snprintf(text, sizeof(text),
			"stride %d is less than width %d x %d bytes a pixel (format 0x%x): its rows "
			"would be read past the pool",
			(int)stride, (int)width, bpp, (unsigned)format);
	client_usage_refuse_text(client, request_name(rq), text);
}

static void handle_protocol_message(void *data, enum wl_protocol_logger_type type,
		const struct wl_protocol_logger_message *m)
{
	if (type != WL_PROTOCOL_LOGGER_REQUEST) {
		return;
	}
	const char *name = m->message->name;
	/* Most requests are none of these: one character decides. */
	if (strchr("odacfs", name[0]) == NULL) {
		return;
	}
	struct wl_resource *resource = m->resource;
	const char *class = wl_resource_get_class(resource);
	struct request rq = { .class = class, .name = name };
	if (is(name, "offer")) {
		if (is(class, "wl_data_source") || is(class, "zwp_primary_selection_source_v1") ||
				is(class, "zwlr_data_control_source_v1")) {
			check_offer(resource, m->arguments_count > 0 ? m->arguments[0].s : NULL,
					&rq);
		}
	} else if (is(class, "wl_surface")) {
		if (is(name, "damage") || is(name, "damage_buffer")) {
			coalesce_damage(resource, name[6] == '_', &rq);
		} else if (is(name, "frame")) {
			check_frame(resource, &rq);
		} else if (is(name, "commit")) {
			check_commit(resource, &rq);
			/* At most: the pending state's copy into the current
			 * state or a new cached one (a state too), the surface's
			 * clipped regions and its buffer damage from it. */
			charge_held(resource, &rq,
					3 * pending_boxes(wlr_surface_from_resource(resource)), 1);
		} else if (is(name, "set_opaque_region") || is(name, "set_input_region")) {
			check_set_region(m, &rq);
		}
	} else if (is(class, "wl_region")) {
		if (is(name, "add") || is(name, "subtract")) {
			check_region(resource, &rq);
		}
	} else if (is(class, "zwlr_screencopy_frame_v1")) {
		if (is(name, "copy") || is(name, "copy_with_damage")) {
			check_copy(resource, &rq);
		}
	} else if (is(class, "xdg_activation_token_v1") && is(name, "commit")) {
		check_token_commit(resource, &rq);
	} else if (is(class, "wl_shm_pool") && is(name, "create_buffer")) {
		check_shm_stride(m, &rq);
	} else if (is(class, "wl_shm") && is(name, "create_pool")) {
		check_waiting_fd(m, &rq, 1, "the pool's");
	} else if (is(class, "zwlr_gamma_control_v1") && is(name, "set_gamma")) {
		check_waiting_fd(m, &rq, 0, "the gamma table's");
	} else if (is(class, "zwp_linux_buffer_params_v1") && is(name, "add")) {
		check_waiting_fd(m, &rq, 0, "the plane's");
	}
}

void core_request_limits_init(struct smtwc_transport *transport)
{
	core.transport = transport;
	core.null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	core.logger = wl_display_add_protocol_logger(
			transport->server->display, handle_protocol_message, NULL);
}

void core_request_limits_finish(struct smtwc_transport *transport)
{
	if (core.logger != NULL) {
		wl_protocol_logger_destroy(core.logger);
		core.logger = NULL;
	}
	if (core.null_fd >= 0) {
		close(core.null_fd);
		core.null_fd = -1;
	}
	core.transport = NULL;
}

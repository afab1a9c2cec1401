/* Strings wlroots keeps for a client's requests: see request_strings.h. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_input_method_v2.h>
#include <wlr/types/wlr_text_input_v3.h>
#include "compositor/server.h"
#include "compositor/ring/client_usage.h"
#include "compositor/ring/ring_types.h"
#include "compositor/ring/request_strings.h"

/* What malloc adds to each string it holds (its header, rounded). */
#define STRING_OVERHEAD 16u

/* What one object (a text input, a layer surface's wl_surface) has had
 * charged for the strings it holds. */
struct strings_record {
	struct wl_listener destroy;
	struct smtwc_client_usage *usage; /* a reference */
	uint64_t memory;
};

static struct wl_protocol_logger *logger;

static uint64_t string_bytes(const char *s)
{
	return s != NULL ? strlen(s) + 1 + STRING_OVERHEAD : 0;
}

static void handle_record_destroy(struct wl_listener *listener, void *data)
{
	struct strings_record *rec = wl_container_of(listener, rec, destroy);
	wl_list_remove(&rec->destroy.link);
	client_usage_release(rec->usage, SMT_RES_MEMORY, rec->memory);
	client_usage_unref(rec->usage);
	free(rec);
}

/* The object's charge made `want` bytes: the difference charged (or the
 * client ended, naming the limit) or given back. */
static void charge_strings(struct wl_resource *resource, const char *request, uint64_t want)
{
	struct wl_listener *l = wl_resource_get_destroy_listener(resource, handle_record_destroy);
	struct strings_record *rec = NULL;
	struct wl_client *client = wl_resource_get_client(resource);
	if (l != NULL) {
		rec = wl_container_of(l, rec, destroy);
	} else {
		struct smtwc_client_usage *cu = client_usage_find(client);
		if (cu == NULL || cu->client == NULL || want == 0) {
			return;
		}
		rec = calloc(1, sizeof(*rec));
		if (rec == NULL) {
			wl_client_post_no_memory(client);
			return;
		}
		rec->usage = client_usage_hold(cu);
		rec->destroy.notify = handle_record_destroy;
		wl_resource_add_destroy_listener(resource, &rec->destroy);
	}
	if (want < rec->memory) {
		client_usage_release(rec->usage, SMT_RES_MEMORY, rec->memory - want);
		rec->memory = want;
		return;
	}
	uint64_t more = want - rec->memory;
	if (more == 0) {
		return;
	}
	if (rec->usage->pid == getpid()) { /* our own connection: never refused */
		smt_usage_charge_over_limits(&rec->usage->usage, SMT_RES_MEMORY, more);
	} else {
		struct smt_usage_refusal why;
		if (!smt_usage_charge(&rec->usage->usage, SMT_RES_MEMORY, more, &why)) {
			client_usage_refuse(client, request, &why);
			return;
		}
	}
	rec->memory = want;
}

static void handle_protocol_message(void *data, enum wl_protocol_logger_type type,
		const struct wl_protocol_logger_message *m)
{
	if (type != WL_PROTOCOL_LOGGER_REQUEST) {
		return;
	}
	const char *name = m->message->name;
	if (name[0] != 'c' && name[0] != 's' && name[0] != 'g') {
		return;
	}
	const char *class = wl_resource_get_class(m->resource);
	if (strcmp(class, "zwlr_layer_shell_v1") == 0 && strcmp(name, "get_layer_surface") == 0 &&
			m->arguments_count >= 5 && m->arguments[1].o != NULL) {
		/* wlroots keeps the namespace with the layer surface; charged
		 * to the wl_surface it stands on (a second layer surface on it
		 * replaces the charge), until that goes */
		charge_strings((struct wl_resource *)m->arguments[1].o,
				"zwlr_layer_shell_v1.get_layer_surface",
				string_bytes(m->arguments[4].s));
		return;
	}
	if (strcmp(class, "zwp_input_method_v2") == 0 && strcmp(name, "commit") == 0) {
		/* (NULL: made unavailable, its state freed; the handler
		 * returns at once) */
		struct wlr_input_method_v2 *im = wl_resource_get_user_data(m->resource);
		if (im != NULL) {
			free(im->current.commit_text);
			free(im->current.preedit.text);
			im->current.commit_text = NULL;
			im->current.preedit.text = NULL;
		}
		return;
	}
	if (strcmp(class, "zwp_text_input_v3") != 0) {
		return;
	}
	struct wlr_text_input_v3 *ti = wl_resource_get_user_data(m->resource);
	if (ti == NULL) {
		return;
	}
	if (strcmp(name, "set_surrounding_text") == 0 && m->arguments_count > 0) {
		/* the new pending string beside the current one */
		charge_strings(m->resource, "zwp_text_input_v3.set_surrounding_text",
				string_bytes(m->arguments[0].s) +
						string_bytes(ti->current.surrounding.text));
	} else if (strcmp(name, "commit") == 0) {
		/* the pending string stays, and the current state gets a copy */
		charge_strings(m->resource, "zwp_text_input_v3.commit",
				2 * string_bytes(ti->pending.surrounding.text));
	}
}

void request_strings_init(struct smtwc_transport *transport)
{
	logger = wl_display_add_protocol_logger(
			transport->server->display, handle_protocol_message, NULL);
}

void request_strings_finish(struct smtwc_transport *transport)
{
	(void)transport;
	if (logger != NULL) {
		wl_protocol_logger_destroy(logger);
		logger = NULL;
	}
}

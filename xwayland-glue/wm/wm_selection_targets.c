/*
 * An X selection's targets for wlroots' X window manager, their names
 * asked ahead (docs/x11.md, "The window manager's events"; red team,
 * session 28).
 *
 * Each time an X client takes the clipboard or PRIMARY while an X window
 * has the focus, wlroots 0.15 reads the owner's TARGETS (a GetProperty of
 * _WL_SELECTION, up to 4096 atoms) and then asks the name of each atom
 * with a GetAtomName and waits for its reply before asking the next
 * (xwayland/selection/incoming.c, source_get_targets), from the
 * compositor's main loop. An X client that takes its selection again each
 * time it is asked, with 4096 targets, had the compositor wait for 4096
 * round trips per take: another client's wl_display round trip went from
 * 0.05 to 34 ms (p50), and beside four busy X clients (Xwayland serving
 * the window manager between their slices) to 3.4 s.
 *
 * We stand between wlroots and libxcb as wm_event_pacer.c does (the
 * executable's definitions come first; xcb_get_property and its reply are
 * wm_property_fetch.c's, which tells this module of each). On the window manager's
 * connection, when the reply to a GetProperty of _WL_SELECTION of at most
 * 4096 units (the TARGETS read; data is read with 0x1fffffff) brings
 * atoms, the names wlroots will ask (every atom but UTF8_STRING, TEXT,
 * TARGETS and TIMESTAMP, which it names itself) are asked at once, up to
 * NAMES_AHEAD requests in flight; each xcb_get_atom_name wlroots then
 * makes for the next of them takes the cookie asked ahead instead of
 * sending a new request, so its replies are there when it waits: a list
 * costs a few round trips, not one per atom. Anything else passes through
 * untouched; an xcb_get_atom_name for another atom ends the list (its
 * unused replies discarded).
 *
 * A list of more names than [limits] source-mime-types (256 by default:
 * a Wayland client may offer no more) is not read at all: wlroots is
 * handed the reply as if the property held no atoms, so the X selection
 * is not offered to Wayland clients (the seat would refuse it anyway,
 * input/selection_limits.h), and its names are never asked. This count
 * includes names without a '/', which wlroots then leaves out: a bound a
 * little stricter than the seat's. With it, a list is asked in one batch
 * (NAMES_AHEAD >= the default limit), and a take of the selection costs
 * the compositor two round trips, like a title change.
 *
 * A list with STRING but neither UTF8_STRING nor TEXT (Motif and Xt
 * programs' clipboard: nedit offers TARGETS, TIMESTAMP and STRING) left
 * Wayland clients nothing: wlroots names UTF8_STRING and TEXT as MIME
 * types itself and drops every other name without a '/', STRING among
 * them, so such a copy never reached a Wayland program (session 40). The
 * name of STRING in such a list is given to wlroots as "text/plain", as
 * wlroots names TEXT (whose encoding is the owner's choice too); wlroots
 * keeps the atom beside the name, so a paste of "text/plain" asks the
 * owner for STRING. STRING is ISO 8859-1: ASCII arrives as it is, other
 * characters as their Latin-1 bytes.
 */
#define _GNU_SOURCE
#include "xwayland-glue/wm/wm_selection_targets.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/util/log.h>
#include <wlr/xwayland.h>
#include <xcb/xcb.h>

#include "compositor/log_limit.h"
#include "compositor/server.h"
#include "common/dlsym_next.h"

/* What one GetProperty of 4096 units can hold. */
#define TARGETS_MAX 4096
/* Replies in flight at most (an atom's name is up to 64 KiB): a list
 * within the default source-mime-types in one batch. */
#define NAMES_AHEAD 256

enum {
	ATOM_WL_SELECTION,
	ATOM_UTF8_STRING,
	ATOM_TEXT,
	ATOM_TARGETS,
	ATOM_TIMESTAMP,
	ATOM_COUNT,
};

static struct {
	struct wlr_xwayland *wlr;
	xcb_connection_t *conn; /* whose atoms are known; NULL: none */
	xcb_atom_t atoms[ATOM_COUNT];
	unsigned targets_sequence; /* the TARGETS read under way; 0: none */
	/* The list under way: names[next .. asked) asked, in flight. */
	xcb_atom_t list[TARGETS_MAX];
	xcb_get_atom_name_cookie_t cookie[TARGETS_MAX];
	unsigned count, next, asked;
	/* The list under way names STRING "text/plain"; the cookie of that
	 * name, once wlroots has asked it (0: none). */
	bool string_as_text;
	unsigned string_sequence;
	uint64_t lists, names_ahead, discarded, largest;
	struct log_limit refused_log;
	struct log_limit list_log;
} targets;

static xcb_get_atom_name_cookie_t (*real_get_atom_name)(xcb_connection_t *c, xcb_atom_t atom);
static xcb_get_atom_name_reply_t *(*real_get_atom_name_reply)(
		xcb_connection_t *c, xcb_get_atom_name_cookie_t cookie, xcb_generic_error_t **e);

static void find_real(void)
{
	if (real_get_atom_name == NULL) {
		dlsym_next(&real_get_atom_name, "xcb_get_atom_name");
	}
	if (real_get_atom_name_reply == NULL) {
		dlsym_next(&real_get_atom_name_reply, "xcb_get_atom_name_reply");
	}
}

static bool is_window_manager(xcb_connection_t *c)
{
	return targets.wlr != NULL && targets.wlr->server != NULL && c != NULL &&
			targets.wlr->server->wm_fd[0] >= 0 &&
			xcb_get_file_descriptor(c) == targets.wlr->server->wm_fd[0];
}

/* The list under way given up: the replies of names wlroots did not take
 * are dropped (on a broken connection there is nothing to drop). */
static void end_list(xcb_connection_t *c)
{
	if (c == targets.conn && !xcb_connection_has_error(c)) {
		for (unsigned i = targets.next; i < targets.asked; i++) {
			xcb_discard_reply(c, targets.cookie[i].sequence);
			targets.discarded++;
		}
	}
	targets.count = targets.next = targets.asked = 0;
	targets.string_as_text = false;
}

/* The window manager's connection, first seen (or a new one after an
 * Xwayland restart): the atoms wlroots' TARGETS read names. One round
 * trip, all requests before any reply. False: pass through. */
static bool adopt(xcb_connection_t *c)
{
	if (c == targets.conn) {
		return targets.atoms[ATOM_WL_SELECTION] != XCB_ATOM_NONE;
	}
	targets.count = targets.next = targets.asked = 0; /* another connection's */
	targets.targets_sequence = 0;
	targets.conn = c;
	static const char *const names[ATOM_COUNT] = {
		[ATOM_WL_SELECTION] = "_WL_SELECTION",
		[ATOM_UTF8_STRING] = "UTF8_STRING",
		[ATOM_TEXT] = "TEXT",
		[ATOM_TARGETS] = "TARGETS",
		[ATOM_TIMESTAMP] = "TIMESTAMP",
	};
	xcb_intern_atom_cookie_t cookie[ATOM_COUNT];
	for (unsigned i = 0; i < ATOM_COUNT; i++) {
		cookie[i] = xcb_intern_atom(c, 0, (uint16_t)strlen(names[i]), names[i]);
	}
	bool all = true;
	for (unsigned i = 0; i < ATOM_COUNT; i++) {
		xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(c, cookie[i], NULL);
		targets.atoms[i] = r != NULL ? r->atom : XCB_ATOM_NONE;
		all = all && targets.atoms[i] != XCB_ATOM_NONE;
		free(r);
	}
	if (!all) {
		targets.atoms[ATOM_WL_SELECTION] = XCB_ATOM_NONE; /* pass through */
	}
	return all;
}

static bool named_by_wlroots(xcb_atom_t atom)
{
	return atom == targets.atoms[ATOM_UTF8_STRING] || atom == targets.atoms[ATOM_TEXT] ||
			atom == targets.atoms[ATOM_TARGETS] ||
			atom == targets.atoms[ATOM_TIMESTAMP];
}

/* Keeps NAMES_AHEAD names in flight, sent at once. */
static void ask_ahead(xcb_connection_t *c)
{
	find_real();
	unsigned before = targets.asked;
	while (targets.asked < targets.count && targets.asked - targets.next < NAMES_AHEAD) {
		targets.cookie[targets.asked] = real_get_atom_name(c, targets.list[targets.asked]);
		targets.asked++;
	}
	if (targets.asked != before) {
		targets.names_ahead += targets.asked - before;
		xcb_flush(c);
	}
}

/* Each list (an X selection taken), at a bounded rate: the totals. */
static void log_totals(void)
{
	wlr_log(WLR_INFO,
			"X selections' targets: %llu lists, %llu names asked ahead (largest list "
			"%llu), %llu not taken",
			(unsigned long long)targets.lists, (unsigned long long)targets.names_ahead,
			(unsigned long long)targets.largest, (unsigned long long)targets.discarded);
}

static void maybe_log(void)
{
	uint64_t left_out;
	if (log_limit_allow(&targets.list_log, &left_out)) {
		log_totals();
	}
}

/* More names than a Wayland client may offer: the reply made to hold
 * none (wlroots then offers nothing to Wayland clients). */
static bool refuse_long_list(xcb_get_property_reply_t *reply)
{
	const struct smtwc_server *server = targets.wlr->data;
	unsigned limit = server != NULL ? (unsigned)server->config.limits.source_mime_types : 256;
	if (targets.count <= limit) {
		return false;
	}
	reply->type = XCB_ATOM_NONE;
	uint64_t left_out;
	if (log_limit_allow(&targets.refused_log, &left_out)) {
		wlr_log(WLR_ERROR,
				"an X selection's TARGETS not read: %u names (limit "
				"source-mime-types=%u; %llu refused in all, %llu not logged "
				"before)",
				targets.count, limit,
				(unsigned long long)targets.refused_log.events,
				(unsigned long long)left_out);
	}
	targets.count = 0;
	return true;
}

static void start_list(xcb_connection_t *c, xcb_get_property_reply_t *reply)
{
	end_list(c);
	const xcb_atom_t *value = xcb_get_property_value(reply);
	uint32_t n = reply->value_len < TARGETS_MAX ? reply->value_len : TARGETS_MAX;
	bool string = false, text = false;
	for (uint32_t i = 0; i < n; i++) {
		string = string || value[i] == XCB_ATOM_STRING;
		text = text || value[i] == targets.atoms[ATOM_UTF8_STRING] ||
				value[i] == targets.atoms[ATOM_TEXT];
		if (!named_by_wlroots(value[i])) {
			targets.list[targets.count++] = value[i];
		}
	}
	if (targets.count == 0 || refuse_long_list(reply)) {
		return;
	}
	targets.string_as_text = string && !text;
	targets.lists++;
	if (targets.count > targets.largest) {
		targets.largest = targets.count;
	}
	ask_ahead(c);
	maybe_log();
}

void wm_selection_targets_property_asked(xcb_connection_t *c, xcb_atom_t property,
		uint32_t long_offset, uint32_t long_length, xcb_get_property_cookie_t cookie)
{
	if (is_window_manager(c) && adopt(c) && property == targets.atoms[ATOM_WL_SELECTION] &&
			long_offset == 0 && long_length <= TARGETS_MAX) {
		targets.targets_sequence = cookie.sequence;
	}
}

void wm_selection_targets_property_reply(xcb_connection_t *c, xcb_get_property_cookie_t cookie,
		xcb_get_property_reply_t *reply)
{
	if (targets.targets_sequence != 0 && cookie.sequence == targets.targets_sequence &&
			c == targets.conn) {
		targets.targets_sequence = 0;
		if (reply != NULL && reply->type == XCB_ATOM_ATOM && reply->format == 32) {
			start_list(c, reply);
		}
	}
}

xcb_get_atom_name_cookie_t xcb_get_atom_name(xcb_connection_t *c, xcb_atom_t atom)
{
	find_real();
	if (targets.next < targets.asked && c == targets.conn) {
		if (targets.list[targets.next] == atom) {
			xcb_get_atom_name_cookie_t cookie = targets.cookie[targets.next++];
			if (atom == XCB_ATOM_STRING && targets.string_as_text) {
				targets.string_sequence = cookie.sequence;
			}
			if (targets.asked - targets.next <= NAMES_AHEAD / 2) {
				ask_ahead(c);
			}
			if (targets.next == targets.count) {
				targets.count = targets.next = targets.asked = 0;
				targets.string_as_text = false;
			}
			return cookie;
		}
		end_list(c); /* wlroots asks something else: we guessed wrong */
	}
	return real_get_atom_name(c, atom);
}

/* The name of STRING in a list that has no other text target, as the
 * owner's only text: "text/plain". The reply is wlroots' to free. */
static xcb_get_atom_name_reply_t *named_text_plain(xcb_get_atom_name_reply_t *reply)
{
	static const char name[] = "text/plain";
	const uint16_t len = sizeof(name) - 1;
	xcb_get_atom_name_reply_t *named = malloc(sizeof(*named) + len);
	if (named == NULL) {
		return reply;
	}
	*named = *reply;
	named->name_len = len;
	named->length = (len + 3) / 4;
	memcpy(named + 1, name, len);
	free(reply);
	return named;
}

xcb_get_atom_name_reply_t *xcb_get_atom_name_reply(
		xcb_connection_t *c, xcb_get_atom_name_cookie_t cookie, xcb_generic_error_t **e)
{
	find_real();
	xcb_get_atom_name_reply_t *reply = real_get_atom_name_reply(c, cookie, e);
	if (targets.string_sequence != 0 && cookie.sequence == targets.string_sequence &&
			c == targets.conn) {
		targets.string_sequence = 0;
		if (reply != NULL) {
			reply = named_text_plain(reply);
		}
	}
	return reply;
}

void wm_selection_targets_init(struct wlr_xwayland *wlr)
{
	targets.wlr = wlr;
}

void wm_selection_targets_forget_connection(void)
{
	targets.conn = NULL;
	targets.count = targets.next = targets.asked = 0;
	targets.targets_sequence = 0;
	targets.string_as_text = false;
	targets.string_sequence = 0;
}

void wm_selection_targets_finish(void)
{
	if (targets.lists > 0) {
		log_totals();
	}
	memset(&targets, 0, sizeof(targets));
}

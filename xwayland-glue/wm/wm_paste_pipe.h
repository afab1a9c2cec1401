/*
 * A paste from an X program into a Wayland client, held back while the
 * client's pipe is full (wm_paste_pipe.c; docs/x11.md "The clipboard
 * between X and Wayland").
 *
 * wlroots 0.15's window manager writes each piece of an X selection
 * (the whole of a small one, each chunk of an INCR transfer) to the
 * Wayland client's non-blocking pipe as soon as it has fetched it, and
 * takes EAGAIN for an error: it ends the transfer, closes the pipe, and
 * the client has pasted a prefix. Standing between wlroots and libxcb
 * (wm_event_pacer.c hands wlroots its events), this module gives wlroots
 * the event that makes it write only once the pipe can take a byte; the
 * rest of the window manager's events go on meanwhile. An INCR transfer
 * wlroots gives up half-way (the client closed its pipe) is taken to its
 * end here, so that the X owner is not left waiting. A paste whose owner
 * goes (its window or client: XFixes) is given its end, so that the client
 * is not left waiting for the rest.
 *
 * It defines wlr_data_source_send, wlr_primary_selection_source_send,
 * xcb_convert_selection, xcb_destroy_window and xcb_delete_property for
 * the whole compositor
 * (the executable's definitions come first in the lookup order), to learn
 * which pipe belongs to which of wlroots' requestor windows and when a
 * transfer ends; they call through to the real ones unchanged, except that
 * the window of a transfer that has had chunks is destroyed once its
 * owner has put the last one.
 *
 * Each paste is charged to the X client owning its selection: past
 * `x11-client-pastes` of one owner under way, a new one is refused.
 */
#ifndef SMT_WM_PASTE_PIPE_H
#define SMT_WM_PASTE_PIPE_H

#include <stdbool.h>
#include <wayland-server-core.h>
#include <xcb/xcb.h>

#include "compositor/extension.h"

struct smtwc_limits_config;

/* Pastes followed at once (those whose owner is still being taken to its
 * end give their place up first); past this many, a new one goes
 * unguarded (as wlroots alone would do it) and the log says so. */
#define WM_PASTE_PIPES_MAX 64

/* wake: called when a held event may go, to make the window manager's
 * handler run again (wm_event_pacer_wake). limits: read at every paste. */
void wm_paste_pipe_init(struct wl_event_loop *loop, const struct smtwc_limits_config *limits,
		void (*wake)(void));

/* `smtctl stats`' "x11_pastes": slots, pastes per owning X client, refused. */
void wm_paste_pipe_stats(const struct smtwc_stats_out *out);

/* ev is about to be handed to wlroots on connection c (the window
 * manager's). True: it would make wlroots write to a pipe that is full;
 * this module keeps it and gives it back through wm_paste_pipe_take_ready
 * once the pipe has room (or its reader has gone). */
bool wm_paste_pipe_hold(xcb_connection_t *c, xcb_generic_event_t *ev);

/* A held event whose pipe now has room, the caller's to hand to wlroots
 * (and wlroots' to free); NULL if none. */
xcb_generic_event_t *wm_paste_pipe_take_ready(void);

bool wm_paste_pipe_has_ready(void);

/* wlroots asks for (and gets) a property of a window: its reading of an
 * owner's answer tells whether chunks are to come (INCR). Called from
 * wm_property_fetch.c's xcb_get_property and xcb_get_property_reply. */
void wm_paste_pipe_property_asked(xcb_connection_t *c, uint8_t delete_, xcb_window_t window,
		xcb_atom_t property, xcb_get_property_cookie_t cookie);
void wm_paste_pipe_property_reply(xcb_connection_t *c, xcb_get_property_cookie_t cookie,
		const xcb_get_property_reply_t *reply);

/* The window manager's connection c ends: every held event is freed,
 * every pipe forgotten. */
void wm_paste_pipe_forget(xcb_connection_t *c);

/* At the compositor's end. */
void wm_paste_pipe_finish(void);

#endif

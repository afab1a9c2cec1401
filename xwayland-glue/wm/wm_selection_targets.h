/*
 * The names of an X selection's targets asked ahead, for wlroots' X window
 * manager, and the name of STRING where it is the only text target
 * (wm_selection_targets.c). The module defines xcb_get_property,
 * xcb_get_property_reply, xcb_get_atom_name and xcb_get_atom_name_reply
 * for the whole compositor; it acts on the window manager's connection
 * only.
 */
#ifndef SMT_WM_SELECTION_TARGETS_H
#define SMT_WM_SELECTION_TARGETS_H

#include <stdint.h>
#include <xcb/xcb.h>

struct wlr_xwayland;

/* After wlr_xwayland_create: wlr->server->wm_fd[0] names the window
 * manager's connection. */
void wm_selection_targets_init(struct wlr_xwayland *wlr);

/* Xwayland (re)started: its window manager's connection is a new one,
 * perhaps at the old one's address. */
void wm_selection_targets_forget_connection(void);

/* wlroots sent a GetProperty (wm_property_fetch.c defines it): a read of
 * _WL_SELECTION's TARGETS is remembered by its cookie. */
void wm_selection_targets_property_asked(xcb_connection_t *c, xcb_atom_t property,
		uint32_t long_offset, uint32_t long_length, xcb_get_property_cookie_t cookie);

/* Its reply, before wlroots reads it: a TARGETS list's names are asked
 * ahead, or a list too long is emptied. */
void wm_selection_targets_property_reply(xcb_connection_t *c, xcb_get_property_cookie_t cookie,
		xcb_get_property_reply_t *reply);

/* After wlr_xwayland_destroy: logs what it did, forgets everything. */
void wm_selection_targets_finish(void);

#endif

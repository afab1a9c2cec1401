/*
 * A dropped drag keeps its focus for the listeners that read it.
 *
 * wlroots 0.15.1 ends a drag by clearing its focus (the `focus` signal,
 * drag->focus NULL) and only then emitting `destroy`. Its X window manager
 * (xwayland/selection/dnd.c) still listens to `focus` then, and takes that
 * last change for the pointer leaving the X window: after the XdndDrop it
 * sends XdndLeave and forgets the window, so the target's conversion of
 * XdndSelection that follows is refused ("no xwayland surface focused")
 * and its XdndFinished ignored. A drop from a Wayland program on an X
 * program never delivered anything, and the Wayland source never heard
 * the drop end (session 38). 0.15.0 emitted `destroy` first, and the
 * window manager, which detaches there, kept the window until the source
 * went, as it means to.
 *
 * So once a drag has dropped, its focus listeners are parked on a list of
 * our own, where the clearing does not reach them, and put back as the drag
 * is destroyed (each detaches itself there, from the drag's list).
 * wl_data_device.leave, which the clearing sends to a Wayland target, is
 * not a listener and still goes out.
 */
#ifndef SMTWC_DROP_FOCUS_H
#define SMTWC_DROP_FOCUS_H

struct wlr_drag;

/* From the seat's start_drag: follow this drag until it is destroyed. */
void drop_focus_follow(struct wlr_drag *drag);

#endif

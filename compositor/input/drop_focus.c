/* A dropped drag keeps its focus for its listeners: see drop_focus.h. */
#include "compositor/input/drop_focus.h"

#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/util/log.h>

struct drop_focus {
	struct wlr_drag *drag;
	struct wl_listener drop;
	struct wl_listener destroy;
	struct wl_list parked; /* the drag's focus listeners, once dropped */
};

static void drop_focus_handle_drop(struct wl_listener *listener, void *data)
{
	(void)data;
	struct drop_focus *df = wl_container_of(listener, df, drop);
	struct wl_list *focus = &df->drag->events.focus.listener_list;
	wl_list_insert_list(&df->parked, focus);
	wl_list_init(focus);
}

static void drop_focus_handle_destroy(struct wl_listener *listener, void *data)
{
	(void)data;
	struct drop_focus *df = wl_container_of(listener, df, destroy);
	/* The drag's focus is cleared by now; each parked listener leaves
	 * the drag's list as it hears `destroy` (or is there when the drag is
	 * freed, as it would have been). */
	wl_list_insert_list(&df->drag->events.focus.listener_list, &df->parked);
	wl_list_remove(&df->drop.link);
	wl_list_remove(&df->destroy.link);
	free(df);
}

void drop_focus_follow(struct wlr_drag *drag)
{
	struct drop_focus *df = calloc(1, sizeof(*df));
	if (df == NULL) {
		wlr_log(WLR_ERROR, "no memory to follow a drag (a drop on an X window may fail)");
		return;
	}
	df->drag = drag;
	wl_list_init(&df->parked);
	df->drop.notify = drop_focus_handle_drop;
	wl_signal_add(&drag->events.drop, &df->drop);
	df->destroy.notify = drop_focus_handle_destroy;
	wl_signal_add(&drag->events.destroy, &df->destroy);
}

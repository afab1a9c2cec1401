#include <stdio.h>
#include <stdlib.h>
#include "tests/tools/x11_round_trip.h"

bool x11_round_trip(xcb_connection_t *c)
{
	xcb_get_input_focus_reply_t *r = xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL);
	if (!r) {
		return false;
	}
	free(r);
	xcb_generic_event_t *ev;
	while ((ev = xcb_poll_for_event(c))) {
		bool error = ev->response_type == 0;
		if (error) {
			const xcb_generic_error_t *e = (const xcb_generic_error_t *)ev;
			printf("X error %u (major %u) on sequence %u\n", e->error_code,
					e->major_code, ev->sequence);
		}
		free(ev);
		if (error) {
			return false;
		}
	}
	return !xcb_connection_has_error(c);
}

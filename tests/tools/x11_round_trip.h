/*
 * The X tools' check that a connection still works: one round trip, and
 * no X error queued before its reply (an error is printed, so a test's
 * log names the request that failed).
 */
#ifndef SMTWC_TESTS_TOOLS_X11_ROUND_TRIP_H
#define SMTWC_TESTS_TOOLS_X11_ROUND_TRIP_H

#include <stdbool.h>
#include <xcb/xcb.h>

bool x11_round_trip(xcb_connection_t *c);

#endif

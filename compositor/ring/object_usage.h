/*
 * Every Wayland object a client has, counted against it, its process and
 * its uid (client-objects, process-objects, uid-objects). libwayland
 * bounds neither how many objects a connection makes nor what it costs to
 * destroy them: one client held a million wl_regions (180 MiB of the
 * compositor's memory), and when it was killed libwayland destroyed them
 * all in one dispatch (another client's round trip took 341 ms on the
 * loaded machine). An object the account cannot take ends the
 * client with an error naming the limit. Objects of the compositor's own
 * connection (Xwayland's) are counted, never refused.
 */
#ifndef SMTWC_OBJECT_USAGE_H
#define SMTWC_OBJECT_USAGE_H

struct smtwc_transport;

void object_usage_init(struct smtwc_transport *transport);
void object_usage_finish(struct smtwc_transport *transport);

#endif

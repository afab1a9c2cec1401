/*
 * Every Wayland object a client has, counted against it, its process and
 * its uid (client-objects, process-objects, uid-objects). libwayland
 * bounds neither how many objects a connection makes nor what it costs to
 * destroy them: one client held a million wl_regions (180 MiB of the
 * compositor's memory), and when it was killed libwayland destroyed them
 * all in one dispatch (another client's round trip took 341 ms on the
 * loaded machine). An object the account cannot take ends the
 * client with an error naming the limit. Objects of the compositor's own
 * connection (Xwayland's) are counted, never refused. Each object is
 * charged its memory too: 2,000 wl_regions grew the compositor's heap
 * 0.2 MiB with nothing counted (session 36; 238 bytes each measured).
 */
#ifndef SMTWC_OBJECT_USAGE_H
#define SMTWC_OBJECT_USAGE_H

struct smtwc_transport;

/* Memory an object is charged: libwayland's struct wl_resource with its
 * listeners and map entry, our record of it, and a small struct of its
 * own (a wl_region's pixman region; a wl_region measured 238 bytes of
 * heap, mallinfo2). Objects with more behind them are charged the rest
 * where they are made (surfaces, canvases, screencopy frames). */
#define OBJECT_USAGE_BYTES 256u

void object_usage_init(struct smtwc_transport *transport);
void object_usage_finish(struct smtwc_transport *transport);

#endif

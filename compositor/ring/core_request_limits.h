/*
 * What wlroots keeps or computes for core Wayland requests, bounded and
 * counted. wlroots' own handlers of these requests reach no code of ours,
 * and each grows without bound with a client's requests (session 24's red
 * team): every wl_data_source.offer keeps a copy of its MIME type (50,000
 * of 4 KB held 149 MB, uncounted); every wl_surface.damage_buffer unions
 * a rectangle into the pending damage, each union as slow as the region
 * is long (300,000 1x1 rectangles before one commit: 64 s of the
 * compositor's CPU, another client's round trip p50 56 ms); likewise
 * wl_region.add; a synchronized subsurface keeps each commit until its
 * parent commits; frame callbacks of a surface that is not shown pile up;
 * a committed xdg-activation token lives 30 s after its object is gone;
 * every screencopy frame waiting would copy the whole output at the next
 * commit (output/screencopy_budget.c lets only a few copy per commit, and
 * this limit bounds how many one client keeps waiting); a region set as a surface's opaque or input region is copied
 * into each of its states (pending, current, every cached commit).
 *
 * libwayland calls a display's protocol loggers with every request after
 * decoding it and before its handler runs, so one logger sees them all
 * (wl_display_add_protocol_logger, libwayland 1.21). It acts before the
 * handler: damage past `surface-damage-rects` becomes its bounding box
 * (nothing visible is lost: a superset of the damage is repainted), and
 * the handler's union is then short; committed frame callbacks past
 * `surface-frame-callbacks` are answered at once, as a shown frame would;
 * memory (MIME types, large regions, what a surface's states hold past
 * its first 4 KiB, activation tokens) is charged to the
 * client's account; a request past a per-object limit (`source-mime-types`,
 * `source-mime-bytes`, `region-rects`, `surface-cached-commits`,
 * `surface-frame-callbacks` before a commit, `client-screencopy-copies`)
 * or the account's ends the client with wl_display's implementation error
 * naming the request and the limit, and a log line naming its pid. A logger cannot stop the handler:
 * the refused request itself still runs, then libwayland destroys the
 * client at the end of that dispatch (one request past a limit, never
 * more). The compositor's own connection (Xwayland's) is charged, never
 * refused.
 */
#ifndef SMTWC_CORE_REQUEST_LIMITS_H
#define SMTWC_CORE_REQUEST_LIMITS_H

struct smtwc_transport;

void core_request_limits_init(struct smtwc_transport *transport);
void core_request_limits_finish(struct smtwc_transport *transport);

#endif

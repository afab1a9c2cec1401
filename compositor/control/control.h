/*
 * The control socket: $XDG_RUNTIME_DIR/<WAYLAND_DISPLAY>.smtwc, exported to
 * children as SMTWC_CONTROL. One request per line, one JSON object per
 * answer line. smtctl is its client; scripts may speak it directly:
 *
 *   clients            {"clients":[{pid, app_id, priority, ...}, ...]}
 *   stats              {"server":{...}, "render":{...}, "scheduler":{...}, "clients":[...]}
 *   set KEY VALUE      {"ok":true} or {"error":"..."}  (scheduler settings)
 *   get                {"scheduler":{...}}
 *   render culled|scene {"ok":true,...}  (occlusion culling, or wlroots'
 *                      scene renderer to compare against; repaints all)
 *   windows            {"windows":[{pid, app_id, title, x, y, width, height,
 *                      states, configure_pending, popups}, ...]}
 *   seat               {"seat":{cursor, keyboard focus, inhibitors, ...}}
 *   output add|remove, input swipe|pinch|tablet   headless test facilities
 *
 * A bad request gets {"error": "..."}; the connection stays open.
 */
#ifndef SMTWC_CONTROL_H
#define SMTWC_CONTROL_H

#include <stdbool.h>

struct smtwc_server;

bool control_init(struct smtwc_server *server);
void control_finish(struct smtwc_server *server);

#endif

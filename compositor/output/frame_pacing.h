/*
 * Idle outputs do no work. wlroots 0.15's headless backend sends frame
 * events at 60 Hz whether or not anything changed; answering each with a
 * render attempt and a walk over every surface for frame callbacks costs
 * ~3% of a core with 300 clients connected and nothing happening. A frame
 * is skipped when the output has no damage and no surface committed since
 * the output's last frame: a frame callback can only be asked for by a
 * commit, so none can be waiting.
 */
#ifndef SMTWC_FRAME_PACING_H
#define SMTWC_FRAME_PACING_H

#include <stdbool.h>
#include "compositor/server.h"

struct smtwc_output;

void frame_pacing_init(struct smtwc_server *server);
/* True when the output's frame event needs rendering and frame callbacks. */
bool frame_pacing_needs_frame(struct smtwc_output *output);

#endif

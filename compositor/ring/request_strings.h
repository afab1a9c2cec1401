/*
 * Strings wlroots 0.15 keeps for a client's requests (text-input-v3,
 * input-method-v2, layer-shell), bounded and charged from a protocol
 * logger that runs before each request's handler (session 38's red team).
 *
 * - zwp_input_method_v2.commit: wlroots 0.15's handler moves the pending
 *   commit and pre-edit strings into the current state without freeing
 *   the current ones (later wlroots frees them): every commit of an input
 *   method lost up to two 4 KB strings for good, whatever its client did
 *   next (1,000 commits grew the heap 8 MB, 3,000 24 MB, nothing charged,
 *   nothing given back at the client's end). The current strings are
 *   freed here just before the handler replaces them, as later wlroots
 *   does.
 * - zwp_text_input_v3: each object keeps its pending surrounding text and,
 *   from a commit on, a copy in its current state (up to 2 x 4 KB), where
 *   the object is charged 256 bytes (object_usage.h): 1,000 text inputs
 *   grew the heap 8.7 MB against 0.28 MB charged. What the two strings
 *   hold is charged to the client as memory, replaced at each request
 *   that changes them, given back with the object.
 * - zwlr_layer_shell_v1.get_layer_surface: wlroots keeps the namespace
 *   (up to 4 KB) with the layer surface: 500 held grew the heap 2.9 MB
 *   against 0.8 MB charged. Its bytes are charged to the wl_surface the
 *   layer surface stands on, until that goes.
 *
 * An input method's own strings need no charge: one input method per
 * seat is served (input/text_input.c), the others are made unavailable
 * and wlroots frees their state at once; the live one holds at most four
 * strings.
 */
#ifndef SMTWC_REQUEST_STRINGS_H
#define SMTWC_REQUEST_STRINGS_H

struct smtwc_transport;

void request_strings_init(struct smtwc_transport *transport);
void request_strings_finish(struct smtwc_transport *transport);

#endif

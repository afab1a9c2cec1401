/*
 * Finds the input events in what the X server writes to one client (its
 * replies, events and errors, fed in the order they were written, in
 * arbitrary pieces), for the input boost (xserver/input_boost.c).
 *
 * The stream is the X server's own output, so it is well formed; the
 * scanner still only follows lengths and never reads past what it was fed.
 * It starts with the setup reply (8-byte header, length in 4-byte units at
 * bytes 6-7, protocol major version 11 at bytes 2-3, which gives the byte
 * order), then 32-byte messages: errors (0), replies (1, plus 4 x the
 * length at bytes 4-7), events; GenericEvent (35) also carries a length.
 *
 * Input is what a person did: a core KeyPress, KeyRelease, ButtonPress,
 * ButtonRelease or MotionNotify, or an XInput 2 device event (a
 * GenericEvent with evtype 2-6 or touch 18-20 that is as long as an
 * XIDeviceEvent: Xwayland's other GenericEvents, Present's, are shorter;
 * XI2 raw events go to whoever listens on the root and are not input to
 * that client), or an XInput 1 device event (DeviceKeyPress,
 * DeviceKeyRelease, DeviceButtonPress, DeviceButtonRelease,
 * DeviceMotionNotify: the extension's first event plus 1-5, once that is
 * known: x11_xi1_query.h; old programs that take tablets or extra devices
 * through XInput 1, such as GTK 2's extension events). Events made with
 * SendEvent (bit 0x80) are not input.
 */
#ifndef SMT_X11_INPUT_SCAN_H
#define SMT_X11_INPUT_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct x11_input_scan {
	uint64_t skip;   /* bytes of the current message left to pass */
	uint8_t hdr[12]; /* header bytes collected so far */
	uint8_t have;
	uint8_t setup_done;
	uint8_t msb_first;
	/* XInput 1: the extension's first event, 0 while unknown (set by the
	 * caller); the sequence number of the client's QueryExtension for it,
	 * whose reply gives it (`learned`, 0 until then). */
	uint8_t xi1_first;
	uint8_t learned;
	bool want_reply;
	uint16_t want_seq;
	/* The question was answered with an error, or the X server went past
	 * it without a reply: its sequence number comes round again every
	 * 65,536 requests on another reply, which is never the answer. */
	bool missed;
};

/* Input events among the n bytes. */
unsigned x11_input_scan_feed(struct x11_input_scan *s, const uint8_t *p, size_t n);

#endif

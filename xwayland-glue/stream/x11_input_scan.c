/* The output scanner of x11_input_scan.h: collects each message's first 12
 * bytes (type, length, XI2 evtype), then skips to the next. */
#include "xwayland-glue/stream/x11_input_scan.h"

#include <stdbool.h>

#include "xwayland-glue/stream/x11_card.h"

enum {
	X_ERROR = 0,
	X_REPLY = 1,
	X_KEY_PRESS = 2,
	X_MOTION_NOTIFY = 6,
	X_KEYMAP_NOTIFY = 11, /* the one message without a sequence number */
	X_GENERIC_EVENT = 35,
	X_SEND_EVENT_BIT = 0x80,
	XI2_KEY_PRESS = 2,
	XI2_MOTION = 6,
	XI2_TOUCH_BEGIN = 18,
	XI2_TOUCH_END = 20,
	/* sizeof(xXIDeviceEvent) is 80: 12 units past the 32-byte event */
	XI2_DEVICE_EVENT_MIN_LENGTH = 12,
	/* XInput 1: DeviceKeyPress .. DeviceMotionNotify past its first event;
	 * extension events are 64-127 */
	XI1_DEVICE_KEY_PRESS = 1,
	XI1_DEVICE_MOTION_NOTIFY = 5,
	X_FIRST_EXTENSION_EVENT = 64,
	X_LAST_EVENT = 127,
};

static uint32_t card16(const struct x11_input_scan *c, const uint8_t *b)
{
	return x11_card16(c->msb_first, b);
}

static uint32_t card32(const struct x11_input_scan *c, const uint8_t *b)
{
	return x11_card32(c->msb_first, b);
}

static uint8_t header_wanted(const struct x11_input_scan *s)
{
	return s->setup_done ? 12 : 8;
}

/* The header is complete: is it input, and how long is the message? */
static unsigned header_done(struct x11_input_scan *s, uint64_t *len)
{
	const uint8_t *h = s->hdr;
	if (!s->setup_done) {
		s->setup_done = 1;
		/* major version 11 reads as 0x0b00 in the other byte order */
		s->msb_first = h[2] == 0 && h[3] == 11;
		*len = 8 + 4 * (uint64_t)card16(s, h + 6);
		return 0;
	}
	uint8_t type = h[0] & 0x7f;
	bool sent = h[0] & X_SEND_EVENT_BIT;
	*len = 32;
	if (h[0] == X_REPLY || type == X_GENERIC_EVENT)
		*len += 4 * (uint64_t)card32(s, h + 4);
	if (s->want_reply && type != X_KEYMAP_NOTIFY) {
		/* the X server's sequence number against the question's: equal,
		 * or past it (by less than half the 16-bit circle) */
		uint16_t past = (uint16_t)(card16(s, h + 2) - s->want_seq);
		if (h[0] == X_REPLY && past == 0) {
			/* QueryExtension's reply: present at byte 8, first event at 10 */
			s->want_reply = false;
			if (h[8] == 1 && h[10] >= X_FIRST_EXTENSION_EVENT &&
					h[10] <= X_LAST_EVENT - XI1_DEVICE_MOTION_NOTIFY)
				s->learned = h[10];
		} else if ((h[0] == X_ERROR && past == 0) || (past != 0 && past < 0x8000)) {
			s->want_reply = false;
			s->missed = true;
		}
	}
	if (h[0] == X_ERROR || h[0] == X_REPLY || sent)
		return 0;
	if (s->xi1_first && type >= s->xi1_first + XI1_DEVICE_KEY_PRESS &&
			type <= s->xi1_first + XI1_DEVICE_MOTION_NOTIFY)
		return 1;
	if (type >= X_KEY_PRESS && type <= X_MOTION_NOTIFY)
		return 1;
	if (type == X_GENERIC_EVENT && card32(s, h + 4) >= XI2_DEVICE_EVENT_MIN_LENGTH) {
		uint32_t evtype = card16(s, h + 8);
		if ((evtype >= XI2_KEY_PRESS && evtype <= XI2_MOTION) ||
				(evtype >= XI2_TOUCH_BEGIN && evtype <= XI2_TOUCH_END))
			return 1;
	}
	return 0;
}

unsigned x11_input_scan_feed(struct x11_input_scan *s, const uint8_t *p, size_t n)
{
	unsigned input = 0;
	while (n > 0) {
		if (s->skip > 0) {
			size_t step = s->skip < n ? (size_t)s->skip : n;
			s->skip -= step;
			p += step;
			n -= step;
			continue;
		}
		uint8_t want = header_wanted(s);
		while (s->have < want && n > 0) {
			s->hdr[s->have++] = *p++;
			n--;
		}
		if (s->have < want)
			break;
		uint64_t len;
		input += header_done(s, &len);
		s->skip = len - s->have;
		s->have = 0;
	}
	return input;
}

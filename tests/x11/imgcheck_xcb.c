/*
 * XCB part of x11-imgcheck: xcb_put_image(_checked), xcb_get_image
 * (_unchecked), the generic reply calls, discarding a reply, and errors as
 * request checks and as events -- on Xlib's connection (Xlib owns the event
 * queue, errors reach its handler) and on a connection of its own.
 */
#include "tests/x11/imgcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <X11/Xlib-xcb.h>
#include <xcb/xcb.h>
#include <xcb/xcbext.h>

enum {
	PW = 700,
	PH = 520,
	DEPTH = 24
};

static void hash_error(struct hash *h, const char *what, xcb_generic_error_t *e)
{
	if (e)
		printf("xcb-error %s code=%d major=%d minor=%d\n", what, e->error_code,
				e->major_code, e->minor_code);
	hash_u64(h, e ? 1u + e->error_code + 256u * e->major_code + 65536u * e->minor_code : 0);
	free(e);
}

static void hash_reply(struct hash *h, xcb_get_image_reply_t *r, int w, int hgt)
{
	if (!r) {
		hash_u64(h, 0xdead);
		return;
	}
	hash_u64(h, r->depth);
	hash_u64(h, r->length);
	hash_u64(h, r->visual);
	const uint8_t *d = xcb_get_image_data(r);
	int len = xcb_get_image_data_length(r);
	size_t stride = hgt ? (size_t)len / (size_t)hgt : 0;
	for (int y = 0; y < hgt; y++) /* only the pixels; row padding is undefined */
		hash_bytes(h, d + (size_t)y * stride, (size_t)w * 4);
	free(r);
}

/* Puts, gets and errors on connection c into a fresh 24-bit pixmap. */
static void exercise(xcb_connection_t *c, struct rng *r, struct hash *h, bool own_queue)
{
	xcb_screen_t *s = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
	xcb_pixmap_t p = xcb_generate_id(c), gone = xcb_generate_id(c);
	xcb_gcontext_t gc = xcb_generate_id(c);
	xcb_create_pixmap(c, DEPTH, p, s->root, PW, PH);
	xcb_create_pixmap(c, DEPTH, gone, s->root, 16, 16);
	uint32_t nogfx = 0;
	xcb_create_gc(c, gc, p, XCB_GC_GRAPHICS_EXPOSURES, &nogfx);
	xcb_free_pixmap(c, gone);

	for (int i = 0; i < loops / 2; i++) {
		int w = rng_range(r, 0, 1) ? rng_range(r, 1, 60) : rng_range(r, 150, PW);
		int hh = rng_range(r, 1, PH);
		size_t n = (size_t)w * 4 * (size_t)hh;
		uint8_t *data = malloc(n);
		for (size_t k = 0; k < n; k += 8) {
			uint64_t v = rng_next(r);
			memcpy(data + k, &v, n - k < 8 ? n - k : 8);
		}
		int16_t x = (int16_t)rng_range(r, -50, PW - 10),
			y = (int16_t)rng_range(r, -50, PH - 10);
		if (rng_range(r, 0, 5) == 0) {
			xcb_void_cookie_t ck = xcb_put_image_checked(c, XCB_IMAGE_FORMAT_Z_PIXMAP,
					p, gc, (uint16_t)w, (uint16_t)hh, x, y, 0, DEPTH,
					(uint32_t)n, data);
			memset(data, 0xee, n); /* reuse at once */
			hash_error(h, "put-checked-ok", xcb_request_check(c, ck));
		} else {
			xcb_put_image(c, XCB_IMAGE_FORMAT_Z_PIXMAP, p, gc, (uint16_t)w,
					(uint16_t)hh, x, y, 0, DEPTH, (uint32_t)n, data);
			memset(data, 0xee, n);
		}
		free(data);
	}

	/* A checked put to a freed pixmap: the error comes back to the cookie. */
	size_t n = 300 * 4 * 200;
	uint8_t *data = calloc(1, n);
	xcb_void_cookie_t ck = xcb_put_image_checked(c, XCB_IMAGE_FORMAT_Z_PIXMAP, gone, gc, 300,
			200, 0, 0, 0, DEPTH, (uint32_t)n, data);
	hash_error(h, "put-checked-bad", xcb_request_check(c, ck));
	/* An unchecked one: the error is an event (Xlib's handler on Xlib's
	 * connection). */
	xcb_put_image(c, XCB_IMAGE_FORMAT_Z_PIXMAP, gone, gc, 300, 200, 0, 0, 0, DEPTH, (uint32_t)n,
			data);
	free(data);

	/* Reads: the reply call, the generic poll, a discard, errors. */
	xcb_get_image_cookie_t g1 = xcb_get_image(
			c, XCB_IMAGE_FORMAT_Z_PIXMAP, p, 0, 0, PW, PH, ~0u);
	xcb_get_image_cookie_t g2 = xcb_get_image(
			c, XCB_IMAGE_FORMAT_Z_PIXMAP, p, 10, 20, 300, 200, 0x00ff00ffu);
	xcb_get_image_cookie_t g3 = xcb_get_image(
			c, XCB_IMAGE_FORMAT_Z_PIXMAP, p, 0, 0, 400, 400, ~0u);
	xcb_discard_reply(c, g3.sequence);
	xcb_get_image_cookie_t gbad = xcb_get_image(
			c, XCB_IMAGE_FORMAT_Z_PIXMAP, gone, 0, 0, 300, 300, ~0u);
	xcb_get_image_cookie_t gout = xcb_get_image_unchecked(
			c, XCB_IMAGE_FORMAT_Z_PIXMAP, p, PW - 100, 0, 300, 300, ~0u);
	xcb_generic_error_t *e = NULL;
	/* Out of order on purpose: the second reply first. */
	void *rep = NULL;
	xcb_flush(c);
	while (!xcb_poll_for_reply(c, g2.sequence, &rep, &e))
		;
	hash_error(h, "get-poll", e);
	hash_reply(h, rep, 300, 200);
	e = NULL;
	hash_reply(h, xcb_get_image_reply(c, g1, &e), PW, PH);
	hash_error(h, "get-full", e);
	e = NULL;
	hash_reply(h, xcb_get_image_reply(c, gbad, &e), 0, 0);
	hash_error(h, "get-bad", e);
	e = NULL;
	hash_reply(h, xcb_get_image_reply(c, gout, &e), 0, 0);
	hash_error(h, "get-unchecked", e);

	if (own_queue) {
		/* Errors of unchecked requests arrive as events, in order. */
		free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL));
		xcb_generic_event_t *ev;
		while ((ev = xcb_poll_for_event(c))) {
			if (ev->response_type == 0)
				hash_error(h, "event", (xcb_generic_error_t *)ev);
			else
				free(ev);
		}
	}
	xcb_free_gc(c, gc);
	xcb_free_pixmap(c, p);
}

void check_xcb_on_xlib(Display *dpy)
{
	struct rng r = { 77 };
	struct hash h;
	hash_init(&h);
	exercise(XGetXCBConnection(dpy), &r, &h, false);
	XSync(dpy, False);
	errors_hash(&h, "xcb-on-xlib");
	section_print("xcb-on-xlib", &h);
}

void check_xcb_pure(void)
{
	xcb_connection_t *c = xcb_connect(NULL, NULL);
	if (xcb_connection_has_error(c)) {
		fprintf(stderr, "x11-imgcheck: xcb_connect failed\n");
		exit(1);
	}
	struct rng r = { 78 };
	struct hash h;
	hash_init(&h);
	exercise(c, &r, &h, true);
	xcb_disconnect(c);
	section_print("xcb-pure", &h);
}

/*
 * A wl_shm buffer of one colour, for the test tools that only need a
 * window to be there (a panel, a popup's window and menu, the probe).
 */
#ifndef SMT_TESTS_TOOLS_SOLID_BUFFER_H
#define SMT_TESTS_TOOLS_SOLID_BUFFER_H

#include <stdint.h>
#include <wayland-client.h>

/* A w x h XRGB8888 buffer filled with argb; its pool and memfd are let go
 * at once (the buffer keeps the memory). Exits naming `who` if the memory
 * cannot be had: a tool without its window has nothing to test. */
struct wl_buffer *solid_buffer(struct wl_shm *shm, int w, int h, uint32_t argb, const char *who);

#endif

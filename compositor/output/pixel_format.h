/*
 * Bytes a pixel, by the DRM fourcc that names a buffer's format: the one
 * table both the renderer (a buffer's rows fit its memory, paint_direct.c)
 * and the wl_shm request check (a stride shorter than a row is refused,
 * ring/core_request_limits.c) read. wl_shm format codes are DRM fourccs,
 * but for ARGB8888 and XRGB8888 (0 and 1): drm_format_of_shm converts.
 */
#ifndef SMTWC_OUTPUT_PIXEL_FORMAT_H
#define SMTWC_OUTPUT_PIXEL_FORMAT_H

#include <stdint.h>

/* 2 for the 16-bit RGB565/BGR565, 3 for RGB888/BGR888, 4 for every other
 * format the renderer offers (wayland-info; libwayland refuses the rest). */
int drm_format_bytes_per_pixel(uint32_t drm_format);
uint32_t drm_format_of_shm(uint32_t wl_shm_format);

#endif

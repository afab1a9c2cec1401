#include <drm_fourcc.h>
#include <wayland-server-protocol.h>
#include "compositor/output/pixel_format.h"

int drm_format_bytes_per_pixel(uint32_t drm_format)
{
	switch (drm_format) {
	case DRM_FORMAT_RGB565:
	case DRM_FORMAT_BGR565:
		return 2;
	case DRM_FORMAT_RGB888:
	case DRM_FORMAT_BGR888:
		return 3;
	default:
		return 4;
	}
}

uint32_t drm_format_of_shm(uint32_t wl_shm_format)
{
	switch (wl_shm_format) {
	case WL_SHM_FORMAT_ARGB8888:
		return DRM_FORMAT_ARGB8888;
	case WL_SHM_FORMAT_XRGB8888:
		return DRM_FORMAT_XRGB8888;
	default:
		return wl_shm_format;
	}
}

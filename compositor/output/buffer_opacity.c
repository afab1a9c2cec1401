#include "compositor/output/buffer_opacity.h"

static void buffer_opacity_addon_destroy(struct wlr_addon *addon)
{
	struct buffer_opacity *opacity = wl_container_of(addon, opacity, addon);
	pixman_region32_fini(&opacity->translucent);
	wlr_addon_finish(addon);
}

static const struct wlr_addon_interface buffer_opacity_addon_impl = {
	.name = "smtwc_buffer_opacity",
	.destroy = buffer_opacity_addon_destroy,
};

void buffer_opacity_attach(struct buffer_opacity *opacity, struct wlr_buffer *buffer)
{
	pixman_region32_init_rect(&opacity->translucent, 0, 0, (unsigned)buffer->width,
			(unsigned)buffer->height);
	wlr_addon_init(&opacity->addon, &buffer->addons, buffer, &buffer_opacity_addon_impl);
}

struct buffer_opacity *buffer_opacity_get(struct wlr_buffer *buffer)
{
	struct wlr_addon *addon = wlr_addon_find(
			&buffer->addons, buffer, &buffer_opacity_addon_impl);
	if (addon == NULL) {
		return NULL;
	}
	struct buffer_opacity *opacity = wl_container_of(addon, opacity, addon);
	return opacity;
}

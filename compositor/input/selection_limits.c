#include "compositor/input/selection_limits.h"

#include "compositor/desktop/wayland_string.h"

#include <stdio.h>
#include <string.h>

bool selection_mime_types_allowed(const struct wl_array *mime_types,
		const struct smtwc_limits_config *limits, char *why, size_t why_size)
{
	size_t count = 0;
	unsigned long long bytes = 0;
	const char *const *type;
	wl_array_for_each (type, mime_types) {
		size_t len = *type != NULL ? strnlen(*type, WAYLAND_STRING_MAX_BYTES + 1) : 0;
		if (len > WAYLAND_STRING_MAX_BYTES) {
			snprintf(why, why_size,
					"a MIME type of more than %d bytes (more than one "
					"Wayland message carries)",
					WAYLAND_STRING_MAX_BYTES);
			return false;
		}
		count++;
		bytes += len + 1;
	}
	/* The same measure as a Wayland client's offers: types, and bytes with
	 * each one's NUL. */
	if (count > (size_t)limits->source_mime_types) {
		snprintf(why, why_size, "%zu MIME types (limit source-mime-types=%d)", count,
				limits->source_mime_types);
		return false;
	}
	if (bytes > (unsigned long long)limits->source_mime_bytes) {
		snprintf(why, why_size, "%llu bytes of MIME types (limit source-mime-bytes=%d)",
				bytes, limits->source_mime_bytes);
		return false;
	}
	return true;
}

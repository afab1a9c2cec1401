#include "compositor/ring/privileged_globals.h"

#include <string.h>

#include "compositor/ring/client_usage.h"
#include "compositor/ring/process_confined.h"

static const char *const privileged[] = {
	"zwlr_screencopy_manager_v1",       /* every output's pixels */
	"zwlr_export_dmabuf_manager_v1",    /* the same, as dmabufs */
	"zwlr_data_control_manager_v1",     /* the clipboard, unfocused */
	"zwp_virtual_keyboard_manager_v1",  /* keys into any window */
	"zwlr_virtual_pointer_manager_v1",  /* clicks into any window */
	"zwp_input_method_manager_v2",      /* every text field's text */
	"zwlr_foreign_toplevel_manager_v1", /* every window: titles, close */
	"zwlr_layer_shell_v1",              /* surfaces over everything */
	"zwlr_input_inhibit_manager_v1",    /* all input to itself */
	"zwlr_output_manager_v1",           /* outputs' modes and layout */
	"zwlr_output_power_manager_v1",     /* outputs off */
	"zwlr_gamma_control_manager_v1",    /* outputs' colours */
	"org_kde_kwin_idle",                /* when the user is away */
};

bool privileged_interface(const char *name)
{
	for (size_t i = 0; i < sizeof(privileged) / sizeof(privileged[0]); i++) {
		if (strcmp(name, privileged[i]) == 0) {
			return true;
		}
	}
	return false;
}

static bool filter_global(
		const struct wl_client *client, const struct wl_global *global, void *data)
{
	(void)data;
	if (!privileged_interface(wl_global_get_interface(global)->name)) {
		return true;
	}
	/* libwayland's filter takes a const client; finding its record and
	 * its credentials only read it. */
	struct wl_client *c = (struct wl_client *)client;
	const struct smtwc_client_usage *cu = client_usage_find(c);
	if (cu != NULL) {
		return !cu->confined;
	}
	/* No record (out of memory at its creation): judged now. */
	pid_t pid = 0;
	wl_client_get_credentials(c, &pid, NULL, NULL);
	char why[64];
	return !process_confined("/proc", "self", pid, why, sizeof(why));
}

void privileged_globals_init(struct wl_display *display)
{
	wl_display_set_global_filter(display, filter_global, NULL);
}

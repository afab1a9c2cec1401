#!/usr/bin/env python3
"""wayland-info lists every global the compositor promises."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402

EXPECTED = [
    "wl_compositor",
    "wl_subcompositor",
    "wl_shm",
    "wl_seat",
    "wl_output",
    "wl_data_device_manager",
    "zwp_primary_selection_device_manager_v1",
    "zxdg_output_manager_v1",
    "wp_viewporter",
    "wp_presentation",
    "zwlr_screencopy_manager_v1",
    "zwlr_virtual_pointer_manager_v1",
    "zwp_virtual_keyboard_manager_v1",
    "zwlr_layer_shell_v1",
    "xdg_wm_base",
    "xdg_activation_v1",
    "zxdg_decoration_manager_v1",
    # What desktop tools expect (issue 13), as sway 1.7 offers them
    "zwp_text_input_manager_v3",
    "zwp_input_method_manager_v2",
    "zwp_pointer_constraints_v1",
    "zwp_relative_pointer_manager_v1",
    "zwp_idle_inhibit_manager_v1",
    "org_kde_kwin_idle",
    "zwlr_input_inhibit_manager_v1",
    "zwlr_gamma_control_manager_v1",
    "zwlr_foreign_toplevel_manager_v1",
    "zwp_keyboard_shortcuts_inhibit_manager_v1",
    "zwp_pointer_gestures_v1",
    "zwp_tablet_manager_v2",
    "zxdg_exporter_v1",
    "zxdg_importer_v1",
    "zxdg_exporter_v2",
    "zxdg_importer_v2",
    "zwlr_output_power_manager_v1",
]


def test(h):
    with Session(h) as s:
        res = s.run(["wayland-info"], timeout=10)
        found = re.findall(r"interface: '([A-Za-z0-9_]+)'", res.stdout)
        check(found, f"could not parse any global from wayland-info output:\n{res.stdout[:2000]}")
        log(f"globals: {', '.join(found)}")
        missing = [g for g in EXPECTED if g not in found]
        check(not missing, f"globals missing from wayland-info: {', '.join(missing)}\n"
                           f"(found: {', '.join(found)})")
        outputs = found.count("wl_output")
        check(outputs == 1, f"expected exactly 1 wl_output on a default headless run, got {outputs}")
        if "zwp_linux_dmabuf_v1" in found:
            log("note: zwp_linux_dmabuf_v1 offered (GPU renderer?)")

    # WLR_HEADLESS_OUTPUTS=2 gives two outputs.
    with Session(h, "two-outputs", outputs=2) as s:
        res = s.run(["wayland-info"], timeout=10)
        found = re.findall(r"interface: '([A-Za-z0-9_]+)'", res.stdout)
        outputs = found.count("wl_output")
        check(outputs == 2, f"WLR_HEADLESS_OUTPUTS=2: expected 2 wl_output globals, got {outputs}")


harness.main(test)

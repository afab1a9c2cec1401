"""Session methods for X programs (Session(x11=True)): the compositor's
Xwayland, its ring statistics, and X windows as xdotool and xwininfo see
them."""

import os
import re

from .checks import TestFailure, check
from .images import Rect
from .programs import build_program


def _x11ring_fields(line):
    out = {}
    for kv in line.split():
        k, _, v = kv.partition("=")
        out[k] = int(v) if v.isdigit() else v
    return out



class X11Mixin:
    # -- X clients (Session(x11=True)) ------------------------------------------

    def xwayland_pid(self):
        """Pid of the Xwayland this compositor runs, or None while none runs.
        wlroots double-forks it, so it is not the compositor's child: it is
        the Xwayland process in the compositor's session (the harness starts
        the compositor with setsid, so that session id is the compositor's
        pid and nothing of other tests is in it)."""
        if self.compositor is None or not self.compositor.alive():
            return None
        sid = self.compositor.pid
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    comm_rest = f.read()
            except OSError:
                continue
            lpar, rpar = comm_rest.find("("), comm_rest.rfind(")")
            fields = comm_rest[rpar + 2:].split()
            # fields: state ppid pgrp session ...
            if comm_rest[lpar + 1:rpar] == "Xwayland" and len(fields) > 3 \
                    and int(fields[3]) == sid and fields[0] != "Z":
                return int(entry)
        return None

    def x11ring_closed(self):
        """The X connections Xwayland has closed, from its log (one dict per
        connection: comm, transport ("ring" or "socket"), requests,
        ring_bytes, fd_messages, ... as ints where numeric)."""
        out = []
        for line in self.stderr_text().splitlines():
            m = re.search(r"smt-x11ring: closed: (.*)$", line)
            if m:
                out.append(_x11ring_fields(m.group(1)))
        return out

    def x11ring_stats(self):
        """The live X connections of this session's Xwayland, as
        `smt-x11run --stats` prints them (list of dicts, see x11ring_closed)."""
        res = self.run([build_program("SMT_X11RUN", "xwayland-glue/smt-x11run"), "--stats"],
                       timeout=10.0, env={"LD_PRELOAD": ""})
        return [_x11ring_fields(line) for line in res.stdout.splitlines() if line.strip()]

    def x_focus(self):
        """The X input focus (a window id) as the window manager set it, or
        None (no focus, or xdotool failed)."""
        res = self.run(["xdotool", "getwindowfocus"], timeout=10.0, check_rc=False)
        out = res.stdout.strip()
        return int(out) if res.returncode == 0 and out.isdigit() else None

    def x_search(self, *criteria):
        """X window ids (ints) that `xdotool search --onlyvisible criteria`
        finds, e.g. x_search("--classname", "xeyes")."""
        check(self.x_display, "x_search needs Session(x11=True)")
        res = self.run(["xdotool", "search", "--onlyvisible"] + list(criteria),
                       timeout=10.0, check_rc=False)
        return [int(w) for w in res.stdout.split()]

    def wait_x_window(self, *criteria, timeout=15.0):
        """Wait for exactly one viewable X window matching criteria (see
        x_search); returns its id."""
        found = self.wait_until(lambda: self.x_search(*criteria), timeout=timeout,
                                what=f"a viewable X window ({' '.join(criteria)})",
                                interval=0.2)
        check(len(found) == 1, f"{len(found)} X windows match {criteria}: {found}")
        return found[0]

    def x_client_list(self):
        """The root's _NET_CLIENT_LIST as `xprop -root` reads it: window ids
        (ints) in its order, repeats kept; [] when the property is not set."""
        check(self.x_display, "x_client_list needs Session(x11=True)")
        res = self.run(["xprop", "-root", "-notype", "_NET_CLIENT_LIST"], timeout=10.0)
        _, _, ids = res.stdout.partition("#")
        return [int(w, 16) for w in re.findall(r"0x[0-9a-fA-F]+", ids)]

    def x_window_info(self, wid):
        """What xwininfo says of an X window: a dict with x, y (outer
        top-left on the root, as xwininfo's "Absolute upper-left"), width and
        height (inside the X border), border (width), viewable and
        override_redirect (bools)."""
        res = self.run(["xwininfo", "-id", str(wid)], timeout=10.0)
        keys = {"x": "Absolute upper-left X", "y": "Absolute upper-left Y", "width": "Width",
                "height": "Height", "border": "Border width"}
        info = {}
        for k, key in keys.items():
            m = re.search(r"^\s*" + re.escape(key) + r":\s*(-?\d+)", res.stdout, re.M)
            check(m, f"xwininfo -id {wid}: no '{key}' in:\n{res.stdout}")
            info[k] = int(m.group(1))
        info["viewable"] = "Map State: IsViewable" in res.stdout
        info["override_redirect"] = "Override Redirect State: yes" in res.stdout
        return info

    def x_override_redirect_windows(self, min_size=1):
        """Viewable override-redirect X windows (menus, tooltips, x11perf's
        windows) at least min_size wide and high: {id: x_window_info}."""
        out = {}
        for wid in self.x_search("--name", ""):
            try:
                info = self.x_window_info(wid)
            except TestFailure:
                continue  # gone meanwhile
            if info["viewable"] and info["override_redirect"] \
                    and min(info["width"], info["height"]) >= min_size:
                out[wid] = info
        return out

    def x_geometry(self, wid):
        """The area an X window covers on the root, its X border included
        (that is what Xwayland draws into the window's surface): a Rect."""
        i = self.x_window_info(wid)
        return Rect(i["x"], i["y"], i["width"] + 2 * i["border"], i["height"] + 2 * i["border"])

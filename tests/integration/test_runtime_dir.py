#!/usr/bin/env python3
"""Where the session's sockets live: XDG_RUNTIME_DIR must be ours alone.

The attack (session 41): as root, smtwc started in a directory owned by
uid nobody (or one anybody may write): nobody unlinked wayland-0 and bound
a socket of its own there; every client started after that (a terminal
with a root shell among them) would have taken nobody for its compositor,
and smtctl nobody's control socket for ours. And scripts/session.sh, with
no XDG_RUNTIME_DIR, took /tmp/smtwc-runtime-UID whoever had made it: a
squatter's directory was chmod'ed by root but stayed the squatter's.

Checked here: smtwc refuses to start (exit 1, the directory and the rule
named, nothing created in it) in a directory another uid owns, one with
group or other permissions, a symlink to another uid's directory, a file,
and with none set; scripts/runtime-dir.sh (what session.sh sources)
keeps the usual name only when it is the user's own directory with mode
700 and otherwise makes a fresh private one, touching nothing of the
squatter's. A private directory is what every other test starts in."""
import os
import shutil
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import check, log  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
NOBODY = 65534


def refused(h, runtime, what):
    """smtwc with XDG_RUNTIME_DIR=runtime (None: unset) exits 1 at once,
    naming why, and leaves no socket behind."""
    env = dict(os.environ)
    env.pop("WAYLAND_DISPLAY", None)
    env.pop("XDG_RUNTIME_DIR", None)
    if runtime is not None:
        env["XDG_RUNTIME_DIR"] = runtime
    p = subprocess.Popen([h.smtwc, "--backend", "headless", "-c", "/dev/null"], env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=60)  # a hang bound, not a measure
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        check(False, f"{what}: smtwc started (still running); stdout:\n{out.decode()[-500:]}")
    err = err.decode("utf-8", "replace")
    check(p.returncode == 1 and "refusing to start" in err,
          f"{what}: exit {p.returncode}, expected 1 with 'refusing to start'; "
          f"stderr:\n{err[-1500:]}")
    check(b"WAYLAND_DISPLAY=" not in out, f"{what}: smtwc announced a display")
    if runtime is not None and os.path.isdir(runtime):
        left = os.listdir(runtime)
        check(not left, f"{what}: smtwc left {left} in {runtime}")
    log(f"{what}: refused ({err.strip().splitlines()[-1]})")
    return err


def compositor_refuses(h, tmp):
    mine = os.path.join(tmp, "mine-755")
    os.mkdir(mine, 0o755)
    os.chmod(mine, 0o755)  # (the umask may have taken bits away)
    err = refused(h, mine, "our own directory, mode 755")
    check(mine in err and "mode 755" in err, f"the message names neither {mine} nor its mode")
    group = os.path.join(tmp, "mine-770")
    os.mkdir(group)
    os.chmod(group, 0o770)
    refused(h, group, "our own directory, mode 770")
    afile = os.path.join(tmp, "a-file")
    open(afile, "w").close()
    refused(h, afile, "a file")
    refused(h, None, "XDG_RUNTIME_DIR unset")
    if os.geteuid() != 0:
        log("not root: the other-uid cases are left out (CI runs as root)")
        return
    theirs = os.path.join(tmp, "theirs")
    os.mkdir(theirs)
    os.chown(theirs, NOBODY, NOBODY)
    os.chmod(theirs, 0o700)
    err = refused(h, theirs, "nobody's directory, mode 700 (root may still write it)")
    check(f"owner uid {NOBODY}" in err, "the message does not name the owner")
    os.chmod(theirs, 0o777)
    refused(h, theirs, "nobody's directory, mode 777")
    link = os.path.join(tmp, "link-to-theirs")
    os.symlink(theirs, link)
    refused(h, link, "a symlink to nobody's directory")


def session_script(h, tmp):
    """scripts/runtime-dir.sh with TMPDIR=tmp and no XDG_RUNTIME_DIR: the
    directory it exports, and what it printed."""
    env = dict(os.environ, TMPDIR=tmp)
    env.pop("XDG_RUNTIME_DIR", None)
    r = subprocess.run(["sh", "-c", '. scripts/runtime-dir.sh && printf "%s" "$XDG_RUNTIME_DIR"'],
                       cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"runtime-dir.sh failed ({r.returncode}):\n{r.stderr}")
    d = r.stdout
    st = os.lstat(d)
    check(stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid()
          and stat.S_IMODE(st.st_mode) == 0o700,
          f"runtime-dir.sh exported {d}: not our directory with mode 700 "
          f"(uid {st.st_uid}, mode {stat.S_IMODE(st.st_mode):o})")
    return d, r.stderr


def session_picks_private(h, tmp):
    usual = os.path.join(tmp, f"smtwc-runtime-{os.geteuid()}")
    d, _ = session_script(h, tmp)
    check(d == usual, f"a fresh machine: expected {usual}, got {d}")
    again, _ = session_script(h, tmp)
    check(again == usual, f"a second session: expected {usual} again, got {again}")
    log(f"the usual name taken and kept: {usual}")
    shutil.rmtree(usual)
    if os.geteuid() != 0:
        log("not root: the squatter cases are left out (CI runs as root)")
        return
    # Squatted: nobody made the name first, mode 777 so root's chmod
    # would have looked like it worked.
    os.mkdir(usual)
    os.chown(usual, NOBODY, NOBODY)
    os.chmod(usual, 0o777)
    d, err = session_script(h, tmp)
    check(d != usual and os.path.dirname(d) == tmp,
          f"a squatted name: expected a fresh directory in {tmp}, got {d}")
    st = os.stat(usual)
    check(st.st_uid == NOBODY and stat.S_IMODE(st.st_mode) == 0o777 and not os.listdir(usual),
          "the squatter's directory was changed")
    check("not this user's private directory" in err, f"no word about the squatter:\n{err}")
    log(f"a squatted name (nobody's, 777): a fresh {d}")
    os.rmdir(usual)
    # Squatted by a symlink to nobody's directory.
    target = os.path.join(tmp, "nobodys")
    os.mkdir(target)
    os.chown(target, NOBODY, NOBODY)
    os.chmod(target, 0o755)
    os.symlink(target, usual)
    d, _ = session_script(h, tmp)
    check(d != usual and os.path.realpath(d) != target,
          f"a symlinked name: expected a fresh directory, got {d}")
    st = os.stat(target)
    check(st.st_uid == NOBODY and stat.S_IMODE(st.st_mode) == 0o755,
          "the symlink's target was changed")
    log(f"a squatted name (a symlink to nobody's): a fresh {d}")


def test(h):
    tmp = tempfile.mkdtemp(prefix="smtwc-runtime-dir-")
    try:
        os.chmod(tmp, 0o755)  # nobody may traverse to its directories
        compositor_refuses(h, tmp)
        session_picks_private(h, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


harness.main(test)

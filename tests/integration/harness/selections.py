"""What clipboard tests paste and compare: selection data whose every chunk
differs, a file's bytes, how two byte strings differ, and whether the
compositor offers a selection to Wayland clients as text (wl-paste);
xclip as an owner, wl-paste as a reader."""
import os
import shlex

TEXT = "text/plain;charset=utf-8"


def selection_text(tag, size):
    """size bytes of lines that name tag and their number: no two chunks
    alike, so a chunk lost, repeated or out of place changes the digest."""
    out = bytearray()
    n = 0
    while len(out) < size:
        out += b"%s %09d abcdefghijklmnopqrstuvwxyz0123456789\n" % (tag.encode(), n)
        n += 1
    return bytes(out[:size])


def read_bytes(path):
    """The file's bytes; none while it does not exist."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return b""


def describe(got, want):
    if got == want:
        return "whole"
    k = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]),
             min(len(got), len(want)))
    return f"{len(got)} of {len(want)} bytes, first difference at byte {k}"


def offered(s, primary=False):
    """Whether session s offers a selection (the clipboard, or PRIMARY) as
    TEXT to Wayland clients."""
    r = s.run(["wl-paste", "--list-types"] + (["--primary"] if primary else []),
              check_rc=False)
    return r.returncode == 0 and TEXT in r.stdout.split()


def paste_text(s, name):
    """wl-paste of the clipboard as TEXT into a file of s.tmp, to its end;
    the file's bytes."""
    out = os.path.join(s.tmp, name)
    s.run(["sh", "-c", f"exec {shlex.join(['wl-paste', '-n', '-t', TEXT])} > "
                       f"{shlex.quote(out)}"], timeout=60)
    return read_bytes(out)


def xclip_owns(s, data, replacing):
    """xclip owns the clipboard with data (bytes), once Wayland clients are
    offered it instead of the MIME type `replacing`; its Process."""
    path = os.path.join(s.tmp, "xclip.txt")
    with open(path, "wb") as f:
        f.write(data)
    xclip = s.spawn(["xclip", "-quiet", "-selection", "clipboard", "-i", path], name="xclip")
    s.wait_until(lambda: offered(s) and replacing not in s.run(
        ["wl-paste", "--list-types"], check_rc=False).stdout,
        timeout=30, interval=0.2, what="xclip's selection offered to Wayland clients")
    return xclip

"""What clipboard tests paste and compare: selection data whose every chunk
differs, a file's bytes, how two byte strings differ, and whether the
compositor offers a selection to Wayland clients as text (wl-paste)."""

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

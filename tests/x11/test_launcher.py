"""smt-x11run: finds the shim, appends it to LD_PRELOAD once, runs CMD and
reports exec failures like env(1) does. Where an ELF32 twin of the shim is
built beside it (x86-64), the path is ld.so's per-class $LIB form: 64-bit
programs load the shim, 32-bit ones the twin (no "wrong ELF class" line)."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xtest  # noqa: E402


def launch(args, **env):
    e = dict(os.environ)
    e.pop("LD_PRELOAD", None)
    e.pop("SMT_X11SHIM_LIB", None)
    e.update(launch.env)
    e.update(env)
    return subprocess.run([os.environ["SMT_X11RUN"], *args], env=e,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def run_32bit_program(f):
    """A real 32-bit program under the launcher (gcc-multilib, in the test
    set of scripts/deps.sh: its biarch ld.so's $LIB is lib32) says nothing of
    the preload in its terminal. (The sanitizer build's LD_PRELOAD starts
    with the 64-bit ASan runtime, which a 32-bit ld.so would name.)"""
    with tempfile.TemporaryDirectory() as d:
        src, prog = os.path.join(d, "hello32.c"), os.path.join(d, "hello32")
        with open(src, "w") as c:
            c.write('#include <stdio.h>\nint main(void) { puts("hello from 32 bits"); '
                    'return 0; }\n')
        cc = subprocess.run(["cc", "-m32", "-o", prog, src], stderr=subprocess.PIPE)
        f.check(cc.returncode == 0, "cc -m32 builds a 32-bit program (gcc-multilib, "
                f"scripts/deps.sh test): {cc.stderr.decode()[-300:]}")
        if cc.returncode != 0:
            return
        p = launch([prog])
        f.check(p.returncode == 0 and p.stdout == b"hello from 32 bits\n" and p.stderr == b"",
                f"a 32-bit program under the launcher: exit {p.returncode}, stdout "
                f"{p.stdout!r}, stderr {p.stderr.decode()[-300:]!r}")


def main():
    f = xtest.Failures()
    shim = os.path.realpath(os.environ["SMT_X11SHIM_LIB"])
    p = launch(["--print-shim"])
    f.check(p.returncode == 0 and os.path.realpath(p.stdout.decode().strip()) == shim,
            "--print-shim names the shim built next to the launcher")

    show = ["sh", "-c", 'printf %s "$LD_PRELOAD"']
    if os.environ.get("SMT_ASAN_RUNTIME"):
        # An ASan-built shim cannot go into sh: let the launcher preload a
        # harmless library instead; what is tested is the launcher.
        shim = "libm.so.6"
        launch.env = {"SMT_X11SHIM_LIB": shim}
    # The launcher of a sanitizer build puts the ASan runtime first (its
    # shim is instrumented); then the existing value, then the shim.
    asan = [os.environ["SMT_ASAN_RUNTIME"]] if os.environ.get("SMT_ASAN_RUNTIME") else []

    def expand(path, lib):
        return path.replace("$LIB", lib)

    def is_shim(path):
        path = expand(path, "lib/x86_64-linux-gnu")
        return os.path.realpath(path) == shim or path == shim

    p = launch(show)
    got = p.stdout.decode().split(":")
    f.check(p.returncode == 0 and got[:-1] == asan and is_shim(got[-1]),
            "LD_PRELOAD is the shim when it was unset")
    # An existing value is kept, the shim appended after it (ld.so warns about
    # the missing library on stderr; that is fine here).
    p = launch(show, LD_PRELOAD="/nonexistent/libfoo.so")
    got = p.stdout.decode().split(":")
    f.check(p.returncode == 0 and got[:-1] == asan + ["/nonexistent/libfoo.so"]
            and is_shim(got[-1]), "the shim is appended to LD_PRELOAD")
    have = ":".join(filter(None, [os.environ.get("SMT_ASAN_RUNTIME"), shim]))
    p = launch(show, SMT_X11SHIM_LIB=shim, LD_PRELOAD=have)
    got = p.stdout.decode().split(":")
    f.check(got[:-1] == asan and is_shim(got[-1]),
            f"an LD_PRELOAD that has the shim keeps it once: {got}")
    # 32-bit programs: the path's $LIB resolves to an ELF32 x86 object for
    # them (no i386 ld.so here to run one: the file is what is checked).
    p = launch(show)
    last = p.stdout.decode().split(":")[-1]
    if "$LIB" in last:
        with open(expand(last, "lib/i386-linux-gnu"), "rb") as elf:
            head = elf.read(20)
        f.check(head[:5] == b"\x7fELF\x01" and head[18:20] == b"\x03\x00",
                f"the 32-bit twin of the shim is an ELF32 i386 object: {head!r}")
        f.check(os.path.realpath(expand(last, "lib/x86_64-linux-gnu")) ==
                os.path.realpath(os.environ["SMT_X11SHIM_LIB"]),
                "$LIB resolves to the shim for 64-bit programs")
        if not os.environ.get("SMT_ASAN_RUNTIME"):
            run_32bit_program(f)
    elif not os.environ.get("SMT_ASAN_RUNTIME"):
        f.check(os.uname().machine != "x86_64", f"no per-class preload path on x86-64: {last}")
    p = launch(["--print-shim"], SMT_X11SHIM_LIB="/elsewhere/libsmt-x11shim.so")
    f.check(p.stdout.decode().strip() == "/elsewhere/libsmt-x11shim.so",
            "SMT_X11SHIM_LIB overrides the search")

    f.check(launch(["sh", "-c", "exit 3"]).returncode == 3, "CMD's exit status is returned")
    f.check(launch(["/nonexistent/program"]).returncode == 127, "missing CMD: 127")
    f.check(launch([]).returncode == 2, "no CMD: usage, 2")
    f.check(launch(["--", "sh", "-c", "exit 0"]).returncode == 0, "-- ends the options")
    f.exit()


launch.env = {}

if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The control socket against clients that misbehave (session 24, red
team): each gets a clear answer or is disconnected, the compositor carries
on and its settings are unchanged.

- an overlong line from a peer that shut its reading side down: the error
  answer cannot be sent, and the connection must be closed once (before the
  fix it was closed twice: a use after free, the compositor died of SIGSEGV);
- an overlong line from a peer that reads: the named error, then closed;
- bytes that are not UTF-8 in a request: the answer repeating them is still
  JSON (before: raw bytes, which no JSON reader accepts);
- every connection slot held: the next connection is closed unanswered, and
  served once one is given back;
- peers that ask and never read: not read while an answer waits for them,
  so the compositor holds one answer each (before session 42: every line
  answered into a queue, 99 MiB held for 31 peers), served once they read;
- every `set` key with values out of range or malformed: refused by name,
  the settings as before;
- another uid (nobody, through setpriv; needs root) with the runtime
  directory and the socket opened up: closed without a byte (before: it
  was answered, and could change settings and inject input);
- a ring client whose app id holds `}{"pid":4242,...}{`, quotes and
  terminal escapes: `smtctl clients` shows it as one row with that text
  (escapes as '?'), no made-up row (before: smtctl split the list at any
  '}', and the app id added a row for pid 4242)."""
import json
import os
import socket
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, build_program, check, log, scaled  # noqa: E402

MAX_LINE = 4096          # compositor/control/control.c
MAX_CONNECTIONS = 32


def connect(s):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # A blocking connect waits for room in the listen backlog (8); a
    # non-blocking one would fail with EAGAIN while we open 33 at once.
    c.connect(s.socket_path + ".smtwc")
    c.settimeout(scaled(10))
    return c


def read_all(c):
    """Everything until the compositor closes (a close with our request
    still unread arrives as a reset: what came before it counts)."""
    data = b""
    while True:
        try:
            chunk = c.recv(65536)
        except ConnectionResetError:
            return data
        if not chunk:
            return data
        data += chunk


def answer_to(s, data, shut_write=True):
    """What the compositor answers to `data` sent on a connection of its
    own, until it closes it."""
    c = connect(s)
    try:
        c.sendall(data)
        if shut_write:
            c.shutdown(socket.SHUT_WR)
        return read_all(c)
    finally:
        c.close()


def raw_answer(s, request):
    return answer_to(s, request + b"\n")


def overlong_unread(s):
    c = connect(s)
    c.shutdown(socket.SHUT_RD)
    c.sendall(b"x" * MAX_LINE)
    # The compositor closes it: our end sees the peer gone when writing.
    closed = False
    for _ in range(1000):
        try:
            c.sendall(b"x" * 4096)
        except (BrokenPipeError, ConnectionResetError):
            closed = True
            break
    c.close()
    check(closed, "a connection that sent an overlong line was not closed")
    s.check_alive()
    check(s.control("get").get("scheduler") is not None,
          "the control socket stopped answering after an overlong line")
    log("overlong line, reading side shut down: closed once, compositor alive")


def overlong_read(s):
    # Exactly a full buffer and no more (and the connection left open for
    # writing): anything the compositor leaves unread when it closes turns
    # the close into a reset, and the answer may be lost with it.
    answer = answer_to(s, b"y" * MAX_LINE, shut_write=False)
    check(json.loads(answer.decode()) == {"error": "request line too long"},
          f"overlong line answered {answer[:200]!r}")
    log("overlong line: named error, closed")


def not_utf8(s):
    for request, part in ((b"set \xff\xfe 1", "unknown key '\ufffd\ufffd'"),
                          (b"set mode caf\xc3", "invalid scheduler mode 'caf\ufffd'")):
        answer = raw_answer(s, request)
        try:
            parsed = json.loads(answer.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            check(False, f"answer to {request!r} is not JSON ({e}): {answer[:200]!r}")
        check(part in parsed.get("error", ""), f"answer to {request!r}: {parsed}")
    log("bytes that are not UTF-8: answered in JSON, U+FFFD in their place")


def slots(s):
    held = [connect(s) for _ in range(MAX_CONNECTIONS)]
    # Each held connection is accepted once the compositor answers on it.
    for c in held:
        c.sendall(b"get\n")
        line = b""
        while not line.endswith(b"\n"):
            chunk = c.recv(65536)
            check(chunk, "a held connection was closed")
            line += chunk
    extra = connect(s)
    try:
        extra.sendall(b"get\n")
    except (BrokenPipeError, ConnectionResetError):
        pass  # closed already: what we expect
    check(read_all(extra) == b"", "a connection past the slots was answered")
    extra.close()
    held.pop().close()
    # The slot comes back once the compositor saw the close, which it
    # handles in its own time: ask again until then (bounded).
    deadline = time.monotonic() + scaled(10)
    answer = b""
    while not answer and time.monotonic() < deadline:
        answer = raw_answer(s, b"get")
    check(b"scheduler" in answer, "no answer once a slot was given back")
    for c in held:
        c.close()
    log(f"{MAX_CONNECTIONS} connections held: the next one closed unanswered, served after")


NON_READERS = 30   # of the 32 slots: two left for the harness's own requests
SEND_CAP = 4 << 20  # what a non-reader writes at most (before: all of it read)


def rss_anon_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    return 0


def fill_until_blocked(s, c):
    """Writes "stats" lines without reading until the compositor stops
    taking them (the socket full: True) or closes (False) or SEND_CAP."""
    c.setblocking(False)
    sent = 0
    try:
        while sent < SEND_CAP:
            try:
                sent += c.send(b"stats\n" * 512)
            except BlockingIOError:
                # the kernel's buffers full: once more after a request of
                # ours was answered (the compositor had a turn since), in
                # case it was only behind
                s.control("get")
                try:
                    sent += c.send(b"stats\n" * 512)
                except BlockingIOError:
                    return True, sent
    except (BrokenPipeError, ConnectionResetError):
        return False, sent
    return False, sent


def never_reads(s):
    """Peers that ask and never read (session 42): each gets one answer
    held for it and is not read meanwhile, so its lines wait in its own
    socket (before: every line was answered into a queue of up to 4 MiB a
    connection, then it was closed: 31 such peers held 99 MiB of the
    compositor's heap and 1.9 s of its main thread). Once a peer reads, it
    is answered again."""
    pid = s.compositor.pid
    rss0 = rss_anon_kib(pid)
    peers = []
    for _ in range(NON_READERS):
        c = connect(s)
        c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        peers.append(c)
    results = [fill_until_blocked(s, c) for c in peers]
    # (logged, not judged: a sanitizer build's heap grows by its own
    # bookkeeping; what is held is judged by the peers being held off)
    grown = rss_anon_kib(pid) - rss0
    log(f"{NON_READERS} peers that never read: blocked after "
        f"{[sent for _, sent in results][:4]}... bytes of requests; the compositor's "
        f"RssAnon grew {grown} KiB")
    check(all(blocked for blocked, _ in results),
          f"a non-reader was not held off (read on, or closed): {results}")
    s.check_alive()
    check(s.control("get").get("scheduler") is not None, "control socket gone")
    # The first peer reads now: whole answers, and more come.
    c = peers[0]
    c.setblocking(True)
    c.settimeout(scaled(10))
    answers = b""
    while answers.count(b"\n") < 200:
        chunk = c.recv(65536)
        check(chunk, "the peer was closed when it began to read")
        answers += chunk
    first = answers.split(b"\n")[0]
    check(b"clients" in first and json.loads(first.decode()) is not None,
          f"not an answer: {first[:200]!r}")
    for c in peers:
        c.close()
    log("a peer that never reads: one answer held, its requests left in its socket; "
        "served again once it reads")


BAD_VALUES = ["-1", "0", "99999999999999999999", "nan", "1e3", "abc", "0x10", "1 2",
              "-2147483649", "20.5"]


def bad_sets(s):
    before = s.control("get")["scheduler"]
    refused = 0
    for key, value in before.items():
        for v in BAD_VALUES:
            if str(v) == str(value):
                continue
            answer = s.control(f"set {key} {v}")
            if "ok" in answer:
                # in range for this key (0 for lone-after-ms, -1 for a
                # priority, ...): put it back
                check(s.control(f"set {key} {value}").get("ok"), f"set {key} {value}")
                continue
            check(key in answer.get("error", "") or "priority" in answer.get("error", ""),
                  f"set {key} {v}: the refusal does not name the key: {answer}")
            refused += 1
    check(s.control("get")["scheduler"] == before, "settings changed by refused sets")
    check(refused > 60, f"only {refused} refusals")
    log(f"{refused} malformed or out-of-range sets refused by name, settings unchanged")


NOBODY = 65534
PEER = """
import socket, sys
c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
c.settimeout(20)
c.connect(sys.argv[1])
data = b""
try:
    c.sendall(b"get\\n")
    c.shutdown(socket.SHUT_WR)
    while True:
        chunk = c.recv(65536)
        if not chunk:
            break
        data += chunk
except (BrokenPipeError, ConnectionResetError):
    pass  # closed before or after our request
print(len(data))
"""


def other_uid(s):
    if os.geteuid() != 0:
        log("not root: the other-uid case is left out")
        return
    path = s.socket_path + ".smtwc"
    modes = {p: stat.S_IMODE(os.stat(p).st_mode) for p in (s.tmp, s.runtime_dir, path)}
    for p in (s.tmp, s.runtime_dir):
        os.chmod(p, 0o711)
    os.chmod(path, 0o777)
    try:
        res = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}",
                              "--clear-groups", sys.executable, "-c", PEER, path],
                             capture_output=True, text=True, timeout=scaled(30))
        # smtctl of another uid (root through sudo, for a user's session)
        # is told why nothing comes back.
        ctl = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}",
                              "--clear-groups", build_program("SMTCTL", "clients/smtctl"), "get"],
                             env={**os.environ, "SMTWC_CONTROL": path},
                             capture_output=True, text=True, timeout=scaled(30))
    finally:
        for p, m in modes.items():
            os.chmod(p, m)
    check(res.returncode == 0 and res.stdout.strip() == "0",
          f"uid {NOBODY} on an opened-up control socket: rc {res.returncode}, "
          f"{res.stdout.strip()} bytes, {res.stderr[-500:]}")
    check(s.control("get").get("scheduler") is not None, "control socket gone")
    log(f"uid {NOBODY} on an opened-up control socket: closed without a byte")
    check(ctl.returncode != 0 and
          f"it runs as uid {os.geteuid()} and answers that uid only" in ctl.stderr,
          f"smtctl as uid {NOBODY}: rc {ctl.returncode}, {ctl.stderr[-300:]!r}")
    log(f"smtctl as uid {NOBODY}: {ctl.stderr.strip()}")


SPOOF = 'e\x1b[2J"}{"pid":4242,"app_id":"spoof"}{"x":"\x1b]0;t\x07'


def spoofed_listing(s):
    demo = s.spawn([build_program("SMT_DEMO", "clients/smt-demo"), "--static",
                    "--app-id", SPOOF])
    s.wait_until(lambda: "DEMO_READY" in open(demo.log_path).read(), timeout=15,
                 what="smt-demo to draw its frame")
    out = s.run([build_program("SMTCTL", "clients/smtctl"), "clients"]).stdout
    rows = [line.split() for line in out.splitlines()[1:]]
    check(len(rows) == 1 and rows[0][0] == str(demo.pid),
          f"one ring client, yet smtctl clients listed:\n{out}")
    # The APP column: the app id's first 16 characters, escapes as '?'.
    want = SPOOF.replace("\x1b", "?").replace("\x07", "?")[:16]
    check(f" {want} " in out,
          f"the app id is not shown as {want!r}:\n{out}")
    check("\x1b" not in out and "\x07" not in out, f"a terminal escape reached the output: {out!r}")
    s.stop_client(demo)
    log("an app id with }{, quotes and escapes: one row in smtctl clients, shown as text")


def test(h):
    with Session(h) as s:
        overlong_unread(s)
        overlong_read(s)
        not_utf8(s)
        slots(s)
        never_reads(s)
        bad_sets(s)
        other_uid(s)
        spoofed_listing(s)
        s.check_alive()


harness.main(test)

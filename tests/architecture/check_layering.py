#!/usr/bin/env python3
"""The compositor's dependencies point one way (docs/architecture.md).

Builds the graph of quoted #includes in compositor/, each a path from the
repository's root (the one include folder every target has), and fails
when:

- an include or a build file in compositor/ reaches into xwayland-glue/
  (the glue plugs into the compositor, never the other way round);
- a file includes a header of a higher layer (LAYERS below);
- the graph of modules (foo.c and foo.h are one module) has a cycle; the
  cycle is printed with the include behind each step;
- any C file of the tree includes a header of the project by anything but
  its path from the root (generated Wayland protocol headers keep their
  wayland-scanner names).

Usage: check_layering.py SOURCE_ROOT
"""
import os
import re
import sys

# Lowest first. A file may include headers of its own layer or lower ones
# (docs/architecture.md). The longest matching prefix (relative to
# compositor/) wins.
LAYERS = [
    # no wlroots: linked alone by unit tests and fuzzers
    ("pure", ["config/", "exec/", "sched/"]),
    # the server struct every module shares, and what it embeds or declares
    # (the frame renderer and the two helpers it paints with)
    ("core", ["server.h", "extension.h", "fd_limit.", "log_limit.", "launch.c", "output/render.",
              "output/paint_direct.", "output/buffer_opacity.", "output/pixel_format.",
              "trace/"]),
    # the window system: outputs, windows, input
    ("shell", ["output/", "desktop/", "input/"]),
    # the ring protocol's Wayland objects and the ring loop (slices, spinning, sleep)
    ("ring", ["ring/"]),
    # the smtctl socket: reads every layer below through accessors
    ("control", ["control/"]),
    # the composition root: creates and wires every module
    ("root", ["main.c", "server.c"]),
]
# The composition root wires every module together; it is no module of its
# own (server.c is not "the server.h module": every module includes
# server.h, and server.c includes every module to create it).
ROOT_FILES = {"main.c", "server.c"}
# Headers private to a module that spans several .c files.
MODULE_OF_HEADER = {"exec/exec_internal.h": "exec/executor",
                    "config/config_internal.h": "config/config"}
FORBIDDEN = "xwayland-glue"
TREE = ["clients", "common", "compositor", "protocol", "tests", "xwayland-glue"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
GENERATED = re.compile(r"-protocol\.h$")


def layer_of(rel):
    best = None
    for rank, (name, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if rel.startswith(prefix) and (best is None or len(prefix) > best[2]):
                best = (rank, name, len(prefix))
    if best is None:
        return None
    return best[0], best[1]


def module_of(rel):
    if rel in ROOT_FILES:
        return rel
    return MODULE_OF_HEADER.get(rel, os.path.splitext(rel)[0])


def resolve(root, name):
    """The file a quoted include names: a path from the root, or None."""
    path = os.path.join(root, name)
    if os.path.isfile(path):
        return os.path.relpath(os.path.realpath(path), root)
    return None


def includes_by_path(root):
    """Every quoted include in the tree's C files names its header by its
    path from the root (or is a generated protocol header)."""
    errors = []
    for folder in TREE:
        for dirpath, dirs, files in os.walk(os.path.join(root, folder)):
            dirs[:] = sorted(d for d in dirs if not d.startswith(("corpus", "__")))
            for f in sorted(files):
                if not f.endswith((".c", ".h", ".c.in")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
                for name in INCLUDE.findall(text):
                    if GENERATED.search(name):
                        continue
                    if resolve(root, name) is None:
                        errors.append(f"{rel}: #include \"{name}\" is not a path from the "
                                      f"repository's root")
    return errors


def find_cycle(graph):
    """Returns one cycle as a list of nodes (first == last), or None."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = {n: WHITE for n in graph}
    stack = []

    def visit(node):
        colour[node] = GREY
        stack.append(node)
        for succ in sorted(graph[node]):
            if colour[succ] == GREY:
                return stack[stack.index(succ):] + [succ]
            if colour[succ] == WHITE:
                found = visit(succ)
                if found:
                    return found
        stack.pop()
        colour[node] = BLACK
        return None

    sys.setrecursionlimit(10000)
    for node in sorted(graph):
        if colour[node] == WHITE:
            found = visit(node)
            if found:
                return found
    return None


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = os.path.realpath(sys.argv[1])
    comp = os.path.join(root, "compositor")
    errors = []
    sources = []
    for dirpath, _, files in os.walk(comp):
        for f in sorted(files):
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, comp)
            if f.endswith((".c", ".h")):
                sources.append(rel)
            elif f == "meson.build":
                with open(path, encoding="utf-8") as fh:
                    for n, line in enumerate(fh, 1):
                        if FORBIDDEN in line.split("#", 1)[0]:
                            errors.append(f"compositor/{rel}:{n}: the build reaches into "
                                          f"{FORBIDDEN}/: {line.strip()}")
    if not sources:
        sys.exit(f"no C sources under {comp}")

    graph = {}
    why = {}  # (module, module) -> "file includes header"
    for rel in sorted(sources):
        graph.setdefault(module_of(rel), set())
        here = layer_of(rel)
        if here is None:
            errors.append(f"compositor/{rel}: in no layer (add its folder to LAYERS "
                          f"in {os.path.relpath(__file__, root)} and docs/architecture.md)")
            continue
        with open(os.path.join(comp, rel), encoding="utf-8") as fh:
            text = fh.read()
        for name in INCLUDE.findall(text):
            target = resolve(root, name)
            if target is None:
                if not GENERATED.search(name):
                    errors.append(f"compositor/{rel}: #include \"{name}\" found nowhere")
                continue
            if target.startswith(FORBIDDEN + os.sep):
                errors.append(f"compositor/{rel}: #include \"{name}\" is {target}: "
                              f"the compositor must not depend on {FORBIDDEN}/")
                continue
            if not target.startswith("compositor" + os.sep):
                continue  # protocol/ and common/: below everything
            trel = os.path.relpath(target, "compositor")
            there = layer_of(trel)
            if there is not None and there[0] > here[0]:
                errors.append(f"compositor/{rel} ({here[1]}) includes {trel} "
                              f"({there[1]}): a lower layer must not know a higher one")
            a, b = module_of(rel), module_of(trel)
            if a != b:
                graph[a].add(b)
                why.setdefault((a, b), f"compositor/{rel} includes \"{name}\"")
                graph.setdefault(b, set())

    errors += includes_by_path(root)

    cycle = find_cycle(graph)
    if cycle:
        errors.append("include cycle between modules: " + " -> ".join(cycle) + "".join(
            f"\n    {why[(a, b)]}" for a, b in zip(cycle, cycle[1:])))

    for e in errors:
        print(e)
    if errors:
        print(f"FAIL: {len(errors)} problem(s); see docs/architecture.md")
        return 1
    print(f"ok: {len(sources)} files, {len(graph)} modules in {len(LAYERS)} layers, "
          f"includes point down, no cycle, nothing from {FORBIDDEN}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())

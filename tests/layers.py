#!/usr/bin/env python3
"""The include graph's rules, checked from the sources' own #include lines
(as Linux's headers check and Chromium's checkdeps do).

    tests/layers.py PART... [--program NAME=PART,PART...]

PARTs are src/'s folders, lowest layer first (the Makefile's LAYERS). A
module is a source and the header of the same name (src/judge/bench.c and
include/parity/bench.h are the module bench, in the part judge). Two rules:

  1. No include runs back up: a module includes only modules of its own part
     or of a part before it. A program (--program executor=base,proto) is
     built on its own and includes only its own modules and the parts named;
     nothing includes it.
  2. No circle: a module never depends, through any chain of includes, on
     itself.

A header must belong to a module: a source of the same name, or an entry of
OWNERS below (a header that only declares constants and types). Prints one
line per finding, FILE:LINE: what, and exits 1 if there is any; 0 and a
summary otherwise.
"""
import os
import re
import sys

# Headers with no source of their own, and the module they belong to.
OWNERS = {
    "version": "base",     # PX_VERSION and the formats' versions: constants
    "cmd_check": "cmd_run",  # run/check/bench/report's shared command line
    "results": "results",    # the results file: written by results_write.c,
                             # read by results_read.c, one part's header
    "runner_opts": "run",    # the runner's options and stop reasons: types
                             # that src/run/'s parts read below the runner
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def main(argv):
    parts, programs = [], {}
    args = iter(argv)
    for a in args:
        if a == "--program":
            name, _, allowed = next(args).partition("=")
            programs[name] = [p for p in allowed.split(",") if p]
        else:
            parts.append(a)
    rank = {p: i for i, p in enumerate(parts)}

    part_of, files_of = {}, {}      # module -> part; module -> its files
    problems = []
    for part in parts + list(programs):
        d = os.path.join("src", part)
        if not os.path.isdir(d):
            problems.append(f"{d}: a part named in LAYERS has no folder")
            continue
        for n in sorted(os.listdir(d)):
            stem, ext = os.path.splitext(n)
            if ext not in (".c", ".cpp", ".h"):
                continue
            if ext != ".h":
                if stem in part_of and part_of[stem] != part:
                    problems.append(f"{d}/{n}: a module {stem} is also in src/{part_of[stem]}/")
                part_of[stem] = part
            files_of.setdefault(stem, []).append(os.path.join(d, n))
    for top in sorted(os.listdir("src")):
        if os.path.isdir(os.path.join("src", top)) and any(
                f.endswith((".c", ".cpp", ".h")) for f in os.listdir(os.path.join("src", top))) \
                and top not in rank and top not in programs:
            problems.append(f"src/{top}/: C sources in a folder that is not a part (add it to LAYERS)")
    for n in sorted(os.listdir("include/parity")):
        if n.endswith(".h"):
            files_of.setdefault(n[:-2], []).append(os.path.join("include/parity", n))

    def owner(stem):
        """The module a header belongs to, or None."""
        if stem in part_of:
            return stem
        o = OWNERS.get(stem)
        if o in part_of:
            return o
        if o in rank:           # a part: constants every module above may use
            return stem
        return None

    for stem, owned in OWNERS.items():
        if owned in rank:
            part_of[stem] = owned
    deps = {}                   # module -> {module: (file, line)}
    for stem, paths in sorted(files_of.items()):
        me = owner(stem)
        if me is None:
            problems.append(f"{paths[0]}:1: a header with no source of its own: "
                            "give it one, or name its owner in tests/layers.py")
            continue
        for path in paths:
            with open(path, encoding="utf-8", errors="replace") as fh:
                for i, line in enumerate(fh, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    inc = os.path.splitext(os.path.basename(m.group(1)))[0]
                    them = owner(inc)
                    if them is None:
                        problems.append(f"{path}:{i}: includes {m.group(1)}, which belongs to no module")
                        continue
                    if them == me:
                        continue
                    deps.setdefault(me, {}).setdefault(them, (path, i))
                    mine, theirs = part_of[me], part_of[them]
                    if theirs in programs and theirs != mine:
                        problems.append(f"{path}:{i}: includes {m.group(1)} of the program {theirs}/")
                    elif mine in programs:
                        if theirs != mine and theirs not in programs[mine]:
                            problems.append(f"{path}:{i}: includes {m.group(1)} of {theirs}/; "
                                            f"the program {mine}/ is built on {', '.join(programs[mine])} only")
                    elif rank[theirs] > rank[mine]:
                        problems.append(f"{path}:{i}: includes {m.group(1)} of {theirs}/, "
                                        f"a layer above {mine}/")

    # Circles: Tarjan's strongly connected components, each shown as one loop.
    index, low, stack, on, sccs = {}, {}, [], set(), []

    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(deps.get(v, {})):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(deps):
        if v not in index:
            strong(v)
    for comp in sccs:
        inside = set(comp)
        # One loop through the component's first module, by breadth first.
        start, prev, queue = comp[0], {comp[0]: None}, [comp[0]]
        loop = None
        while queue and loop is None:
            v = queue.pop(0)
            for w in sorted(deps.get(v, {})):
                if w not in inside:
                    continue
                if w == start:
                    loop = [v]
                    while prev[loop[-1]] is not None:
                        loop.append(prev[loop[-1]])
                    loop.reverse()
                    break
                if w not in prev:
                    prev[w] = v
                    queue.append(w)
        loop.append(start)
        where = deps[loop[0]][loop[1]]
        problems.append(f"{where[0]}:{where[1]}: a circle of includes: " + " -> ".join(loop))

    for p in problems:
        print(p)
    if problems:
        return 1
    n_edges = sum(len(v) for v in deps.values())
    print(f"layers: {len(part_of)} modules in {len(parts)} parts and "
          f"{len(programs)} program(s), {n_edges} includes between modules: "
          "none runs back up, no circle")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

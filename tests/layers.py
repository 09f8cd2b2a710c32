#!/usr/bin/env python3
"""The include graph's rules, checked from the sources' own #include lines
(as Linux's headers check and Chromium's checkdeps do).

    tests/layers.py [--self-test] PART... [--program NAME=PART,PART...]

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
    "hf_pipe": "hf_util",    # the tokenizer.json pipeline's types and stages,
                             # each stage in its own hf_*.c; hf_util.c has its
                             # buffers
    "hf_read_int": "hf_read",  # the reader's own, shared by hf_read*.c
    "judge_int": "judge",    # the judge's own (its context, the stages its
                             # files give each other), shared by src/judge/'s
                             # files: a module of its own in the part judge
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def check(root, parts, programs):
    """The findings for the tree at root, and a summary line."""
    here = os.getcwd()
    os.chdir(root)
    try:
        return check_here(parts, programs)
    finally:
        os.chdir(here)


def check_here(parts, programs):
    rank = {p: i for i, p in enumerate(parts)}
    problems = []
    part_of, files_of = find_modules(parts, rank, programs, problems)
    deps = follow_includes(rank, programs, part_of, files_of, problems)
    problems += circles(deps)
    n_edges = sum(len(v) for v in deps.values())
    return problems, (f"layers: {len(part_of)} modules in {len(parts)} parts and "
                      f"{len(programs)} program(s), {n_edges} includes between modules: "
                      "none runs back up, no circle")


def find_modules(parts, rank, programs, problems):
    """Each module's part (the folder of its source) and its files."""
    part_of, files_of = {}, {}
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
    for stem, owned in OWNERS.items():
        if owned in rank:
            part_of[stem] = owned
    return part_of, files_of


def follow_includes(rank, programs, part_of, files_of, problems):
    """Module -> {module it includes: (file, line) of the first include},
    with rule 1's findings (and headers that belong to no module)."""
    def owner(stem):
        """The module a header belongs to, or None."""
        if stem in part_of:
            return stem
        return OWNERS.get(stem) if OWNERS.get(stem) in part_of else None

    deps = {}
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
                    them = owner(os.path.splitext(os.path.basename(m.group(1)))[0])
                    if them is None:
                        problems.append(f"{path}:{i}: includes {m.group(1)}, which belongs to no module")
                    elif them != me:
                        deps.setdefault(me, {}).setdefault(them, (path, i))
                        problems += upward(f"{path}:{i}: includes {m.group(1)}", part_of[me], part_of[them],
                                           rank, programs)
    return deps


def upward(where, mine, theirs, rank, programs):
    """Rule 1 for one include from the part mine into the part theirs."""
    if theirs in programs and theirs != mine:
        return [f"{where} of the program {theirs}/"]
    if mine in programs:
        if theirs != mine and theirs not in programs[mine]:
            return [f"{where} of {theirs}/; the program {mine}/ is built on {', '.join(programs[mine])} only"]
        return []
    return [f"{where} of {theirs}/, a layer above {mine}/"] if rank[theirs] > rank[mine] else []


def circles(deps):
    """Rule 2: each strongly connected component (Tarjan's) of more than
    one module, shown as one loop through its first module."""
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
    found = []
    for comp in sccs:
        loop = shortest_loop(deps, comp)
        where = deps[loop[0]][loop[1]]
        found.append(f"{where[0]}:{where[1]}: a circle of includes: " + " -> ".join(loop))
    return found


def shortest_loop(deps, comp):
    """A shortest loop from comp[0] back to itself inside comp."""
    inside, start = set(comp), comp[0]
    prev, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(deps.get(v, {})):
            if w not in inside:
                continue
            if w == start:
                loop = [v]
                while prev[loop[-1]] is not None:
                    loop.append(prev[loop[-1]])
                return loop[::-1] + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return [start, start]


# --self-test: small trees, each planted with one fault the check must name
# (and one with none), so that a check that has stopped finding anything
# fails here instead of passing forever.
SELF_TESTS = [
    ("clean", {"src/low/a.c": '#include "parity/a.h"\n', "include/parity/a.h": "",
               "src/high/b.c": '#include "parity/b.h"\n#include "parity/a.h"\n',
               "include/parity/b.h": '#include "parity/a.h"\n'}, None),
    ("upward", {"src/low/a.c": '#include "parity/b.h"\n', "include/parity/a.h": "",
                "src/high/b.c": "", "include/parity/b.h": ""},
     "src/low/a.c:1: includes parity/b.h of high/, a layer above low/"),
    ("circle", {"src/low/a.c": '#include "parity/a.h"\n', "include/parity/a.h": '#include "parity/c.h"\n',
                "src/low/c.c": '\n#include "parity/a.h"\n', "include/parity/c.h": ""},
     "include/parity/a.h:1: a circle of includes: a -> c -> a"),
    ("private circle", {"src/high/b.c": '#include "d.h"\n', "src/high/d.h": "",
                        "src/high/d.c": '#include "b.h"\n', "src/high/b.h": ""},
     "src/high/b.c:1: a circle of includes: b -> d -> b"),
    ("orphan header", {"src/low/a.c": "", "include/parity/lost.h": ""},
     "include/parity/lost.h:1: a header with no source of its own"),
    ("program", {"src/low/a.c": "", "src/high/b.c": "", "src/exe/e.c": '#include "parity/b.h"\n',
                 "include/parity/b.h": ""},
     "src/exe/e.c:1: includes parity/b.h of high/; the program exe/ is built on low only"),
    ("into a program", {"src/low/a.c": '#include "e.h"\n', "src/exe/e.c": "", "src/exe/e.h": ""},
     "src/low/a.c:1: includes e.h of the program exe/"),
    ("stray folder", {"src/low/a.c": "", "src/other/o.c": ""},
     "src/other/: C sources in a folder that is not a part"),
]


def self_test():
    import tempfile
    bad = 0
    for name, tree, want in SELF_TESTS:
        with tempfile.TemporaryDirectory() as root:
            for d in ("include/parity", "src/low", "src/high"):
                os.makedirs(os.path.join(root, d))
            for path, text in tree.items():
                os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
                with open(os.path.join(root, path), "w") as fh:
                    fh.write(text)
            programs = {"exe": ["low"]} if os.path.isdir(os.path.join(root, "src/exe")) else {}
            problems, _ = check(root, ["low", "high"], programs)
        ok = (not problems) if want is None else any(p.startswith(want) for p in problems)
        if not ok or (want is not None and len(problems) != 1):
            print(f"tests/layers.py --self-test: {name}: wanted {want!r}, got {problems!r}")
            bad += 1
    return bad


def main(argv):
    parts, programs, bad = [], {}, 0
    args = iter(argv)
    for a in args:
        if a == "--program":
            name, _, allowed = next(args).partition("=")
            programs[name] = [p for p in allowed.split(",") if p]
        elif a == "--self-test":
            bad = self_test()
        else:
            parts.append(a)
    problems, summary = check(".", parts, programs)
    for p in problems:
        print(p)
    if problems or bad:
        return 1
    print(summary + (f"; self-test: {len(SELF_TESTS)} planted trees judged right" if "--self-test" in argv else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

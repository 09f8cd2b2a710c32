#!/usr/bin/env python3
"""The Python executor's copy of the protocol's constants, checked against
the C headers (as tests/tokenizer/gen_tables.js --check does for the
tokenizer tables).

    tests/proto_consts.py [--self-test]

src/executor/parity_torch.py is a standalone script (standard library and
torch only, installed on hosts without parity's headers), so it cannot
include include/parity/proto.h: it copies the frame types, the protocol
revision, the limits and the enums' values by hand. This script reads the
#defines and enum values of proto.h and generate.h (PX_NAME) and the
module-level integer constants of parity_torch.py (NAME, the same name
without PX_), and the dtypes parity_torch.cpp's parse_dtype accepts against
the Python executor's DTYPES. Every C constant must be in Python with the
same value, or listed in C_ONLY below with the reason; every Python integer
constant must be a C one or listed in PY_ONLY. Prints one line per finding
and exits 1 if there is any; 0 and a summary otherwise.

--self-test first checks that mutated copies of the files (a value changed,
a constant deleted, a new #define, an enum entry renumbered, a dtype or an
option added, the wording changed) each fail naming what changed, then
checks the real files.
"""
import ast
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADERS = ("include/parity/proto.h", "include/parity/generate.h")
PY = "src/executor/parity_torch.py"
CPP = "src/executor/parity_torch.cpp"
# results.h's limits on what an example keeps, which the Python executor
# also holds a DENOISE to (it refuses one whose DENOISED parity would
# refuse): only these of that header are compared.
RESULTS = "include/parity/results.h"
RESULTS_PICKED = ("IMAGE_MAX_RECORDED", "IMAGE_MAX_LATENT", "TRAIN_MAX_GROUPS")

# C constants the Python executor has no use for, and why.
C_ONLY = {
    "FRAME_HEADER": "Python packs the header as struct '<II'",
    "FRAME_HELLO": "fork server only (parity-torch --serve)",
    "FRAME_SPAWN": "fork server only",
    "FRAME_SPAWNED": "fork server only",
    "FRAME_EXITED": "fork server only",
    "CTL_MAX": "fork server's control packets only",
    "CTL_MAX_FDS": "fork server's control packets only",
}
# Python integer constants with no C counterpart.
PY_ONLY = {
    "MASK64": "Python's ints do not wrap: splitmix64's 64-bit mask",
    "GEN_LIST_MAX_V": "where choosing a token moves from a Python list to torch: speed, not protocol",
    "TRAIN_RUN_MAX_STEPS": "fixture.h's PX_TRAIN_RUN_MAX_STEPS (a recipe's steps), TRAINRUN's bound on its steps",
}

DEFINE = re.compile(r"^\s*#\s*define\s+PX_([A-Z0-9_]+)\s+(.+?)\s*$")
ENUM = re.compile(r"\benum\s+\w+\s*\{(.*?)\}", re.S)
DTYPE_IF = re.compile(r'if\s*\(\s*s\s*==\s*"([^"]+)"\s*\)\s*return')


def int_expr(text):
    """The value of a constant expression (C or Python): integers with C's
    u/U suffixes dropped, parentheses, + - * << | ~."""
    text = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", text.strip())

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and type(n.value) is int:
            return n.value
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.Invert)):
            v = ev(n.operand)
            return -v if isinstance(n.op, ast.USub) else ~v
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                   ast.LShift: lambda: a << b, ast.BitOr: lambda: a | b}
            if type(n.op) in ops:
                return ops[type(n.op)]()
        raise ValueError("not a constant integer expression: %r" % text)

    return ev(ast.parse(text, mode="eval"))


def strip_comments(src):
    """src without comments, its newlines kept (line numbers stay true)."""
    src = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), src, flags=re.S)
    return re.sub(r"//[^\n]*", " ", src)


def c_constants(name, src, out, findings):
    """PX_ #defines and enum entries of a header into out: NAME -> (value, where)."""
    def put(key, expr, where):
        try:
            out[key] = (int_expr(expr), where)
        except (ValueError, SyntaxError):
            findings.append("%s: PX_%s: cannot read its value %r" % (where, key, expr))

    for i, line in enumerate(src.splitlines(), 1):
        m = DEFINE.match(strip_comments(line))
        if m and not m.group(1).endswith("_H"):
            put(m.group(1), m.group(2), "%s:%d" % (name, i))
    body = strip_comments(src)
    for m in ENUM.finditer(body):
        nxt, pos = 0, m.start(1)
        for raw in m.group(1).split(","):
            line = body.count("\n", 0, pos + len(raw) - len(raw.lstrip())) + 1
            pos += len(raw) + 1
            entry = raw.strip()
            if not entry:
                continue
            key, _, expr = entry.partition("=")
            key = key.strip()
            if not key.startswith("PX_"):
                findings.append("%s:%d: enum entry %s has no PX_ prefix" % (name, line, key))
                continue
            if expr.strip():
                put(key[3:], expr, "%s:%d" % (name, line))
            else:
                out[key[3:]] = (nxt, "%s:%d" % (name, line))
            if key[3:] in out:
                nxt = out[key[3:]][0] + 1


def py_constants(name, src, findings):
    """Module-level UPPER_CASE integer constants (NAME = v, or A, B = 1, 2),
    and DTYPES: NAME -> (value, where)."""
    out = {}
    for node in ast.parse(src, name).body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        t, v = node.targets[0], node.value
        pairs = [(t, v)]
        if isinstance(t, ast.Tuple) and isinstance(v, ast.Tuple) and len(t.elts) == len(v.elts):
            pairs = list(zip(t.elts, v.elts))
        for tt, vv in pairs:
            if not isinstance(tt, ast.Name) or not re.fullmatch(r"[A-Z][A-Z0-9_]*", tt.id):
                continue
            where = "%s:%d" % (name, node.lineno)
            if tt.id == "DTYPES":
                try:
                    out["DTYPES"] = (tuple(ast.literal_eval(vv)), where)
                except ValueError:
                    findings.append("%s: DTYPES is not a literal" % where)
                continue
            try:
                out[tt.id] = (int_expr(ast.unparse(vv)), where)
            except (ValueError, SyntaxError):
                pass  # not an integer (USAGE, ...)
    return out


def cpp_body(src, fn):
    """The body of the C++ function fn (to its closing brace in column 0)."""
    m = re.search(r"\b%s\s*\([^)]*\)\s*\{(.*?)\n\}" % fn, src, re.S)
    return m.group(1) if m else ""


def py_body(src, fn):
    """The source of the Python function fn (def at the start of a line)."""
    m = re.search(r"^def %s\(.*?(?=^\S)" % fn, src, re.S | re.M)
    return m.group(0) if m else ""


def cpp_dtypes(src):
    return tuple(DTYPE_IF.findall(cpp_body(src, "parse_dtype")))


def same_strings(findings, what, py_fn, py_strings, cpp_fn, cpp_strings, py_only=()):
    """The string literals two mirrored functions test for must be one set."""
    py_set, cpp_set = set(py_strings) - set(py_only), set(cpp_strings)
    if not py_set or not cpp_set:
        findings.append("%s: cannot find %s's %s in %s() or %s's in %s()" % (PY, what, "strings", py_fn, CPP, cpp_fn))
    elif py_set != cpp_set:
        findings.append("%s: %s() and %s's %s() differ in %s: only in Python %s, only in C++ %s"
                        % (PY, py_fn, CPP, cpp_fn, what, sorted(py_set - cpp_set) or "none",
                           sorted(cpp_set - py_set) or "none"))
    else:
        return 1
    return 0


def by_place(item):
    """Sort key: (file, line) of an item NAME -> (value, "file:line")."""
    f, _, line = item[1][1].rpartition(":")
    return f, int(line)


def check(files):
    """files: path -> text. Returns (findings, number of constants compared)."""
    findings, c = [], {}
    for h in HEADERS:
        c_constants(h, files[h], c, findings)
    picked = {}
    c_constants(RESULTS, files[RESULTS], picked, findings)
    for key in RESULTS_PICKED:
        if key in picked:
            c[key] = picked[key]
        else:
            findings.append("%s: no PX_%s (tests/proto_consts.py's RESULTS_PICKED names it)" % (RESULTS, key))
    py = py_constants(PY, files[PY], findings)
    compared = 0
    for key, (value, where) in sorted(c.items(), key=by_place):
        if key in C_ONLY:
            if key in py:
                findings.append("%s: %s is in C_ONLY (%s) but the Python executor defines it: "
                                "take it out of C_ONLY" % (py[key][1], key, C_ONLY[key]))
            continue
        if key not in py:
            findings.append("%s: PX_%s = %#x (%d) is missing from %s (add %s = ..., or list it "
                            "in tests/proto_consts.py's C_ONLY with the reason)"
                            % (where, key, value, value, PY, key))
        elif py[key][0] != value:
            findings.append("%s: %s = %#x (%d), but %s has PX_%s = %#x (%d)"
                            % (py[key][1], key, py[key][0], py[key][0], where, key, value, value))
        else:
            compared += 1
    for key in sorted(set(C_ONLY) - set(c)):
        findings.append("tests/proto_consts.py: C_ONLY names %s, which no header defines" % key)
    for key, (value, where) in sorted(py.items(), key=by_place):
        if key != "DTYPES" and key not in c and key not in PY_ONLY:
            findings.append("%s: %s = %d has no PX_%s in %s (a typo, or list it in PY_ONLY)"
                            % (where, key, value, key, " or ".join(HEADERS)))
    dt = cpp_dtypes(files[CPP])
    if not dt:
        findings.append("%s: no parse_dtype with if (s == \"...\") return lines found" % CPP)
    elif "DTYPES" not in py:
        findings.append("%s: no DTYPES (parse_dtype in %s accepts %s)" % (PY, CPP, ", ".join(dt)))
    elif py["DTYPES"][0] != dt:
        findings.append("%s: DTYPES = %s, but %s's parse_dtype accepts %s"
                        % (py["DTYPES"][1], ", ".join(py["DTYPES"][0]), CPP, ", ".join(dt)))
    else:
        compared += 1
    # The executors' command line (proto.h, "Transport"); --backend-module
    # and the --compile-* options (torch.compile) are the Python executor's
    # alone.
    compared += same_strings(findings, "the options", "parse_args",
                             re.findall(r'"(--[a-z0-9-]+)"', py_body(files[PY], "parse_args")), "parse_args",
                             re.findall(r'a == "(--[a-z0-9-]+)"', cpp_body(files[CPP], "parse_args")),
                             py_only=("--backend-module", "--compile-backend", "--compile-mode",
                                      "--compile-dynamic"))
    # FAIL's kind: the wording by which a backend says it cannot do that.
    compared += same_strings(findings, "the unsupported wording", "unsupported",
                             re.findall(r'"([^"]+)" in text', py_body(files[PY], "unsupported")), "fail_kind",
                             re.findall(r'strstr\(msg, "([^"]+)"\)', cpp_body(files[CPP], "fail_kind")))
    return findings, compared


def read_all():
    files = {}
    for p in HEADERS + (PY, CPP, RESULTS):
        with open(os.path.join(ROOT, p), encoding="utf-8") as f:
            files[p] = f.read()
    return files


def self_test(files):
    """Each mutation of a copy must fail naming what it broke."""
    def sub(path, old, new):
        def mutate(fs):
            fs = dict(fs)
            if old not in fs[path]:
                raise SystemExit("proto_consts self-test: %r not in %s" % (old, path))
            fs[path] = fs[path].replace(old, new, 1)
            return fs
        return mutate

    cases = [
        ("a frame type changed in Python", sub(PY, "FRAME_RUN = 0x204E5552", "FRAME_RUN = 0x204E5553"),
         "FRAME_RUN"),
        ("a constant deleted from Python", sub(PY, "GEN_MAX_TOP = 16\n", ""), "GEN_MAX_TOP"),
        ("a tuple entry changed in Python", sub(PY, "STAGE_DEVICE, STAGE_LOAD, STAGE_FORWARD = 1, 2, 3",
                                                "STAGE_DEVICE, STAGE_LOAD, STAGE_FORWARD = 1, 3, 3"),
         "STAGE_LOAD"),
        ("the revision raised in C", sub(HEADERS[0], "#define PX_PROTO_VERSION 9u",
                                         "#define PX_PROTO_VERSION 10u"), "PROTO_VERSION"),
        ("a new #define in C", sub(HEADERS[0], "#define PX_MAX_DIMS 8",
                                   "#define PX_MAX_DIMS 8\n#define PX_NEW_LIMIT (1u << 4)"),
         "NEW_LIMIT"),
        ("an enum entry renumbered in C", sub(HEADERS[0], "PX_COMPILED_NO = 1,", "PX_COMPILED_NO,"),
         None),  # implicit value = previous + 1 = 1: still equal, must pass
        ("an implicit enum value moved in C", sub(HEADERS[0], "PX_COMPILED_UNKNOWN = 0,",
                                                  "PX_COMPILED_UNKNOWN = 0, PX_COMPILED_MAYBE,"),
         "COMPILED_MAYBE"),
        ("a results.h image limit changed", sub(RESULTS, "#define PX_IMAGE_MAX_LATENT 65536",
                                                "#define PX_IMAGE_MAX_LATENT 65537"), "IMAGE_MAX_LATENT"),
        ("a generate.h enum changed", sub(HEADERS[1], "PX_GEN_END_LENGTH = 2", "PX_GEN_END_LENGTH = 7"),
         "GEN_END_LENGTH"),
        ("a Python-only constant", sub(PY, "MAX_DIMS = 8\n", "MAX_DIMS = 8\nMAX_DIM = 8\n"), "MAX_DIM "),
        ("a dtype added to the C++ executor", sub(CPP, 'if (s == "float64") return torch::kFloat64;',
                                                  'if (s == "float64") return torch::kFloat64;\n'
                                                  '    if (s == "int8") return torch::kInt8;'), "DTYPES"),
        ("an option added to the C++ executor", sub(CPP, 'else if (a == "--tf32")',
                                                    'else if (a == "--seed") o.tf32 = v;\n        else if (a == "--tf32")'),
         "--seed"),
        ("the unsupported wording changed in Python", sub(PY, '"not implemented for" in text',
                                                          '"not supported for" in text'), "not supported for"),
    ]
    bad = 0
    for what, mutate, name in cases:
        findings, _ = check(mutate(files))
        if name is None:
            ok = not findings
        else:
            ok = len(findings) == 1 and name in findings[0]
        print("proto_consts self-test: %s: %s%s" % (what, "ok" if ok else "WRONG",
                                                     "" if ok else " " + repr(findings)))
        bad += not ok
    return bad


def main(argv):
    files = read_all()
    if argv[1:] == ["--self-test"]:
        if self_test(files):
            return 1
    elif argv[1:]:
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    findings, compared = check(files)
    for f in findings:
        print(f)
    if findings:
        print("proto_consts: %s disagrees with the headers (%d finding(s))" % (PY, len(findings)))
        return 1
    print("proto_consts: %d constants of %s agree with %s, and its dtypes, options and unsupported wording "
          "with %s's" % (compared, PY, " and ".join(HEADERS), CPP))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

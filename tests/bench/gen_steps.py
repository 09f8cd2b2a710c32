"""make bench (tests/bench/generate.sh): each generated token's time as the
Python executor measures it (generate_steps' step_ms: the step's forward and
the copy of its row to the host), with the cache (how a Transformers causal
LM generates) and, for comparison, without it (a forward of the whole
sequence each step, how a TorchScript generator generates), on one model in
one process, alternating.

    PYTHON gen_steps.py EXECUTOR.py MODEL_DIR RUNS NEW ID...

prints one line per run and way: "cache|nocache ms_1 ms_2 ... ms_NEW".
"""

import importlib.util
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def main(argv):
    script, model_dir, runs, new, prompt = argv[0], argv[1], int(argv[2]), int(argv[3]), [int(x) for x in argv[4:]]
    spec = importlib.util.spec_from_file_location("parity_torch", script)
    pt = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pt)
    import torch
    ex = pt.Executor(torch, pt.parse_args(["--model", model_dir, "--format", "transformers", "--kind", "generator",
                                           "--device", "cpu", "--dtype", "float32", "--threads", "1"]))
    ex.open_device()
    ex.load()  # as parity's executor loads it
    if not ex.uses_cache():
        sys.exit("gen_steps.py: the executor would not use the cache for %s" % model_dir)
    req = {"max_new": new, "stop": set(), "settings": (pt.GEN_GREEDY, 1.0, 0), "seed": 0, "report_top": 5,
           "names": ["input_ids", "attention_mask"], "ids": prompt}
    ex.generate_steps(dict(req, max_new=2))  # warm: the first forwards of all
    for _ in range(runs):
        for name, cache in (("cache", None), ("nocache", False)):
            ms = ex.generate_steps(req, cache=cache)[6]
            print(name, " ".join("%.4f" % x for x in ms), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

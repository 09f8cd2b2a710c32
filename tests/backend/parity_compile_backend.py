"""A torch.compile backend from a module, for tests/test_cmd_compile.c: the
way a TPU's package registers its own compile backend. Imported with
`--backend-module parity_compile_backend` (PYTHONPATH naming tests/backend),
it registers the backend "parity_test_backend" with torch._dynamo, which a
fixture can never name: only `--compile-backend ENV=parity_test_backend`
chooses it. Each graph it is given is run as it is (eager), after one line
is appended to the file named by PARITY_COMPILE_BACKEND_LOG: the test reads
that the executor really compiled through it.
"""

import os

import torch

__version__ = "0.0.1-test"


def _compile(gm, example_inputs):
    log = os.environ.get("PARITY_COMPILE_BACKEND_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write("graph of %d inputs\n" % len(example_inputs))
    return gm.forward


torch._dynamo.register_backend(name="parity_test_backend")(_compile)

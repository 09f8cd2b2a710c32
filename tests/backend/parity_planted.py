"""A planted backend module for the Python executor's tests
(tests/test_cmd_python.c): `--backend-module parity_planted` with PYTHONPATH
naming tests/backend imports it before the device is opened, the way
torch_tpu or torch_xla is imported on an accelerator host. What it does on
import is chosen by the environment variable PARITY_PLANTED:

    print   writes to stdout (which the executor must have moved to stderr,
            or the protocol stream is corrupted) and then works normally
    abort   os.abort(): the executor dies of SIGABRT during start-up
    hang    sleeps for an hour: start-up never answers
    raise   raises RuntimeError with a backend-like message
    exit    calls sys.exit(3), as a badly behaved module might
    leak    raises RuntimeError echoing the environment variable
            PARITY_PLANTED_SECRET, as a backend that logs its configuration
            might (the redaction tests)

Anything else (or unset): nothing happens. It never touches torch.
"""

import os
import sys
import time

__version__ = "0.0.1-planted"

_what = os.environ.get("PARITY_PLANTED", "")
if _what == "print":
    print("parity_planted: chatter on stdout that must not reach the protocol stream")
    sys.stdout.flush()
    os.write(1, b"and raw bytes on fd 1 too\n")
elif _what == "abort":
    os.abort()
elif _what == "hang":
    time.sleep(3600)
elif _what == "raise":
    raise RuntimeError("parity_planted: no TPU runtime found on this host (planted)")
elif _what == "exit":
    sys.exit(3)
elif _what == "leak":
    raise RuntimeError("parity_planted: the runtime refused its configuration: "
                       f"TPU_AUTH_TOKEN={os.environ.get('PARITY_PLANTED_SECRET', '')} "
                       f"HF_HOME={os.environ.get('HOME', '')}/.cache/huggingface")

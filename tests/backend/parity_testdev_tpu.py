"""The test device of parity_testdev.cpp presented the way TorchTPU presents
a TPU (torch 2 only): `--backend-module parity_testdev_tpu`, with PYTHONPATH
naming tests/backend, loads the library named by $PARITY_TESTDEV (the tests
and make check set it: build/torch2/libparity_testdev.so for the venv's
torch), renames PrivateUse1 to "tpu", registers a device module torch.tpu
(is_available, device_count, current_device, synchronize, get_device_name,
as torch.cuda has them) and generates the tensor and module methods
(Tensor.tpu(), is_tpu, ...). A fixture then says `device: tpu`, and the
manifest records "tpu", the device's own name.

On torch 1.13, which cannot rename PrivateUse1, importing it raises an
ImportError naming the torch version it needs.
"""

import os
import types

import torch

__version__ = "0.1.0-testdev"

NAME = "tpu"

if not hasattr(torch.utils, "rename_privateuse1_backend"):
    raise ImportError("parity_testdev_tpu needs torch 2 (torch.utils.rename_privateuse1_backend); this is torch %s"
                      % torch.__version__)

_lib = os.environ.get("PARITY_TESTDEV", "")
if not _lib:
    raise ImportError("parity_testdev_tpu: set PARITY_TESTDEV to the test device's library "
                      "(build/torch2/libparity_testdev.so)")
torch.ops.load_library(_lib)
torch.utils.rename_privateuse1_backend(NAME)


def is_available():
    return True


def device_count():
    return 1


def current_device():
    return 0


def synchronize(device=None):
    """What torch.tpu.synchronize does on an accelerator: waits for the
    device's work, through the device guard (the library's
    synchronizeDevice)."""
    torch.accelerator.synchronize(device)


def get_device_name(device=None):
    return "parity test device (tests/backend/parity_testdev.cpp) as tpu"


def _is_in_bad_fork():
    return False


def manual_seed_all(seed):
    pass


_module = types.ModuleType("torch." + NAME)
for _f in (is_available, device_count, current_device, synchronize, get_device_name, _is_in_bad_fork,
           manual_seed_all):
    setattr(_module, _f.__name__, _f)
torch._register_device_module(NAME, _module)
torch.utils.generate_methods_for_privateuse1_backend(for_tensor=True, for_module=True, for_storage=True)

"""Deterministic TorchScript files, for the programs that build the models
this repository commits (src/tools/train_demo.py, src/tools/train_blurbs.py,
tests/models/make_models.py): the same module gives byte-identical bytes, so
a model's sha256 can be pinned in a fixture and checked after a rebuild.

torch.jit.save alone is not deterministic: the *.debug_pkl records embed the
absolute paths and source text of the program and of torch's own modules,
and the zip carries timestamps. canonical_torchscript rewrites the archive:
the same entries in the same order, stored (uncompressed) with fixed
timestamps and without the optional *.debug_pkl source-range records, and
torch 2's random .data/serialization_id made zeros. Tensor
data keeps the 64-byte alignment PyTorch uses, through padding in the local
header's extra field ("FB" + size + filler), as PyTorch's own writer does.
"""

import hashlib
import io
import os
import zipfile

FIXED_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def canonical_torchscript(raw: bytes) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(raw))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            if info.filename.endswith(".debug_pkl"):
                continue
            data = src.read(info.filename)
            if info.filename.endswith(".data/serialization_id"):
                # torch 2 writes a random id per save (torch.jit.save and
                # torch.save alike); loading does not read it as a key.
                data = b"0" * len(data)
            zi = zipfile.ZipInfo(info.filename, date_time=FIXED_ZIP_TIME)
            zi.compress_type = zipfile.ZIP_STORED
            zi.create_system = 0
            zi.external_attr = 0
            # local header = 30 bytes + name + extra; the data aligned to 64
            offset = buf.tell() + 30 + len(info.filename.encode("utf-8"))
            pad = (-(offset + 4)) % 64
            zi.extra = b"FB" + pad.to_bytes(2, "little") + b"Z" * pad
            dst.writestr(zi, data)
    return buf.getvalue()


def sha256_bytes(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def save_model_and_vocab(model, vocab, out_dir):
    """model (a torch.nn.Module, put in eval mode and scripted) as
    OUT/model.pt, canonical, and vocab (a list of tokens) as OUT/vocab.txt,
    one token a line; prints the sha256 of each, as a fixture pins them.
    Returns (model_path, vocab_path)."""
    import torch  # the caller has it; this module's hashing does not need it

    model.eval()
    raw = io.BytesIO()
    torch.jit.save(torch.jit.script(model), raw)
    model_bytes = canonical_torchscript(raw.getvalue())
    vocab_bytes = "".join(tok + "\n" for tok in vocab).encode("utf-8")
    os.makedirs(out_dir, exist_ok=True)
    model_path = os.path.join(out_dir, "model.pt")
    vocab_path = os.path.join(out_dir, "vocab.txt")
    with open(vocab_path, "wb") as f:
        f.write(vocab_bytes)
    with open(model_path, "wb") as f:
        f.write(model_bytes)
    for p, b in ((vocab_path, vocab_bytes), (model_path, model_bytes)):
        print(f"{sha256_bytes(b)}  {p}  ({len(b)} bytes)")
    return model_path, vocab_path

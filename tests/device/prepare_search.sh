#!/bin/bash
# Prepares the search demo's device check (tests/device/search_check.sh) on a
# lent GPU machine that has torch but neither parity's C libraries nor
# transformers: .dev/ holds this machine's parity, the libraries it needs,
# the Python executor, the model's tokenizer.json and fixtures/campus-search
# rewritten for the GPU (the model as a TorchScript trace of the same
# weights, tests/device/trace_minilm.py, which parity-torch loads; cuda
# environments in float32 with TF32 off and on, and bfloat16). The trace is
# 91 MB, more than one run carries (64 MiB), so it travels in two halves:
#   run: bash tests/device/search_check.sh build   carry: [".dev", ".dev-m1"]
#   run: bash tests/device/search_check.sh run     carry: [".dev-m2"]
# (add /.dev/ /.dev-m1/ /.dev-m2/ to .git/info/exclude).
set -euo pipefail
cd "$(dirname "$0")/../.."
rm -rf .dev .dev-m1 .dev-m2 && mkdir -p .dev/lib .dev-m1 .dev-m2
cp build/parity src/executor/parity_torch.py .dev/
for l in $(ldd build/parity | awk '$3 ~ /^\// {print $3}' | grep -v 'libc\.so\|libm\.so'); do cp -L "$l" .dev/lib/; done
cp build/models/all-MiniLM-L6-v2/tokenizer.json .dev/minilm-tokenizer.json
HF_HUB_OFFLINE=1 build/venv/bin/python tests/device/trace_minilm.py build/models/all-MiniLM-L6-v2 /tmp/minilm.pt 2>/dev/null
sha=$(sha256sum /tmp/minilm.pt | cut -d' ' -f1)
split -n 2 -d /tmp/minilm.pt /tmp/minilm.pt.part && mv /tmp/minilm.pt.part00 .dev-m1/ && mv /tmp/minilm.pt.part01 .dev-m2/
SHA=$sha python3 - <<'PY'
import os, re
s = open('fixtures/campus-search/fixture.yaml').read()
# The model: the trace (TorchScript) in place of the Transformers directory.
s = re.sub(r'    format: transformers\n    path: \S+\n    files:\n(      .*\n)+',
           '    path: minilm.pt   # tests/device/trace_minilm.py: the same weights, traced\n'
           '    sha256: "%s"\n' % os.environ['SHA'], s)
s = s.replace('file: ../../build/models/all-MiniLM-L6-v2/tokenizer.json', 'file: minilm-tokenizer.json')
head, envs_examples = s.split('\nenvironments:\n', 1)
envs, examples = envs_examples.split('\nexamples:\n', 1)
new = ''
for name, dev, dtype, tf32, py, role, note in (
        ('reference', 'cpu', 'float32', None, 0, 'reference', 'the trace on the CPU in float32 (parity-torch)'),
        ('cpu-bf16', 'cpu', 'bfloat16', None, 0, 'twin', 'a CPU twin of bfloat16 numerics, not a TPU'),
        ('cuda-f32', 'cuda:0', 'float32', 'false', 0, 'candidate', 'the GPU in float32, TF32 off'),
        ('cuda-f32-tf32', 'cuda:0', 'float32', 'true', 0, 'candidate', 'the GPU in float32 with TF32 matmuls'),
        ('cuda-bf16', 'cuda:0', 'bfloat16', None, 0, 'candidate', 'the GPU in bfloat16'),
        ('cuda-py-bf16', 'cuda:0', 'bfloat16', None, 1, 'candidate', 'the GPU in bfloat16, Python executor')):
    new += f'  {name}:\n    device: {dev}\n    dtype: {dtype}\n    threads: 1\n'
    new += f'    tf32: {tf32}\n' if tf32 else ''
    new += '    executor: python\n' if py else ''
    new += f'    role: {role}\n    note: {note}\n'
open('.dev/search-cuda.yaml', 'w').write(head + '\nenvironments:\n' + new + '\nexamples:\n' + examples)
PY
cat .dev-m1/* .dev-m2/* | sha256sum | grep -q "$sha" && echo "halves join to $sha"
build/parity lint .dev/search-cuda.yaml || true
du -sh .dev .dev-m1 .dev-m2

#!/bin/bash
# Prepares the search demo's device check (tests/device/search_check.sh) on a
# lent GPU machine that has torch and transformers but not parity's C
# libraries: .dev/ holds this machine's parity, the libraries it needs, the
# Python executor, the real all-MiniLM-L6-v2 directory but its weights, and
# fixtures/campus-search rewritten for the GPU: the CPU float32 reference and
# bfloat16 twin as in the demo, and cuda float32 with TF32 off and on and
# cuda bfloat16, all through the Python executor (transformers loads the
# directory). The weights (model.safetensors, 91 MB) are more than one run
# carries (64 MiB), so they travel in two halves:
#   run: bash tests/device/search_check.sh build   carry: [".dev", ".dev-m1"]
#   run: bash tests/device/search_check.sh run     carry: [".dev-m2"]
# (add /.dev/ /.dev-m1/ /.dev-m2/ to .git/info/exclude).
set -euo pipefail
cd "$(dirname "$0")/../.."
rm -rf .dev .dev-m1 .dev-m2 && mkdir -p .dev/lib .dev-m1 .dev-m2
cp build/parity src/executor/parity_torch.py .dev/
for l in $(ldd build/parity | awk '$3 ~ /^\// {print $3}' | grep -v 'libc\.so\|libm\.so'); do cp -L "$l" .dev/lib/; done
M=build/models/all-MiniLM-L6-v2
mkdir -p .dev/minilm && (cd $M && tar cf - --exclude=model.safetensors .) | (cd .dev/minilm && tar xf -)
split -n 2 -d $M/model.safetensors .dev-m1/st.part && mv .dev-m1/st.part01 .dev-m2/
python3 - <<'PY'
s = open('fixtures/campus-search/fixture.yaml').read()
s = s.replace('../../build/models/all-MiniLM-L6-v2', 'minilm')
head, envs_examples = s.split('\nenvironments:\n', 1)
envs, examples = envs_examples.split('\nexamples:\n', 1)
new = ''
for name, dev, dtype, tf32, role, note in (
        ('reference', 'cpu', 'float32', None, 'reference', 'the Transformers directory on the CPU in float32'),
        ('cpu-bf16', 'cpu', 'bfloat16', None, 'twin', 'a CPU twin of bfloat16 numerics, not a TPU'),
        ('cuda-f32', 'cuda:0', 'float32', 'false', 'candidate', 'the GPU in float32, TF32 off'),
        ('cuda-f32-tf32', 'cuda:0', 'float32', 'true', 'candidate', 'the GPU in float32 with TF32 matmuls'),
        ('cuda-bf16', 'cuda:0', 'bfloat16', None, 'candidate', 'the GPU in bfloat16')):
    new += f'  {name}:\n    executor: python\n    device: {dev}\n    dtype: {dtype}\n    threads: 1\n'
    new += f'    tf32: {tf32}\n' if tf32 else ''
    new += f'    role: {role}\n    note: {note}\n'
open('.dev/search-cuda.yaml', 'w').write(head + '\nenvironments:\n' + new + '\nexamples:\n' + examples)
PY
cat .dev-m1/* .dev-m2/* | cmp - $M/model.safetensors && echo "halves join to model.safetensors"
du -sh .dev .dev-m1 .dev-m2

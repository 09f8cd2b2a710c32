#!/bin/bash
# Prepares .dev/ (ignored: add /.dev/ to .git/info/exclude) for
# tests/device/cuda_check.sh on a lent GPU machine, which has torch but not
# parity's C libraries: this machine's parity binary and the shared
# libraries it needs, the Python executor beside it, the campus demo with
# cuda environments (float32 with TF32 off and on, bfloat16 through both
# executors), and the ticket model. Then, with the device tool:
#   run: bash tests/device/cuda_check.sh   carry: [".dev"]
set -euo pipefail
cd "$(dirname "$0")/../.."
rm -rf .dev && mkdir -p .dev/lib
cp build/parity src/executor/parity_torch.py .dev/
for l in $(ldd build/parity | awk '$3 ~ /^\// {print $3}' | grep -v 'libc\.so\|libm\.so'); do cp -L "$l" .dev/lib/; done
cp -r tests/models/ticket .dev/ticket
python3 - <<'PY'
s = open('fixtures/campus-club/fixture.yaml').read()
s = s.replace('path: model.pt', 'path: ../fixtures/campus-club/model.pt')
s = s.replace('vocab: vocab.txt', 'vocab: ../fixtures/campus-club/vocab.txt')
envs = ''
for name, dtype, tf32, py, note in (('cuda-f32', 'float32', 'false', 0, 'float32, TF32 off'),
                                    ('cuda-f32-tf32', 'float32', 'true', 0, 'float32 with TF32 matmuls'),
                                    ('cuda-bf16', 'bfloat16', None, 0, 'bfloat16'),
                                    ('cuda-py-bf16', 'bfloat16', None, 1, 'bfloat16 through the Python executor')):
    envs += f'  {name}:\n    device: cuda:0\n    dtype: {dtype}\n    threads: 1\n'
    envs += f'    tf32: {tf32}\n' if tf32 else ''
    envs += '    executor: python\n' if py else ''
    envs += f'    role: candidate\n    note: the GPU in {note}\n'
s = s.replace('\nexamples:\n', '\n' + envs + '\nexamples:\n', 1)
open('.dev/campus-cuda.yaml', 'w').write(s)
PY
build/parity lint .dev/campus-cuda.yaml
du -sh .dev

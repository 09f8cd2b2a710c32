#!/bin/bash
# The device check (prepared by tests/device/prepare.sh): parity-torch built on the machine's torch (CUDA),
# the campus demo on cuda float32 (TF32 off/on) and bfloat16 (both
# executors), and the ticket model (three inputs, dict output) from init
# --propose (DESCRIBE) to a check with a cuda twin.
set -u
cd "$(dirname "$0")/../.."
export OUT=${OUT:-/tmp/out} HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1
nvidia-smi -L; python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name(0))'
T=$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))')
t0=$(date +%s)
make -j16 LIBTORCH=$T TORCH_BUILD=build/cuda executor-and-testdev > $OUT/build.log 2>&1 \
  || make -j16 LIBTORCH=$T TORCH_BUILD=build/cuda WARN=-w executor-and-testdev >> $OUT/build.log 2>&1 \
  || { tail -40 $OUT/build.log; exit 1; }
echo "built parity-torch in $(( $(date +%s) - t0 )) s"
export LD_LIBRARY_PATH=$PWD/.dev/lib PARITY_TORCH=$PWD/build/cuda/parity-torch PARITY_PYTHON=$(command -v python3)
P=$PWD/.dev/parity
$P run .dev/campus-cuda.yaml -o $OUT/campus-results.yaml 2>&1 | tee $OUT/campus-run.txt
$P check .dev/campus-cuda.yaml --results $OUT/campus-results.yaml --no-run > $OUT/campus-check.txt 2>&1; echo "check exit $?"
$P check .dev/campus-cuda.yaml --results $OUT/campus-results.yaml --no-run --format json > $OUT/campus-check.json 2>/dev/null
grep -E "^[a-z].*\((reference|twin|candidate)\)|counts:|environment:" $OUT/campus-check.txt
rm -rf /tmp/tk
$P init /tmp/tk --model .dev/ticket/model.pt --tokenizer .dev/ticket/tokenizer.json --labels billing,bug,account,feature --texts .dev/ticket/texts.txt --propose; echo "init exit $?"
python3 - <<'PY'
p='/tmp/tk/fixture.yaml'; s=open(p).read()
s=s.replace('\nexamples:\n','''  cuda-bf16:
    device: cuda:0
    dtype: bfloat16
    threads: 1
    role: candidate
  cuda-py-f32:
    device: cuda:0
    dtype: float32
    threads: 1
    tf32: true
    executor: python
    role: candidate

examples:
''',1)
open(p,'w').write(s)
PY
$P lint /tmp/tk/fixture.yaml | grep -v "has no why\|carries the reference\|placeholder\|undecided\|compare.logits"; echo "lint done"
$P run /tmp/tk/fixture.yaml -o /tmp/tk/r.yaml 2>&1 | tee $OUT/ticket-run.txt
$P check /tmp/tk/fixture.yaml --results /tmp/tk/r.yaml --no-run > $OUT/ticket-check.txt 2>&1; echo "ticket check exit $?"
grep -E "^[a-z].*\((reference|twin|candidate)\)|counts:" $OUT/ticket-check.txt
cp /tmp/tk/fixture.yaml $OUT/ticket-fixture.yaml

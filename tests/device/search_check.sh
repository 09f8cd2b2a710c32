#!/bin/bash
# The search demo on a GPU (prepared by tests/device/prepare_search.sh), in
# two runs because the model travels in two halves:
#   build: parity-torch against the machine's torch (CUDA), and its Python's
#          transformers (the Python executor loads the directory with it);
#   run:   join the weights, then run and check .dev/search-cuda.yaml: the
#          CPU float32 reference, the CPU bfloat16 twin, cuda float32 with
#          TF32 off and on, cuda bfloat16.
set -u
cd "$(dirname "$0")/../.."
export OUT=${OUT:-/tmp/out} HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1
T=$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))')
case "${1:-}" in
build)
    nvidia-smi -L; python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, torch.cuda.get_device_name(0))'
    python3 -c 'import transformers; print("transformers", transformers.__version__)' 2>&1 | tail -1
    t0=$(date +%s)
    make -j16 LIBTORCH=$T TORCH_BUILD=build/cuda executor-and-testdev > $OUT/build.log 2>&1 \
      || { tail -40 $OUT/build.log; exit 1; }
    echo "built parity-torch in $(( $(date +%s) - t0 )) s"
    # Carried paths do not outlive the run that carried them; build outputs do.
    rm -rf build/dev-keep && mkdir -p build/dev-keep && cp -r .dev .dev-m1 build/dev-keep/ && du -sh build/dev-keep ;;
run)
    [ -d .dev ] || cp -r build/dev-keep/.dev .
    [ -d .dev-m1 ] || cp -r build/dev-keep/.dev-m1 .
    cat .dev-m1/* .dev-m2/* > .dev/minilm/model.safetensors && ls -la .dev/minilm/model.safetensors
    export LD_LIBRARY_PATH=$PWD/.dev/lib PARITY_TORCH=$PWD/build/cuda/parity-torch PARITY_PYTHON=$(command -v python3)
    P=$PWD/.dev/parity F=.dev/search-cuda.yaml
    $P lint $F
    $P run $F -o $OUT/search-results.yaml 2>&1 | tee $OUT/search-run.txt
    $P check $F --results $OUT/search-results.yaml --no-run > $OUT/search-check.txt 2>&1; echo "check exit $?"
    $P check $F --results $OUT/search-results.yaml --no-run --format json > $OUT/search-check.json 2>/dev/null
    grep -E "^[a-z].*\((reference|twin|candidate)\)|counts:|search:|searches" $OUT/search-check.txt | head -80
    cp $F $OUT/ ;;
*) echo "usage: search_check.sh build|run" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# The GPU check of issue 22, in one run: the package's tests on CUDA, then the bfloat16
# benchmark of the table (B=32, d_model 768, 12 heads, d_ff 3072; S = 128, 512, 2048
# and 8192 (B=8), without and with 25 % padding; inference and a training step; ours/torch).
#
#   bash benchmarks/gpu_check.sh [OUT_DIR]        # default $OUT, else /tmp/gpu-check
#
# If the directory gpu_before/ holds an older encoder/ and benchmarks/ (not committed), the
# same benchmark runs on it afterwards: before and after on one machine. Each part has its
# own time limit (TEST_S, BENCH_S seconds), so a slow part cannot starve the next.
set -u
out=${1:-${OUT:-/tmp/gpu-check}}
mkdir -p "$out"
py=${PYTHON:-python}
here=$(pwd)

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
"$py" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name())"

# The machine may lack the site's tools: the pages' fences (conftest.py at the root, run by
# pytest-markdown-docs) and the workflow tests.
extra=(-o addopts= --confcutdir=tests)
"$py" -c "import yaml" 2>/dev/null || extra+=(--ignore=tests/test_workflows.py)
echo "== package tests on CUDA"
timeout "${TEST_S:-170}" "$py" -m pytest tests -x -q -p no:cacheprovider \
    --ignore=tests/site --ignore=tests/docs_build "${extra[@]}" 2>&1 | tail -30 | tee "$out/tests.txt"

bench=(-m benchmarks.bench_encoder_layer --device cuda --dtypes bfloat16 --budget 2
       --max-repeats 60 --save)
echo "== benchmark, this commit"
timeout "${BENCH_S:-110}" "$py" "${bench[@]}" --output "$out/after.json" 2>&1 | tee "$out/after.txt"
if [ -d gpu_before/encoder ]; then
    echo "== benchmark, gpu_before/"
    cd gpu_before && BENCH_GIT_COMMIT=${BEFORE_COMMIT:-before} timeout "${BENCH_S:-110}" \
        "$py" "${bench[@]}" --output "$out/before.json" 2>&1 | tee "$out/before.txt"
    cd "$here"
fi

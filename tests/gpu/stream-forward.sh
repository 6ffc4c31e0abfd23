#!/bin/bash
# tests/gpu/stream-forward.sh: the stream-launched vendor forward against PyTorch's (issue 49),
# on a lent machine, from the checkout with the bundle at .gpu/bundle.txz (docs/BENCHMARKS.md):
# the card's state, PyTorch's eager forwards of ResNet-50 fp16 and ResNet-18 TF32
# (tests/gpu/torch-forward.py: BN folded, channels_last, batch 32), then
# experiments/gpu-stream.toml (cuDNN's graph API, its A/A copy, its legacy API), its report's
# e2e rows, A/A control and audit summary.  Files under $OUT.
set -u
cd "$(dirname "$0")/../.."
[ -d bundle ] || tar -xJf .gpu/bundle.txz
B=bundle/run.sh
R=/root/gpustream
mkdir -p $R
. "$PWD/tests/gpu/card-state.sh" # q: the card's state
date -u +%FT%TZ; q; nproc
python3 tests/gpu/torch-forward.py resnet50 float16 2>&1 | tail -3
python3 tests/gpu/torch-forward.py resnet18 tf32 2>&1 | tail -2
q
cp experiments/gpu-stream.toml bundle/experiments/
/usr/bin/time -f "wall %e s, maxrss %M KB" $B run -o $R/stream.h5 bundle/experiments/gpu-stream.toml > $OUT/run.txt 2>&1
echo "run exit $?"; tail -1 $OUT/run.txt
q
$B report $R/stream.h5 > $OUT/report.md 2>&1
$B audit $R/stream.h5 > $OUT/audit.md 2>&1
grep -E "^\| [a-z0-9-]+/e2e" $OUT/report.md | cut -c1-260
sed -n '/^## A\/A control/,/^$/p' $OUT/report.md | head -12
grep -E "^\| (default|default-aa) " $OUT/report.md | head
grep -cE "FAIL" $OUT/audit.md
cp $R/stream.h5 $OUT/

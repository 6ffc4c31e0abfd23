#!/bin/bash
# tests/gpu/tuners-run.sh: the field's tuners live on the CUDA backend (issue 47), on a lent
# GPU machine with the bundle at .gpu/bundle.txz (`make bundle`): a 2048^3 fp16 GEMM and a
# ResNet-50 3x3 convolution, vendor, exhaustive and each tuner of TUNERS with 15 trials
# (default: genetic-algorithm, pso, differential-evolution, bayes-opt: stop 57's run), BLOCKS
# blocks (2); then the report, the audit and a replay of REPLAY's tuners (harness's score and
# the methodology's) on the exhaustive unit.  tests/gpu/annealing-run.sh sets them for stop
# 56's run.  Files to $OUT.
set -u
cd "$(dirname "$0")/../.."
[ -d bundle ] || tar -xJf .gpu/bundle.txz
B=$PWD/bundle/run.sh
R=/root/tunersrun
rm -rf $R; mkdir -p $R
. "$PWD/tests/gpu/card-state.sh" # q: the card's state
{ date -u +%FT%TZ; q; nproc; } > $OUT/host.txt 2>&1
cat > $R/t.toml <<EOS
schema = 1
name = "tuners-gpu"
repeats = ${BLOCKS:-2}
seed = 47
backend = "cuda"
[measure]
warmup_time = 0.002
min_samples = 10
max_samples = 100
max_time = 0.1
flush = false
trial_samples = 3
[[workloads]]
name = "g"
op = "gemm"
shape = { m = 2048, n = 2048, k = 2048 }
dtype = "float16"
[[workloads]]
name = "c3"
op = "conv2d_bias_relu"
shape = { c = 128, h = 28, w = 28, k = 128, r = 3, stride = 1, pad = 1 }
batch = 32
dtype = "float16"
[[modes]]
name = "vendor"
tuner = "vendor"
[[modes]]
name = "exhaustive"
tuner = "exhaustive"
EOS
for t in ${TUNERS:-genetic-algorithm pso differential-evolution bayes-opt}; do
	printf '[[modes]]\nname = "%s"\ntuner = "%s"\noptions = { max_trials = 15 }\n' "$t" "$t" >> $R/t.toml
done
/usr/bin/time -v $B run -o $R/t.h5 $R/t.toml > $OUT/run.txt 2>&1
echo "exit $?" >> $OUT/run.txt
$B report $R/t.h5 > $OUT/report.md 2>&1
$B audit $R/t.h5 > $OUT/audit.md 2>&1
$B replay $R/t.h5 --tuners "${REPLAY:-random,simulated-annealing,genetic-algorithm,pso,differential-evolution,bayes-opt,coordinate-descent}" \
	--budget 15 --seeds 100 --score methodology > $OUT/replay.md 2>&1
{ date -u +%FT%TZ; q; } >> $OUT/host.txt 2>&1
ls -la $OUT

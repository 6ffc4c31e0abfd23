#!/bin/bash
# tests/gpu/cluster-run.sh: conv.cu's clusters (CLUSTER 2: A shared by TMA multicast, issue 49's
# second item) on a lent machine, from the checkout with the bundle at .gpu/bundle.txz
# (docs/BENCHMARKS.md): the card's state; a smoke run (every CLUSTER=2 config of the 512-
# channel 3x3 at 7 x 7, each checked against the float64 reference, a 60 s unit limit, so a
# hang shows at once); experiments/gpu-cluster.toml (ResNet-50's 24 convolutions, conv.cu's
# whole space against cuDNN) and its tables (scripts/layer-table.py over all templates and
# over each CLUSTER value, scripts/field-pairs.py, clusters along n and along m); then the
# GPU tests cuda-conv.sh and
# cuda-model.sh on the bundle (STEPS="smoke run tests" by default; any subset).  Files under
# $OUT: host.txt, smoke.txt, run.txt, tables.md, tests.txt, cluster.h5.
set -u
cd "$(dirname "$0")/../.."
[ -d bundle ] || tar -xJf .gpu/bundle.txz
B=$PWD/bundle/run.sh
R=/root/gpucluster
mkdir -p $R
STEPS=${STEPS:-smoke run tests}
. "$PWD/tests/gpu/card-state.sh" # q: the card's state
{ date -u +%FT%TZ; q; nproc; } > $OUT/host.txt 2>&1
cat $OUT/host.txt
if [[ " $STEPS " == *" smoke "* ]]; then
	sed -e 's/^repeats = 2/repeats = 1/' -e 's/^unit_timeout = 900/unit_timeout = 60/' \
		-e '/^\[\[workloads\]\]/,$d' experiments/gpu-cluster.toml > $R/smoke.toml
	cat >> $R/smoke.toml <<'TOML'
[[workloads]]
name = "conv-7x7"
op = "conv2d_bias_relu"
dtype = "float16"
batch = 32
shape = { c = 512, h = 7, w = 7, k = 512, r = 3, stride = 1, pad = 1 }

[[modes]]
name = "cluster"
tuner = "exhaustive"
options = { include_vendor = false, field_values = { CLUSTER = [2] } }
TOML
	timeout 120 $B run -o $R/smoke.h5 $R/smoke.toml > $OUT/smoke.txt 2>&1
	echo "smoke exit $?" | tee -a $OUT/smoke.txt
	python3 - $R/smoke.h5 >> $OUT/smoke.txt 2>&1 <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
s = lambda v: v.decode() if isinstance(v, bytes) else str(v)
t = f["trials"][:]
ok = [x for x in t if s(x["status"]) == "ok"]
print("trials", len(t), "ok", len(ok), "statuses", sorted(set(s(x["status"]) for x in t)))
for x in sorted(ok, key=lambda x: x["median_ns"])[:5]:
    print("%.2f us %s" % (x["median_ns"] / 1e3, s(x["config"])))
for u in f["units"][:]:
    print(s(u["mode"]), s(u["status"]), [l for l in s(u["info"]).splitlines() if "cluster" in l])
PY
	tail -12 $OUT/smoke.txt
	grep -q "smoke exit 0" $OUT/smoke.txt || { q >> $OUT/host.txt; exit 1; }
fi
if [[ " $STEPS " == *" run "* ]]; then
	/usr/bin/time -f "wall %e s, maxrss %M KB" timeout ${RUN_LIMIT:-330} $B run -o $R/cluster.h5 \
		experiments/gpu-cluster.toml > $OUT/run.txt 2>&1
	echo "run exit $?"; tail -2 $OUT/run.txt
	q >> $OUT/host.txt
	{
		echo "## all templates"; python3 scripts/layer-table.py $R/cluster.h5 - exhaustive
		echo; echo "## CLUSTER=1 alone"; python3 scripts/layer-table.py $R/cluster.h5 - exhaustive CLUSTER=1 | tail -3
		echo; echo "## CLUSTER=2 alone"; python3 scripts/layer-table.py $R/cluster.h5 - exhaustive CLUSTER=2
		echo; echo "## pairs, along n (A shared)"; python3 scripts/field-pairs.py $R/cluster.h5 CLUSTER 1 2
		echo; echo "## pairs, along m (B shared)"; python3 scripts/field-pairs.py $R/cluster.h5 CLUSTER 1 2 exhaustive-m
		echo; echo "## CLUSTER=2 along m alone"; python3 scripts/layer-table.py $R/cluster.h5 - exhaustive-m CLUSTER=2 | tail -2
	} > $OUT/tables.md 2>&1
	tail -4 $OUT/tables.md
	cp $R/cluster.h5 $OUT/
fi
if [[ " $STEPS " == *" tests "* ]]; then
	TEST_LIMIT=${TEST_LIMIT:-400} bash tests/gpu/bundle-tests.sh
fi
{ date -u +%FT%TZ; q; } >> $OUT/host.txt

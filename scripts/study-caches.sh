#!/bin/bash
# scripts/study-caches.sh HUB OUT [SEEDS]: every tuner replayed on the AutoTuning Association's
# brute-forced caches (issue 47's study, docs/studies/tuners-on-public-caches.md).
#   HUB   a clone of https://github.com/AutoTuningAssociation/benchmark_hub (commit 8eeb99e)
#         with its caches unpacked, or its git directory (read with git show)
#   OUT   a folder for the imported results files and one replay JSON per cache
#   SEEDS seeds per tuner (default 20)
# Each cache is imported (harness import --kernel-tuner) and replayed with the stored time as
# the objective (--objective source), harness's score at 100 trials and autotuning-
# methodology's at the cutoffs of Kernel Tuner's hypertuner (0.95, 0.01), the tuners at their
# Kernel Tuner defaults and, suffixed "paper", at the defaults of the hub's hyperparameter
# tuning study (hyperparametertuning/algorithms/metatuning_*.json).  Then a summary table.
set -eu
HUB=$1 OUT=$2 SEEDS=${3:-20}
H=${HARNESS:-$(cd "$(dirname "$0")/.." && pwd)/harness/harness}
mkdir -p "$OUT"
CACHES="
currently_unused/cachefiles/pnpoly/RTX_3090.json.gz
currently_unused/cachefiles/pnpoly/RTX_2080_Ti.json.gz
currently_unused/cachefiles/convolution/RTX_3090.json.gz
currently_unused/cachefiles/convolution/RTX_2080_Ti.json.gz
cachefiles/convolution_milo/A4000.json.gz
cachefiles/convolution_milo/A6000.json.gz
cachefiles/convolution_milo/A100.json.gz
cachefiles/convolution_milo/MI250X.json.gz
cachefiles/dedispersion_milo/A4000.json.gz
cachefiles/dedispersion_milo/A6000.json.gz
cachefiles/dedispersion_milo/A100.json.gz
cachefiles/dedispersion_milo/MI250X.json.gz
"
TUNERS="random,simulated-annealing,genetic-algorithm,pso,differential-evolution,bayes-opt"
TUNERS="$TUNERS,coordinate-descent,beam"
TUNERS="$TUNERS,simulated-annealing:maxiter=2"
TUNERS="$TUNERS,genetic-algorithm:method=uniform:popsize=20:maxiter=100:mutation_chance=10"
TUNERS="$TUNERS,pso:popsize=20:maxiter=100:c1=2.0:c2=1.0"
TUNERS="$TUNERS,differential-evolution:method=randtobest1bin:popsize=20:popsize_times_dimensions=false:maxiter=100"
for c in $CACHES; do
	name=$(echo "$c" | sed 's|.*cachefiles/||; s|\.json\.gz$||; s|/|-|g')
	src="$HUB/$c"
	if [ ! -f "$src" ]; then
		git --git-dir="$HUB" show "HEAD:$c" > "$OUT/$name.json.gz"
		src="$OUT/$name.json.gz"
	fi
	[ -f "$OUT/$name.h5" ] || "$H" import --kernel-tuner "$src" --name "$name" -o "$OUT/$name.h5" \
		> "$OUT/$name.import.txt" 2>&1
	"$H" replay "$OUT/$name.h5" --tuners "$TUNERS" --budget 100 --seeds "$SEEDS" \
		--objective source --score methodology --cutoff 0.95,0.01 -f json -o "$OUT/$name.json"
	echo "$name done"
done
/usr/bin/python3 - "$OUT" <<'PYEOF'
import glob, json, os, sys
rows = {}
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    if p.endswith(".json.gz"):
        continue
    d = json.load(open(p))
    for r in d["rows"]:
        m = r.get("methodology", {})
        rows.setdefault(r["tuner"], []).append((os.path.basename(p)[:-5], r, m))
print("| tuner | harness score at 100 trials, mean over caches [min, max] | methodology score, mean over caches [min, max] | caches where each seed alone beats random (CI > 0) |")
print("|---|---|---|---|")
for t, v in rows.items():
    h = [r["score_mean"][-1] for _, r, _ in v]
    ms = [m["score"] for _, _, m in v if "score" in m]
    above = sum(1 for _, _, m in v if m.get("seed_score_ci_lo", -1) > 0)
    print("| %s | %.3f [%.3f, %.3f] | %.3f [%.3f, %.3f] | %d of %d |" % (
        t, sum(h) / len(h), min(h), max(h), sum(ms) / max(len(ms), 1), min(ms or [0]), max(ms or [0]), above, len(v)))
PYEOF

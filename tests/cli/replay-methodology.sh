# tests/cli/replay-methodology.sh: `replay --score methodology` against autotuning-methodology's
# own numbers (tests/data/methodology, made by the package's code from the committed pnpoly
# cache): the budget range, the time statistics, the random baseline at all 1,000 points and
# the score of the trajectory that evaluates the cache in its stored order (exhaustive).
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import numpy' 2>/dev/null || skip "numpy for /usr/bin/python3 is needed (Debian: python3-numpy)"
REF="$DATA/methodology/pnpoly-RTX_3090.json"

expect_status 0 h import --kernel-tuner "$DATA/caches/pnpoly-RTX_3090.json.gz" -o pn.h5 || fail "import"
expect_status 0 h replay pn.h5 --tuners exhaustive,random --budget 10 --seeds 5 --objective source \
	--score methodology -f json -o m.json &&
	check "the budget range, time statistics, baseline and score are the package's" $PY - m.json "$REF" <<'PYEOF'
import json, sys
import numpy as np
me, ref = (json.load(open(p)) for p in sys.argv[1:3])
assert me["methodology"]["cutoff_percentile"] == 0.96 and me["methodology"]["cutoff_percentile_start"] == 0.5
m = me["rows"][0]["methodology"]
assert me["rows"][0]["tuner"] == "exhaustive"
c = ref["cutoffs"]
assert (m["fevals_start"], m["fevals_end"]) == (c["start"]["fevals"], c["end"]["fevals"]), m
assert m["budget"] == ref["run_budget"]["max_fevals"]
close = lambda a, b, tol=1e-8: abs(a - b) <= tol * max(1, abs(b))
assert close(m["time_start_s"], c["start"]["time_s"]) and close(m["time_end_s"], c["end"]["time_s"])
s = ref["searchspace"]
assert close(m["time_median_s"], s["total_time_median_s"]) and close(m["time_per_feval_s"], s["time_per_feval_mean_per_feval_s"])
# the objective in ns, the package's in ms
assert close(m["optimum"] / 1e6, s["optimum"]) and close(m["median"] / 1e6, s["median"])
a = ref["arrays"]
# times: the cache's milliseconds were rounded to whole nanoseconds on import
assert np.allclose(m["time_range_s"], a["time_range_s"], rtol=1e-8, atol=0)
assert np.allclose(np.array(m["baseline"]) / 1e6, a["baseline_over_time"], rtol=1e-9, atol=0)
want = ref["score"]["isotonic_no_bagging"]
assert close(m["score"], want["score"], 1e-9), (m["score"], want["score"])
agg = {t["tuner"]: t for t in me["methodology"]["tuners"]}["exhaustive"]
assert close(agg["score"], want["score"], 1e-9) and close(agg["error"], want["error_std_over_time"], 1e-9), agg
# the package's own (bagged, random) score lies within its seeds' range of this one
b = ref["score"]["package_bagged"]
assert b["score_min_over_seeds"] - 0.05 <= m["score"] <= b["score_max_over_seeds"] + 0.05
print("exhaustive: %.6f (package isotonic %.6f, bagged over 10 seeds %.3f to %.3f)" % (
    m["score"], want["score"], b["score_min_over_seeds"], b["score_max_over_seeds"]))
PYEOF
# random search against the package's random baseline: near 0 over seeds (the baseline is the
# value at the expected rank, one rank better, so random sits a little below 0, not above 1)
expect_status 0 h replay pn.h5 --tuners random --budget 10 --seeds 40 --objective source \
	--score methodology -f json -o r.json &&
	check "random search scores near 0 against the package's baseline" $PY -c '
import json, sys
m = json.load(open(sys.argv[1]))["rows"][0]["methodology"]
assert -1 < m["seed_score_mean"] < 0.5 and m["seed_score_ci_lo"] < m["seed_score_ci_hi"], m["seed_score_mean"]
assert len(m["seed_scores"]) == 40' r.json
# bad options: exit 2, naming the option
expect_status 2 h replay pn.h5 --tuners random --budget 10 --score best &&
	check "an unknown score" expect_grep "score is harness \(the default\) or methodology" "$SCRATCH/err"
expect_status 2 h replay pn.h5 --tuners random --budget 10 --score methodology --cutoff 0.5,0.9 &&
	check "a start cutoff above the end" expect_grep "cutoff is END\[,START\]" "$SCRATCH/err"
expect_status 2 h replay pn.h5 --tuners random --budget 10 --cutoff 0.9 &&
	check "--cutoff without the methodology" expect_grep "cutoff is for --score methodology" "$SCRATCH/err"
finish

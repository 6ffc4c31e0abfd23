# tests/cli/time-verdicts.sh: `harness time` decides (issue 48): real processes timed by
# the harness, paired by block; the slower command SLOWER at a ratio near the truth, two
# identical commands not called different, the results read by report, audit and verify,
# and harness run of the experiment it wrote.  About 15 s: LONG_TESTS.
. "$top_srcdir/tests/setup"

# ---- the slower command: SLOWER, the ratio near the truth ---------------------------------
# sleep 0.05 against sleep 0.2 without a shell: (200 + o) / (50 + o) ms for a start-up cost
# o of each process, 4.0 at o = 0, 2.67 at o = 40 ms (a slow VM's fork and exec)
mkdir wd && cd wd || fail "cd wd"
expect_status 0 h time -q -N --runs 2 --repeats 3 -n short 'sleep 0.05' 'sleep 0.2' -o ../slow.h5
cd "$SCRATCH" || fail "cd"
cp out slow.txt
check "the slower command is SLOWER" grep -Eq '^sleep-0\.2 .* SLOWER$' slow.txt
check "the first command is the baseline, named by -n" grep -Eq '^short .* baseline *$' slow.txt
ratio=$(sed -n 's/^sleep-0\.2 .* \([0-9.]*\) (\([0-9.]*\) to .*/\1/p' slow.txt)
check "the ratio near the truth ($ratio in 2.4 to 4.2)" \
	"awk -v r='$ratio' 'BEGIN { exit !(r > 2.4 && r < 4.2) }'"
check "the answer names the next commands" grep -q '^next: harness report ../slow.h5' slow.txt
check "the experiment beside the results" grep -q '^timing = "process"$' slow.toml
check "it runs in the caller's folder" grep -q "^workdir = \"$SCRATCH/wd\"\$" slow.toml
check "the run folder holds it too" cmp slow.toml slow/experiment.toml
if /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
	check "each run's wall time a sample, its CPU times in the unit's info" \
		"PYTHONPATH='$top_srcdir/tests/cli' /usr/bin/python3 - slow.h5" <<'PYEOF'
import sys, h5py
from h5util import table
with h5py.File(sys.argv[1], "r") as f:
    units = table(f, "units")
    assert len(units) == 6, len(units)
    for u in units:
        info = dict(l.split("=", 1) for l in u["info"].splitlines() if "=" in l)
        assert len(info["process_user_ns"].split(",")) == 2, info
        assert len(info["process_sys_ns"].split(",")) == 2, info
        assert info["process_runs"] == "2" and info["process_failed_runs"] == "0", info
        assert info["process_command"].startswith("sleep 0."), info
        assert u["sample_count"] == 2, u
PYEOF
fi

# report, audit and verify read it as any run
expect_status 0 h report slow.h5
check "report: SLOWER" grep -Eq '^\| process/wall \| sleep-0\.2 \| 3 \| .*\*\*SLOWER\*\*' out
expect_status 0 h audit slow.h5
check "audit: every unit ok" grep -q 'all 6 cold units finished ok' out
cat > h.toml <<'HEOF'
schema = 1
description = "sleep 0.2 takes longer than sleep 0.05"
[[hypotheses]]
id = "longer"
claim = "sleeping 0.2 s is at least 30% slower"
primary = true
mode = "sleep-0.2"
baseline = "short"
prediction = "slower"
min_effect = 0.3
HEOF
expect_status 0 h verify --hypotheses h.toml slow.h5
check "verify: CORROBORATED" grep -q 'CORROBORATED' out

# ---- two identical commands are not called different ---------------------------------------
# at alpha 0.05 a paired t test calls two identical commands different in 5% of runs (the
# fresh-root suite met one): tested at 0.001 here, one run in a thousand, so the check fails
# when the harness calls identical commands different, not when chance does
expect_status 0 h time -q --alpha 0.001 --runs 2 --repeats 3 'sleep 0.02' 'sleep 0.02' -o same.h5
check "identical commands: named apart" grep -q '^sleep-0.02-2 ' out
check "identical commands: SAME or INCONCLUSIVE" grep -Eq '^sleep-0\.02-2 .* (SAME|INCONCLUSIVE)' out


exit $FAILS

# tests/cli/bounds.sh: every count and duration bounded where it enters (issue 51, finding
# 5).  `run --resume --repeats N` takes N up to the experiment's own limit on repeats
# (10000) and refuses more before anything is written (it took 2^31-1 and wrote the grown
# plan first: a slip made a plan that can never shrink); --max-time takes up to 366 days;
# an --estimates file whose units took near INT64_MAX ns starts nothing under --max-time
# (the clock plus the estimate wrapped negative, and every unit "fit").
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"
cp "$DATA/run/crash.toml" exp.toml
nplan() { $PY -c 'import h5py,sys; print(len(h5py.File(sys.argv[1],"r")["plan"]))' "$1"; }

expect_status 0 h run -q -o r.h5 exp.toml
sum0=$(sha256sum r/journal/run.h5 r.h5 | awk '{ print $1 }' | paste -sd, -)
for n in 10001 2147483647 9223372036854775807 0; do
	expect_status 2 h run -q --resume r.h5 --repeats $n
	check "--resume --repeats $n refused, naming the limit" expect_grep "not a number of blocks \(1 to 10000, the most an experiment's repeats may be\)" "$SCRATCH/err"
done
check "nothing written: the journal and results file as they were, 6 units planned" \
	'[ "$(sha256sum r/journal/run.h5 r.h5 | awk "{ print \$1 }" | paste -sd, -)" = "$sum0" ] && [ "$(nplan r.h5)" -eq 6 ]'
# the limit is the experiment's own: its repeats key refuses the same
expect_status 2 h run -q -D repeats=10001 -o x.h5 exp.toml
check "the experiment's repeats has the same limit" expect_grep "10000" "$SCRATCH/err"
expect_status 2 h run -q --repeats 10001 -o x.h5 exp.toml
check "a new run's --repeats too" expect_grep "1 to 10000" "$SCRATCH/err"
# within it, the plan grows as asked (a block more, recorded)
expect_status 0 h run -q --resume r.h5 --repeats 3
check "--resume --repeats 3 grows the plan to 9 units" '[ "$(nplan r.h5)" -eq 9 ]'

# --max-time: at most 366 days
for d in 367d 1e300 9223372036854775807; do
	expect_status 2 h run -q --max-time $d -o x.h5 exp.toml
	check "--max-time $d refused" expect_grep "of at most 366 days" "$SCRATCH/err"
done
check "no refused run wrote anything" 'path_is_missing x.h5 && path_is_missing x'
expect_status 0 h run -q --max-time 366d -o long.h5 exp.toml
check "--max-time 366d: every unit fits" '[ "$(nplan long.h5)" -eq 6 ]'

# estimates near INT64_MAX: nothing fits an hour (each alone, and a cold unit with its
# warm probe, 2^62 ns each, whose sum is past INT64_MAX)
for ns in 9223372036854775807 4611686018427387904; do
	rm -rf est.h5 e e.h5
	cp r.h5 est.h5
	$PY - est.h5 $ns <<'PYEOF' || fail "stretch est.h5's units"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    u = f["units"][()]
    u["wall_ns"] = int(sys.argv[2])
    f["units"][...] = u
PYEOF
	expect_status 75 h run -q --max-time 1h --estimates est.h5 -o e.h5 exp.toml
	check "units estimated at $ns ns: none starts within --max-time 1h" \
		'[ "$($PY -c "import h5py; print(len(h5py.File(\"e.h5\",\"r\")[\"units\"]))")" -eq 0 ]'
done
finish

# tests/cli/one-writer.sh: one writer per run (issue 45, item 4).  Two runs started together
# on one output with different experiments: one takes the run folder, the other is refused
# before it writes anything, and the folder's experiment copy is the winner's (its SHA-256 the
# one recorded).  A --resume while the run is in progress is refused naming the running
# harness's pid; after it ends, --resume of the complete run is allowed again (the kernel's
# lock died with its holder).
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"
export PYTHONPATH="$top_srcdir/tests/cli"
cp "$DATA/writer/slow.sh" "$DATA/writer/slow.toml" .
sed 's/^seed = 1$/seed = 2/' slow.toml > other.toml

# 1. the race, five times
ok=1
for i in 1 2 3 4 5; do
	rm -rf X X.h5
	$HARNESS run -q -o X.h5 slow.toml >a.out 2>a.err & pa=$!
	$HARNESS run -q -o X.h5 other.toml >b.out 2>b.err & pb=$!
	wait $pa; ra=$?
	wait $pb; rb=$?
	if [ $ra = 0 ] && [ $rb != 0 ]; then win=slow.toml; loser=b.err
	elif [ $rb = 0 ] && [ $ra != 0 ]; then win=other.toml; loser=a.err
	else fail "round $i: exits $ra and $rb: want one 0 and one refusal"; ok=0; continue
	fi
	grep -q "already exists; not overwriting a run\|is being written by another process" $loser ||
		{ fail "round $i: the loser says: $(cat $loser)"; ok=0; continue; }
	$PY - X.h5 X/experiment.toml "$win" <<'PYEOF' || { fail "round $i: the record is not the winner's"; ok=0; }
import hashlib, sys, h5py
from h5util import meta
m = meta(h5py.File(sys.argv[1], "r"))
copy = hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
want = hashlib.sha256(open(sys.argv[3], "rb").read()).hexdigest()
assert m["experiment_sha256"] == copy == want, (m["experiment_sha256"], copy, want)
PYEOF
done
check "two runs started together on one output: one runs, the other is refused; the folder holds the winner's experiment" '[ $ok = 1 ]'

# 2. --resume while the run is in progress: refused, naming the holder
rm -rf R R.h5
SLOW_S=2 $HARNESS run -q -o R.h5 slow.toml >r.out 2>r.err & pr=$!
for _ in $(seq 1 100); do [ -d R/journal ] && break; sleep 0.1; done
[ -d R/journal ] || fail "the slow run made no journal"
expect_status 2 h run --resume R.h5 &&
	expect_grep "'R/journal': is being written by another process \(pid $pr\); one writer at a time" "$SCRATCH/err" &&
	pass "--resume while the run is in progress: refused, naming its pid"
wait $pr || fail "the slow run failed: $(cat r.err)"
grep -q "^pid $pr boot " R/lock || fail "R/lock does not name its holder: $(cat R/lock)"
expect_status 0 h run -q --resume R.h5 && pass "--resume after the run ended: the lock died with its holder"

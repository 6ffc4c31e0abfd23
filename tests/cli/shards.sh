# tests/cli/shards.sh: merge joins the shards of one submission only (issue 51, finding 4).
# Shards 0 and 1 of one `harness slurm` submission and shard 2 of another are refused,
# naming the files and their submission ids, where they merged silently before; hand-run
# shards of one `--submission ID` merge, those without an id merge with a warning, one with
# and one without do not.  Shard counts are bounded where they are given (run --shard N up
# to 4096, slurm --tasks the same) and read; missing shards are summed up in one line.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"
sed 's/^repeats = 2$/repeats = 3/' "$DATA/run/crash.toml" >exp.toml
attr() { $PY -c 'import h5py,sys; print(h5py.File(sys.argv[1],"r")["run"].attrs[sys.argv[2]].decode())' "$@"; }

# two submissions of one experiment, run here as Slurm would
expect_status 0 h slurm --tasks 3 --local -o a exp.toml
ida=$(sed -n 's/^submission: //p' "$SCRATCH/out")
expect_status 0 h slurm --tasks 3 --local -o b exp.toml
idb=$(sed -n 's/^submission: //p' "$SCRATCH/out")
check "each harness slurm names a submission id of its own ('$ida', '$idb')" \
	'[ -n "$ida" ] && [ -n "$idb" ] && [ "$ida" != "$idb" ]'
check "every task and the submission record carry it" \
	'[ "$(attr a/shard-0.h5 submission_id)$(attr a/shard-2.h5 submission_id)$(attr a/submission.h5 submission_id)" = "$ida$ida$ida" ]'
check "the batch script gives it to every task" "grep -q -- '--submission $ida ' a/job.sbatch"
expect_status 2 h merge a/shard-0.h5 a/shard-1.h5 b/shard-2.h5 -o mixed.h5
check "shards of two submissions are refused, naming the files and ids" \
	expect_grep "^harness: 'a/shard-0.h5' and 'b/shard-2.h5' are not shards of one submission: submission id '$ida' and '$idb'" "$SCRATCH/err"
check "nothing written" path_is_missing mixed.h5
expect_status 0 h merge a/shard-0.h5 a/shard-1.h5 a/shard-2.h5 -o a.h5
check "the shards of one submission merge, complete, with its id" \
	'[ "$(attr a.h5 status) $(attr a.h5 submission_id)" = "complete $ida" ]'
expect_status 2 h merge --submission a/submission.h5 b/shard-0.h5 b/shard-1.h5 -o x.h5
check "a submission record of another submission is refused" \
	expect_grep "'b/shard-0.h5' is not a shard of the submission 'a/submission.h5' records: submission id '$idb', the record's '$ida'" "$SCRATCH/err"

# hand-run shards: one --submission ID merges; none merges with a warning; mixed does not
for k in 0 1 2; do
	expect_status 0 h run -q --shard $k/3 --submission hand-1 -o h$k.h5 exp.toml
	expect_status 0 h run -q --shard $k/3 -o n$k.h5 exp.toml
done
expect_status 0 h merge h0.h5 h1.h5 h2.h5 -o h.h5
check "hand-run shards of one --submission merge complete" '[ "$(attr h.h5 status) $(attr h.h5 submission_id)" = "complete hand-1" ]'
expect_status 0 h merge n0.h5 n1.h5 n2.h5 -o n.h5
check "shards without an id merge, with a warning" expect_grep "warning: the shards carry no submission id" "$SCRATCH/err"
expect_status 2 h merge h0.h5 h1.h5 n2.h5 -o x.h5
check "a shard without an id among shards with one is refused" \
	expect_grep "'h0.h5' and 'n2.h5' are not shards of one submission: submission id 'hand-1' and \(none\)" "$SCRATCH/err"
expect_status 2 h run -q --resume h1.h5 --submission hand-2
check "--resume of a shard as another submission is refused" expect_grep "is of submission 'hand-1'; refusing" "$SCRATCH/err"

# missing shards: one line, as ranges
for k in 0 3; do expect_status 0 h run -q --shard $k/8 --submission eight -o e$k.h5 exp.toml; done
expect_status 0 h merge e0.h5 e3.h5 -o e.h5
check "missing shards summed up in one line" \
	'[ "$(grep -c shard "$SCRATCH/err")" -eq 1 ] && grep -q "^harness: warning: missing 6 of 8 shards: 1-2, 4-7 (" "$SCRATCH/err"'
check "a merge with shards missing is incomplete" '[ "$(attr e.h5 status)" = incomplete ]'

# shard counts bounded where given
for bad in 0/4097 0/9223372036854775807 1/1 -1/3 +1/3 " 1/3" 1/03x 1/; do
	expect_status 2 h run -q --shard "$bad" -o x.h5 exp.toml
	check "--shard '$bad' refused" expect_grep "is not K/N with 0 <= K < N <= 4096" "$SCRATCH/err"
done
expect_status 2 h slurm --tasks 4097 -o big exp.toml
check "slurm --tasks above 4096 refused, nothing made" 'expect_grep "1 to 4096" "$SCRATCH/err" && path_is_missing big'
for bad in "a b" "" "$(printf 'x%.0s' $(seq 65))" "x;y"; do
	expect_status 2 h run -q --shard 0/3 --submission "$bad" -o x.h5 exp.toml
	check "--submission '$bad' refused" expect_grep "is not a submission id" "$SCRATCH/err"
done
expect_status 2 h run -q --submission s -o x.h5 exp.toml
check "--submission without --shard refused" expect_grep "only with --shard" "$SCRATCH/err"
check "no refused run wrote anything" path_is_missing x.h5
finish

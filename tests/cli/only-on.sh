# tests/cli/only-on.sh: one experiment for two backends (docs/experiment-format.md, `only_on`
# and [on.BACKEND]; docs/hypothesis-format.md, `only_on`): on the CPU, a workload and a mode
# that are only_on "cuda" are left out (stderr says so; the report and the hypotheses never
# see them), [on.cpu] sets the blocks and the measure settings, [on.cuda] does not apply, a
# hypothesis only_on "cuda" is not decided (with a warning) while the others are, and
# spread_ratio is a statistic; bad uses are errors at their line:col.
. "$top_srcdir/tests/setup"

cat >ok.toml <<'TOML'
schema = 1
name = "oo"
backend = "auto"
repeats = 4
seed = 7
hypotheses = ["h.toml"]

[measure]
min_samples = 3
max_samples = 5
max_time = 0.02
trial_samples = 1

[on.cpu]
repeats = 2

[on.cpu.measure]
max_samples = 4

[on.cuda]
repeats = 9

[[workloads]]
name = "g"
op = "sgemm"
shape = { m = 16, n = 16, k = 16 }
only_on = "cpu"

[[workloads]]
name = "gpu-only"
op = "gemm"
dtype = "float16"
shape = { m = 64, n = 64, k = 64 }
only_on = "cuda"

[[modes]]
name = "default"
tuner = "vendor"

[[modes]]
name = "vb"
tuner = "vendor-benchmarked"
only_on = "cuda"

[[modes]]
name = "heuristic"
tuner = "heuristic"
TOML
cat >h.toml <<'TOML'
schema = 1
[[hypotheses]]
id = "gpu-claim"
claim = "only about the GPU run"
only_on = "cuda"
mode = "vb"
cells = ["gpu-only/gemm:m=64,n=64,k=64"]
aggregate = "each"
prediction = "not-slower"
[[hypotheses]]
id = "spread"
claim = "heuristic's spread is at least default's"
mode = "heuristic"
scope = "all"
aggregate = "geomean"
criteria = [ { id = "a", statistic = "spread_ratio", op = ">=", value = 0.0 }, { id = "b", statistic = "spread_ratio", op = "<", value = 0.0 } ]
corroborate = "a"
falsify = "b"
TOML
expect_status 0 h check ok.toml && pass "check accepts only_on and [on.BACKEND]"
if h run -q --backend cpu -o r.h5 ok.toml >"$SCRATCH/out" 2>"$SCRATCH/err"; then
	pass "run on the cpu"
	expect_grep "mode 'vb' is left out of this run: it is only_on 'cuda', and runs on 'cpu' here" "$SCRATCH/err"
	# left out by design: listed with the verdicts, not a warning on every command
	check "no warning for the cuda-only hypothesis" '! grep -q "gpu-claim" "$SCRATCH/err"'
	expect_grep "Not decided on this run.*: gpu-claim \(only_on cuda\)" "$SCRATCH/out"
	h show r.h5 >show.txt 2>&1
	expect_grep "^units: 4 recorded, 4 planned" show.txt && pass "[on.cpu] repeats: 2 blocks of 2 modes"
	grep -q "gpu-only" show.txt && fail "the cuda-only workload has cells on the cpu"
	h report r.h5 >report.md 2>&1
	grep -q "| vb |" report.md && fail "the report shows the left-out mode"
	h verify r.h5 >verify.md 2>"$SCRATCH/verr"
	expect_grep "\| spread \|" verify.md && pass "spread_ratio decides a hypothesis"
	grep -q "^| gpu-claim" verify.md && fail "the cuda-only hypothesis was decided on a cpu run"
	check "verify lists the cuda-only hypothesis as left out" \
		'grep -q "Not decided on this run.*gpu-claim (only_on cuda)" verify.md'
	check "and says nothing of it on stderr" '! grep -q "gpu-claim" "$SCRATCH/verr"'
	h verify --format json r.h5 >verify.json 2>/dev/null
	check "verify's JSON lists it under left_out" \
		'python3 -c "import json,sys; d=json.load(open(\"verify.json\")); sys.exit(d[\"left_out\"] != [{\"id\": \"gpu-claim\", \"only_on\": \"cuda\"}])"'
else
	fail "the run exited non-zero"; sed 's/^/  stderr: /' "$SCRATCH/err" | tail -20 >&2
fi

# errors at line:col
sed 's/^only_on = "cpu"/only_on = "auto"/' ok.toml >bad1.toml
expect_status 2 h check bad1.toml && expect_grep "bad1.toml':[0-9]+:[0-9]+: 'only_on' names one backend, not 'auto'" "$SCRATCH/err"
sed 's/^\[on.cuda\]/[on.gpu]/' ok.toml >bad2.toml
expect_status 2 h check bad2.toml && expect_grep "bad2.toml':[0-9]+:[0-9]+: \[on.gpu\]: not a backend" "$SCRATCH/err"
sed 's/^\[on.cpu.measure\]/[on.cpu.meassure]/' ok.toml >bad3.toml
expect_status 2 h check bad3.toml && expect_grep "bad3.toml':[0-9]+:[0-9]+: .*meassure" "$SCRATCH/err"
awk '/^name = "default"/ { print; print "only_on = \"cpu\""; next } { print }' ok.toml >bad4.toml
expect_status 2 h check bad4.toml && expect_grep "the baseline mode 'default' cannot be 'only_on' one backend" "$SCRATCH/err"
finish

#!/bin/sh
# tests/cli/check.sh: `harness check` on the files in tests/data/experiments: every
# bad-*.toml exits 2 with exactly the stderr line in its bad-*.err (paths as passed below:
# experiments/bad-*.toml, from a copy in the scratch directory), every good-*.toml exits 0
# with its ok line; plus several files at once, -h, arity, and the shipped experiments.
. "${top_srcdir:?run through make check (top_srcdir is not set)}/tests/setup"

cp -R "$DATA/experiments" experiments || { fail "cannot copy $DATA/experiments"; finish; }
OUT=$SCRATCH/out
ERR=$SCRATCH/err

# Every bad file has its expected message, and every message its file.
nbad=0
for f in experiments/bad-*.toml; do
	want=${f%.toml}.err
	nbad=$((nbad + 1))
	if [ ! -f "$want" ]; then
		fail "$f has no $(basename "$want")"
		continue
	fi
	expect_status 2 h check "$f" || continue
	if ! cmp -s "$want" "$ERR"; then
		fail "$f: stderr is not $(basename "$want")"
		diff "$want" "$ERR" | sed 's/^/  /' >&2
	elif [ -s "$OUT" ]; then
		fail "$f: something was printed on stdout"
	else
		pass "$f"
	fi
done
for want in experiments/bad-*.err; do
	[ -f "${want%.err}.toml" ] || fail "$want has no $(basename "${want%.err}").toml"
done
[ "$nbad" -ge 20 ] || fail "only $nbad bad-*.toml files found in $DATA/experiments"

# Every good file passes with one ok line and nothing on stderr.
ngood=0
for f in experiments/good-*.toml; do
	ngood=$((ngood + 1))
	expect_status 0 h check "$f" || continue
	ok_line="^'$f': ok \([0-9]+ modes, [0-9]+ workloads, [0-9]+ repeats(, [^;)]+)?(; on [a-z0-9]+: [0-9]+ repeats)*(; mode '[^']+' runs only '[^)]+)*\)\$"
	expect_grep "$ok_line" "$OUT" || continue
	if [ "$(wc -l <"$OUT")" -ne 1 ]; then
		fail "$f: more than the ok line on stdout"
	elif [ -s "$ERR" ]; then
		fail "$f: something was printed on stderr"
	else
		pass "$f"
	fi
done
[ "$ngood" -ge 2 ] || fail "only $ngood good-*.toml files found in $DATA/experiments"
if expect_status 0 h check experiments/good-minimal.toml; then
	want_line="'experiments/good-minimal.toml': ok (1 modes, 1 workloads, 5 repeats)"
	echo "$want_line" >"$SCRATCH/want"
	cmp -s "$SCRATCH/want" "$OUT" || fail "good-minimal.toml: wrong ok line: $(cat "$OUT")"
fi
if expect_status 0 h check experiments/good-full.toml; then
	expect_grep "^'experiments/good-full.toml': ok \(4 modes, 3 workloads, 4 repeats\)\$" \
		"$OUT"
fi

# [on.BACKEND] repeats are named: a run on that backend runs that many blocks, not the
# top level's (a 100-block [on.cuda] once hid behind "10 repeats").
if expect_status 0 h check experiments/good-on-repeats.toml; then
	expect_grep "^'experiments/good-on-repeats.toml': ok \(1 modes, 1 workloads, 10 repeats; on cpu: 3 repeats; on cuda: 100 repeats\)\$" "$OUT"
fi

# A mode's `workloads` are named on its ok line.
if expect_status 0 h check experiments/good-mode-workloads.toml; then
	expect_grep "^'experiments/good-mode-workloads.toml': ok \(3 modes, 3 workloads, 5 repeats, a unit per mode and workload; mode 'exhaustive' runs only 'small', 'bias'; mode 'exhaustive-aa' runs only 'bias', 'small'\)\$" "$OUT"
fi

# Several files: an ok line for each valid one; the first invalid one stops the command.
if expect_status 0 h check experiments/good-minimal.toml experiments/good-full.toml; then
	[ "$(wc -l <"$OUT")" -eq 2 ] || fail "two good files: not two ok lines"
fi
if expect_status 2 h check experiments/good-minimal.toml experiments/bad-type.toml \
	experiments/good-full.toml; then
	expect_grep "^'experiments/good-minimal.toml': ok " "$OUT"
	grep -q good-full "$OUT" && fail "the file after an invalid one was checked"
	cmp -s experiments/bad-type.err "$ERR" || fail "good, bad, good: stderr is not bad-type.err"
fi

# A file that cannot be read.
if expect_status 2 h check no-such-file.toml; then
	expect_grep "^harness: cannot open 'no-such-file.toml': No such file or directory\$" "$ERR"
fi

# Usage: -h on stdout with 0, no file is a usage error on stderr with 2.
if expect_status 0 h check -h; then
	expect_grep '^usage: harness check \[options\] FILE\.\.\.$' "$OUT"
fi
if expect_status 0 h check --help; then
	expect_grep '^usage: harness check \[options\] FILE\.\.\.$' "$OUT"
fi
if expect_status 2 h check; then
	expect_grep '^usage: harness check \[options\] FILE\.\.\.$' "$ERR"
fi
expect_status 2 h check --no-such-option experiments/good-minimal.toml

# A hypothesis that judges Kendall's tau without its p is legal, but check warns at the
# criterion's line and column, with the smallest p the experiment's modes allow; one that
# also has a criterion on p gets no warning.
cp experiments/good-minimal.toml tau.toml
printf 'hypotheses = ["tau-hyp.toml"]\n' | cat - tau.toml > tau2.toml && mv tau2.toml tau.toml
cat >tau-hyp.toml <<'EOF2'
schema = 1
[[hypotheses]]
id = "tau-alone"
claim = "c"
aggregate = "op-vs-e2e"
criteria = [
  { id = "agree", statistic = "tau", op = ">=", value = 0.5 },
  { id = "disagree", statistic = "tau", op = "<", value = 0.5 },
]
corroborate = "agree"
falsify = "disagree"

[[hypotheses]]
id = "tau-and-p"
claim = "c"
aggregate = "op-vs-e2e"
criteria = [
  { id = "agree", statistic = "tau_pred", op = ">=", value = 0.5 },
  { id = "sure", statistic = "p_pred", op = "<", value = 0.05 },
  { id = "disagree", statistic = "tau_pred", op = "<", value = 0.5 },
]
corroborate = "agree and sure"
falsify = "disagree"
EOF2
if expect_status 0 h check tau.toml; then
	expect_grep "^harness: warning: 'tau-hyp.toml':7:3: hypothesis 'tau-alone': criterion 'agree' judges Kendall's tau without its p: .* the 1 of 'tau.toml' .* a criterion on p makes the verdict survive chance\$" "$ERR" &&
		[ "$(grep -c warning "$ERR")" -eq 1 ] && pass "a tau criterion without its p is warned of, once, at its line" ||
		fail "the tau-alone warning: $(cat "$ERR")"
fi

# What a design can decide (issue 44; design.h): one block is warned of at its 'repeats'
# line:col, and check stays 0 (the file is valid); --design says the blocks, the test and a
# sequential design's looks; --aa-floor the minimum detectable effect at an assumed floor.
sed 's/^repeats = 4$/repeats = 1/' experiments/good-sequential.toml | sed '/^\[sequential\]/,$d' > one.toml
if expect_status 0 h check one.toml; then
	expect_grep "^harness: warning: 'one.toml': 1 block \('repeats' at 'one.toml':4:1\) cannot decide anything" "$ERR" &&
		pass "one block: warned of at its repeats line:col"
fi
if expect_status 0 h check --design experiments/good-sequential.toml; then
	expect_grep "4 blocks \('repeats' at 'experiments/good-sequential.toml':4:1\): the paired t test decides from 2 blocks" "$OUT" &&
		expect_grep "could not reach p < 0.05 with 4 \(smallest p 0.125; 6 blocks can\)" "$OUT" &&
		expect_grep "sequential \(obrien-fleming\): a look after 4 blocks, then after each block to at most 12 until every primary hypothesis and every cell is decided" "$OUT" &&
		expect_grep "on cpu: sequential \(obrien-fleming\): a look after 5 blocks, .* to at most 10" "$OUT" &&
		expect_grep "to at most 12 until .*; levels calibrated for Student's t, the first look at 0\.000[0-9]+, the last at 0\.0[0-9]+; 0.05 spent over them in all" "$OUT" &&
		pass "--design: the blocks, the tests and the sequential looks, per backend"
fi
# the minimum detectable effect of Student's paired t test (the design's) at 5 blocks (4
# degrees of freedom), SciPy's t quantiles, sigma from the floor (exp(1.96 sigma) = 1.01)
MDE=$(/usr/bin/python3 -c 'import math; from scipy.stats import t; s = math.log(1.01) / t.ppf(0.975, 1e9); print("%.2f" % (100 * math.expm1((t.ppf(0.975, 4) + t.ppf(0.8, 4)) * s / math.sqrt(5))))' 2>/dev/null) || MDE="[0-9.]+"
if expect_status 0 h check --aa-floor 0.01 experiments/good-minimal.toml; then
	expect_grep "with an A/A noise floor of 1.00% in every cell: at 5 blocks the minimum detectable effect is $MDE%" "$OUT" &&
		expect_grep "a null result can read SAME from 4 blocks" "$OUT" &&
		pass "--aa-floor: the minimum detectable effect at the design's blocks"
fi
expect_status 2 h check --aa-floor 2 experiments/good-minimal.toml && expect_grep "aa-floor must be" "$ERR"
expect_status 2 h check --prior no-such.h5 experiments/good-minimal.toml && expect_grep "no-such.h5" "$ERR"

# The experiments shipped with the project are valid; those of the cuda backend, in a build
# without it, are refused for exactly that reason.
for f in "$top_srcdir"/experiments/*.toml; do
	[ -f "$f" ] || continue
	if grep -q '^backend = "cuda"' "$f" && ! h check "$f" >/dev/null 2>&1; then
		expect_status 2 h check "$f" &&
			expect_grep "backend 'cuda' is not built into this harness" "$ERR" &&
			pass "shipped $(basename "$f") needs the cuda backend, not in this build"
		continue
	fi
	expect_status 0 h check "$f" && pass "shipped $(basename "$f")"
done

finish

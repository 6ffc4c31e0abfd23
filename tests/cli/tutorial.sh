# tests/cli/tutorial.sh: docs/tutorial.md is run as written: every "    $ harness ..." line of
# the page, in its order, in a copy of docs/tutorial/, each exiting 0, and what the page says
# each shows checked on its output (the whole-process timing that numpy's import makes the
# pure-Python program win; the worker conforming; the in-process verdicts SLOWER for the
# pure-Python product at both shapes, more so at the larger; the report and the audit).
. "$top_srcdir/tests/setup"
export PYTHONDONTWRITEBYTECODE=1
/usr/bin/python3 -c 'import numpy' 2>/dev/null || skip "numpy for /usr/bin/python3 is needed (Debian: python3-numpy)"
PATH=/usr/bin:$PATH
cp -r "$top_srcdir/docs/tutorial" tut && cd tut || finish
grep '^    \$ harness ' "$top_srcdir/docs/tutorial.md" | sed 's/^    \$ harness //' >../steps.txt
check "the page has its six commands" '[ "$(wc -l <../steps.txt)" = 6 ]'
n=0
while IFS= read -r line; do
	n=$((n + 1))
	eval "set -- $line"
	h "$@" >"../step$n.out" 2>"../step$n.err"
	st=$?
	check "step $n exits 0: harness $line" "[ $st = 0 ]" ||
		sed 's/^/  | /' "../step$n.err" | tail -5 >&2
done <../steps.txt
cd ..
check "1: numpy's program is the baseline" grep -Eq '^numpy +[0-9.]+ m?s .* baseline' step1.out
check "1: the pure-Python program is FASTER as a whole process (numpy's import)" \
	grep -Eq '^python +[0-9.]+ m?s .* FASTER$' step1.out
check "2: the worker conforms" grep -q '^conforms: 0 problem' step2.out
check "2: the program it ran is printed" grep -q '^ok: program: /usr/bin/python3' step2.out
check "3: the experiment checks" grep -q "'compare.toml': ok (2 modes, 2 workloads, 4 repeats)" step3.out
check "4: the answer names the baseline" grep -q "^answer: each mode against the baseline 'numpy'" step4.out
ratio() { sed -n "/^  $1\$/,/^  [a-z]/s/^    mine: 1 op cell, geomean \([0-9.]*\) .*0 faster, 1 slower, 0 same, 0 undecided$/\1/p" step4.out; }
small=$(ratio small) mid=$(ratio mid)
check "4: SLOWER at both shapes ($small, $mid), more so at the larger, as the page says" \
	"awk -v s='$small' -v m='$mid' 'BEGIN { exit !(s > 3 && m > s) }'"
check "5: the report has the comparisons" grep -q '^## Verdicts against the baseline' step5.out
check "6: the audit WARNs of no A/A control, as the page says" grep -qi 'no A/A control' step6.out
finish

# tests/cli/choices.sh: the report's "Choices that differ between units" on real units of a
# fake command worker (tests/data/command/choices.toml): a mode whose units choose "tile=8" in
# even blocks and "tile=16" (1.5x slower) in odd ones, with its A/A copy, is listed per
# config with its units, their blocks and the median of their unit medians, fastest first;
# the baseline, which always chose one config, is not; markdown, JSON and HTML say the same.
. "$top_srcdir/tests/setup"
command -v python3 >/dev/null || skip "no python3 on PATH for the fake worker"
PY=/usr/bin/python3
cp "$DATA/command/choices.toml" "$DATA/command/fake_worker.py" .
expect_status 0 h run -q -o ch.h5 choices.toml || finish
expect_status 0 h report ch.h5 && pass "report runs" || finish
sed -n '/^## Choices that differ between units/,/^## Warnings/p' "$SCRATCH/out" > sec.md
[ -s sec.md ] && pass "markdown: the section is there" || fail "no choices section"
grep -qF '| w1/fake | flip (+ A/A copies) | `tile=8` | 4 | 0, 2, 0 flip-aa, 2 flip-aa | ' sec.md &&
	grep -qF '| w1/fake | flip (+ A/A copies) | `tile=16` | 4 | 1, 3, 1 flip-aa, 3 flip-aa | ' sec.md &&
	pass "markdown: flip's two configs, four units each, with their blocks" ||
	{ fail "markdown choices table"; cat sec.md >&2; }
grep -qF '| w1/fake | base ' sec.md && fail "the baseline chose one config, yet it is listed" ||
	pass "the baseline (one config) is not listed"
expect_status 0 h report -f json ch.h5 || finish
$PY - "$SCRATCH/out" <<'PYEOF' && pass "json: choice_groups as built" || fail "json choice_groups"
import json, sys
rows = json.load(open(sys.argv[1]))["choice_groups"]
assert [r["mode"] for r in rows] == ["flip", "flip"], rows
fast, slow = rows
assert fast["config"] == "tile=8" and slow["config"] == "tile=16", rows
assert fast["with_aa_copies"] and fast["units"] == 4 and slow["units"] == 4, rows
assert fast["ratio"] == 1.0 and 1.4 < slow["ratio"] < 1.6, rows
blocks = lambda r: sorted(int(x.split()[0]) for x in r["blocks"].split(", "))
assert blocks(fast) == [0, 0, 2, 2] and blocks(slow) == [1, 1, 3, 3], rows
assert sum("flip-aa" in x for x in fast["blocks"].split(", ")) == 2, rows
PYEOF
expect_status 0 h report --format html ch.h5 &&
	grep -q 'id="choices-table"' "$SCRATCH/out" && grep -q '<td>tile=16</td>' "$SCRATCH/out" &&
	pass "html: the choices table" || fail "html choices table"
finish

# tests/cli/choices.sh: the report's "Choices that differ between units" on real units of a
# fake command worker (tests/data/command/choices.toml): a mode whose units choose "tile=8"
# (1.5x slower) in even blocks and "tile=16" in odd ones, with warm probes and an A/A copy,
# is listed per config, fastest first, with its cold units (the copy's named by its mode)
# and the median of their unit medians, and the slow config's kernel whose config differs
# from the fastest's; the baseline, which always chose one config, is not;
# markdown, JSON and HTML say the same; a run whose units record no choice has no section.
. "$top_srcdir/tests/setup"
command -v python3 >/dev/null || skip "no python3 on PATH for the fake worker"
PY=/usr/bin/python3
cp "$DATA/command/choices.toml" "$DATA/command/fake_worker.py" .
expect_status 0 h run -q -o ch.h5 choices.toml || finish
expect_status 0 h report ch.h5 && pass "report runs" || finish
sed -n '/^## Choices that differ between units/,/^## Warnings/p' "$SCRATCH/out" > sec.md
[ -s sec.md ] && pass "markdown: the section is there" || fail "no choices section"
grep -qF '| w1/fake | flip (+ A/A copies) | `tile=16` | 4 | 1, 3, 1 flip-aa, 3 flip-aa | ' sec.md &&
	grep -qF '| w1/fake | flip (+ A/A copies) | `tile=8` | 4 | 0, 2, 0 flip-aa, 2 flip-aa | ' sec.md &&
	[ "$(grep -c '^| w1/fake | flip' sec.md)" -eq 2 ] &&
	[ "$(grep -n 'tile=16' sec.md | cut -d: -f1)" -lt "$(grep -n 'tile=8`' sec.md | cut -d: -f1)" ] &&
	pass "markdown: flip's two configs, fastest first, four cold units each, with their blocks" ||
	{ fail "markdown choices table"; cat sec.md >&2; }
grep -qF '| 1.0000 | - |' sec.md &&
	grep -qF '| k_tile: XBLOCK: 8 (fastest: XBLOCK: 16); k_two: XBLOCK: 8\|XBLOCK: 16 (fastest: absent) |' sec.md &&
	! grep -q 'k_same' sec.md &&
	pass "markdown: the slow config's kernels unlike the fastest's, by the parts that differ, '|' escaped" ||
	{ fail "markdown: kernels unlike the fastest"; cat sec.md >&2; }
grep -qF '| w1/fake | base ' sec.md && fail "the baseline chose one config, yet it is listed" ||
	pass "the baseline (one config) is not listed"
expect_status 0 h report -f json ch.h5 || finish
$PY - "$SCRATCH/out" <<'PYEOF' && pass "json: choice_groups as built" || fail "json choice_groups"
import json, sys
rows = json.load(open(sys.argv[1]))["choice_groups"]
assert [r["mode"] for r in rows] == ["flip", "flip"], rows
fast, slow = rows
assert fast["config"] == "tile=16" and slow["config"] == "tile=8", rows
assert fast["with_aa_copies"] and len(fast["units"]) == 4 and len(slow["units"]) == 4, rows
assert abs(fast["median_ns"] / 10000 - 1) < 0.03 and abs(slow["median_ns"] / 15000 - 1) < 0.03, rows
assert fast["ratio"] == 1.0 and abs(slow["ratio"] - 1.5) < 0.05, rows
assert fast["kernels_differ"] is None, rows
assert slow["kernels_differ"] == "k_tile: XBLOCK: 8 (fastest: XBLOCK: 16); k_two: XBLOCK: 8|XBLOCK: 16 (fastest: absent)", rows
units = lambda r: sorted((u["block"], u["mode"]) for u in r["units"])
assert units(fast) == [(1, "flip"), (1, "flip-aa"), (3, "flip"), (3, "flip-aa")], rows
assert units(slow) == [(0, "flip"), (0, "flip-aa"), (2, "flip"), (2, "flip-aa")], rows
PYEOF
expect_status 0 h report --format html ch.h5 &&
	grep -q 'id="choices-table"' "$SCRATCH/out" && grep -q '<td>tile=16</td>' "$SCRATCH/out" &&
	grep -q '<td>flip (+ A/A copies)</td>' "$SCRATCH/out" &&
	grep -qF '<td>k_tile: XBLOCK: 8 (fastest: XBLOCK: 16); k_two: XBLOCK: 8|XBLOCK: 16 (fastest: absent)</td>' "$SCRATCH/out" &&
	pass "html: the choices table" || fail "html choices table"
# no unit records a choice: no section, no key
sed -e 's/options = { config = "tile=8" }/options = { choose = false }/' \
	-e 's/options = { configs = "tile=8|tile=16", slow = "tile=8", runtime = true }/options = { configs = "tile=8|tile=16", choose = false }/' \
	choices.toml > none.toml
expect_status 0 h run -q -o none.h5 none.toml || finish
expect_status 0 h report none.h5 && ! grep -q '^## Choices' "$SCRATCH/out" &&
	pass "no choice recorded: no section" || fail "a choices section without choices"
expect_status 0 h report -f json none.h5 &&
	$PY -c 'import json,sys; sys.exit("choice_groups" in json.load(open(sys.argv[1])))' "$SCRATCH/out" &&
	pass "no choice recorded: no choice_groups key" || fail "choice_groups without choices"
finish

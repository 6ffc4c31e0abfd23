# tests/cli/audit.sh: `harness audit` catches what it exists to catch, on tiny real runs with
# the fault planted for real: a shared kernel cache (HARNESS_KERNEL_CACHE_DIR), an inactive
# tuner (two vendor modes), a baseline that is not the strongest mode (synthetic data); and
# passes what should pass on a clean run.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py, json' 2>/dev/null || skip "h5py for /usr/bin/python3 is needed (Debian: python3-h5py)"

# check_audit JSON ID STATUS [PYTHON-CONDITION on c (the check) and d (the audit)]
check_audit() {
	$PY - "$1" "$2" "$3" "${4:-True}" <<'PYEOF'
import json, sys
path, cid, want, cond = sys.argv[1:5]
d = json.load(open(path))
assert d["format"] == "harness-audit" and d["version"] == 1, "format"
c = {k["id"]: k for k in d["checks"]}[cid]
ok = c["status"] == want and eval(cond)
if not ok:
    print("  check %s: %s (wanted %s): %s" % (cid, c["status"], want, c["summary"]), file=sys.stderr)
    for e in c["evidence"]:
        print("    " + e, file=sys.stderr)
sys.exit(0 if ok else 1)
PYEOF
}

# 1. a clean tiny run: no leak, the tuner active, the backend as recorded
cp "$DATA/audit/clean.toml" clean.toml
expect_status 0 h run -q -o clean.h5 clean.toml || fail "the clean run"
expect_status 0 h audit -f json clean.h5 && pass "clean run: exit 0 (nothing FAILs: the t test decides from 2 blocks)"
cp "$SCRATCH/out" clean.json
check_audit clean.json cache-isolation PASS 'c["units"] == []' && pass "clean: cache isolation PASS" || fail "clean: cache isolation"
check_audit clean.json identity PASS && pass "clean: identity probes PASS" || fail "clean: identity probes"
check_audit clean.json failures PASS && pass "clean: failures PASS" || fail "clean: failures"
check_audit clean.json backend WARN '"cpu" in c["summary"]' && pass "clean: auto resolved to cpu is WARN" || fail "clean: backend"
check_audit clean.json repeats WARN '"decided by the t test" in " ".join(c["evidence"]) and "a floor needs 3 blocks" in c["summary"]' && pass "clean: 2 repeats decide by the t test but have no noise floor: WARN" || fail "clean: repeats"
check_audit clean.json clocks WARN '"not recorded by this backend" in c["summary"]' && pass "clean: clocks not recorded: WARN" || fail "clean: clocks"
check_audit clean.json aa-control WARN && pass "clean: no A/A control: WARN" || fail "clean: aa-control"
check_audit clean.json margin WARN '"no cell has a noise floor" in c["summary"]' && pass "clean: 2 blocks give no noise floor, the margin check WARNs" || fail "clean: margin"
check_audit clean.json measure PASS '"every mode measured by the run" in c["summary"]' && pass "clean: modes measured alike: PASS" || fail "clean: measure"
$PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["result"] == "WARN" and sum(d["counts"].values()) == len(d["checks"]) == 16, d["counts"]
assert "host-load" in [k["id"] for k in d["checks"]] and "isolation" in [k["id"] for k in d["checks"]] and d["checks"][0]["id"] == "record" and d["checks"][0]["status"] == "PASS"
assert d["settings"]["baseline"] == "default" and d["run"]["blocks"] == 2
' clean.json && pass "the JSON's result, counts and settings" || fail "audit JSON header"
expect_status 0 h audit clean.h5 && expect_grep '^\| cache isolation \(cold units start cold\) \| PASS \|' "$SCRATCH/out" &&
	expect_grep '^## enough repeats: WARN' "$SCRATCH/out" && pass "markdown audit"

# 2. a planted cache leak: every unit shares one kernel cache, so the second exhaustive
# cold unit compiles nothing (the results in r/: the shared cache beside them, not in the
# results folder, which the sandbox makes read-only to units)
{ cat "$DATA/audit/clean.toml"; printf '\n[environment]\nset = { HARNESS_KERNEL_CACHE_DIR = "%s/shared" }\n' "$SCRATCH"; } > leak.toml
# the run itself says so: every unit ok, but a mode did not measure what it names (exit 4)
expect_status 4 h run -q -o r/leak.h5 leak.toml || fail "the leaking run"
expect_grep '^  FAIL cache-isolation \(a mode did not measure what it names: exit status 4\)' "$SCRATCH/out"
expect_status 1 h audit -f json r/leak.h5
cp "$SCRATCH/out" leak.json
# the leak is real: the second exhaustive cold unit compiled nothing and hit the cache
LEAK=$($PY -c '
import h5py, sys
u = h5py.File(sys.argv[1], "r")["units"][:]
ex = [r for r in u if r["mode"] == b"exhaustive" and not r["warm"]]
assert ex[0]["compiles"] > 0 and ex[1]["compiles"] == 0 and ex[1]["cache_hits"] > 0, ex
print(int(ex[1]["id"]))
' r/leak.h5) && pass "the planted leak is real: unit $LEAK compiled nothing" || fail "the shared cache did not leak"
check_audit leak.json cache-isolation FAIL "c[\"units\"] == [$LEAK] and c[\"modes\"] == [\"exhaustive\"] and any(\"unit $LEAK \" in e and \"compiled 0\" in e for e in c[\"evidence\"])" &&
	pass "planted cache leak: FAIL naming unit $LEAK" || fail "planted cache leak not caught"
check_audit leak.json cache-isolation FAIL 'any("HARNESS_KERNEL_CACHE_DIR=" in e and "/shared" in e for e in c["evidence"])' &&
	pass "the shared cache variable is named" || fail "shared cache variable"

# 3. a planted inactive tuner: "autotune" is the vendor path under another name
cp "$DATA/audit/inactive.toml" inactive.toml
# the identity FAIL is in the run's closing lines, but leaves its exit status alone: two
# modes alike may be two tuners that agree (docs/audit.md)
expect_status 0 h run -q -o inactive.h5 inactive.toml || fail "the inactive run"
expect_grep '^  FAIL identity: ' "$SCRATCH/out"
expect_status 1 h audit -f json inactive.h5
cp "$SCRATCH/out" inactive.json # kept either way: check_audit below shows the evidence
check_audit inactive.json identity FAIL 'sorted(c["modes"]) == ["autotune", "default"]' &&
	pass "inactive tuner: identity probe FAILs naming both modes" || fail "inactive tuner not caught"
cp "$DATA/audit/aa.toml" aa.toml
expect_status 0 h run -q -o aa.h5 aa.toml || fail "the A/A run"
h audit -f json aa.h5 > aa.json 2>"$SCRATCH/err"
check_audit aa.json identity PASS 'any("A/A" in e for e in c["evidence"])' &&
	pass "declared A/A copy: identity probe PASS" || fail "A/A copy flagged"
# (the WARN's first line says so whatever else it says: at 2 blocks a t test on 1 degree of
# freedom still calls an A/A cell FASTER or SLOWER in 5% of runs, and one of 2 cells is
# "too few cells to call it more than chance")
check_audit aa.json aa-control WARN '"no noise floor (no cell has 3 pairs)" in " ".join(c["evidence"])' &&
	pass "an A/A control of 2 blocks gives no noise floor: WARN" || fail "aa-control at n = 2"

# 4. the baseline is not the strongest mode: 'fast' is 0.80x of 'base'
expect_status 0 h import --csv "$DATA/report/synthetic.csv" -o syn.h5
expect_status 0 h audit --baseline base -f json syn.h5 && pass "synthetic data: no FAIL, exit 0"
cp "$SCRATCH/out" syn.json
check_audit syn.json strongest-baseline WARN 'c["modes"] == ["fast"] and "net/e2e" in c["cells"] and "fast" in c["summary"] and "(end to end)" in c["evidence"][0]' &&
	pass "baseline 'base' beaten: WARN naming 'fast', e2e first" || fail "strongest-baseline"
check_audit syn.json repeats PASS && pass "12 blocks: repeats PASS" || fail "repeats on 12 blocks"
check_audit syn.json repeats PASS 'any("where the spread lives: in 12 of 12" in e and "more blocks narrow" in e for e in c["evidence"])' &&
	pass "repeats says where the spread lives (between processes: more blocks)" || fail "repeats: where the spread lives"
check_audit syn.json cache-isolation WARN '"imported" in c["summary"]' && pass "imported data: cache not recorded" || fail "imported cache"
expect_status 0 h audit --baseline fast -f json syn.h5
check_audit "$SCRATCH/out" strongest-baseline PASS '"decided SLOWER or SAME" in c["summary"]' && pass "baseline 'fast': no mode shown faster, decided comparisons counted" || fail "strongest baseline PASS"
# every comparison undecided (3 blocks, noisy and alternating): not a PASS
printf 'cell,mode,block,value,unit\nnet/op,base,0,1200,ns\nnet/op,other,0,1000,ns\nnet/op,base,1,1200,ns\nnet/op,other,1,1500,ns\nnet/op,base,2,1200,ns\nnet/op,other,2,1100,ns\n' >undecided.csv
expect_status 0 h import --csv undecided.csv -o undecided.h5
h audit --baseline base -f json undecided.h5 >undecided.json 2>/dev/null
check_audit undecided.json strongest-baseline WARN '"undecided" in c["summary"] and any("not ruled out" in e for e in c["evidence"])' &&
	pass "no comparison decided: strongest-baseline WARNs, naming the speed-up not ruled out" || fail "strongest-baseline with nothing decided"

# a recorded hypothesis file: listed with its SHA-256 and its status (hypothesis.h)
cat > h.toml <<'EOF2'
schema = 1
description = "harness audit test"

[[hypotheses]]
id = "exhaustive-faster"
claim = "exhaustive is faster than the vendor path"
primary = true
mode = "exhaustive"
prediction = "faster"
EOF2
sed 's/^unit_timeout = 120$/unit_timeout = 120\nhypotheses = ["h.toml"]/' "$DATA/audit/clean.toml" > hyp.toml
expect_status 0 h run -q -o hyp.h5 hyp.toml || fail "the run with a hypothesis file"
SHA=$($PY -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' h.toml)
h audit -f json hyp.h5 > hyp.json 2>"$SCRATCH/err"
check_audit hyp.json hypotheses WARN "any(\"$SHA\" in e for e in c[\"evidence\"]) and not any(\"PRE-REGISTERED\" in e for e in c[\"evidence\"])" &&
	pass "hypothesis file listed with its SHA-256, not pre-registered: WARN" || fail "hypotheses"
echo "# edited after the run" >> h.toml
h audit -f json hyp.h5 > hyp.json 2>"$SCRATCH/err"
check_audit hyp.json hypotheses WARN 'any("MODIFIED" in e for e in c["evidence"])' &&
	pass "hypothesis file edited after the run: MODIFIED" || fail "hypotheses modified"

# failed units, unevenly spread
cp "$DATA/run/faults.toml" f.toml
h run -q -o f.h5 f.toml >/dev/null 2>&1
expect_status 1 h audit -f json f.h5 && cp "$SCRATCH/out" f.json
check_audit f.json failures FAIL '"crash" in c["modes"] and "chi-square" in " ".join(c["evidence"])' &&
	pass "failed units: FAIL (modes with no ok unit)" || fail "failures"

# bad input
expect_status 2 h audit missing.h5 && expect_grep "missing.h5" "$SCRATCH/err" && pass "missing file: exit 2"
expect_status 2 h audit --baseline nosuch syn.h5 && expect_grep "no mode 'nosuch'" "$SCRATCH/err" && pass "unknown baseline: exit 2"
expect_status 2 h audit -f csv syn.h5 && expect_grep "format must be md or json" "$SCRATCH/err" && pass "bad format: exit 2"
expect_status 2 h audit --alpha 0.9 syn.h5 && expect_grep "alpha" "$SCRATCH/err"
expect_status 2 h audit && expect_grep "usage: harness audit" "$SCRATCH/err"
# an A/A pair that does not run the same thing (issue 9, item 9): `check` refuses such an
# aa_of, so the declaration is planted in the recorded experiment of a run whose two modes
# (vendor, heuristic) choose different configs; the audit FAILs the pair
sed -e 's/^name = "auditclean"/name = "auditaa"/' -e 's/^tuner = "exhaustive"/tuner = "heuristic"/' \
	-e '/^options = { max_configs = 3 }/d' "$DATA/audit/clean.toml" > aa-bad.toml
expect_status 0 h run -q -o aa-bad.h5 aa-bad.toml || fail "the vendor/heuristic run"
plant_aa() {
	$PY - "$1" <<'PYEOF'
import hashlib, sys
import h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    g = f["run/files"]
    for name in list(g.keys()):
        d = g[name]
        if d.attrs["role"] not in ("experiment", b"experiment"):
            continue
        attrs = dict(d.attrs)
        text = d[()].decode("utf-8").replace('name = "exhaustive"', 'name = "exhaustive"\naa_of = "default"')
        text = text.encode("utf-8")
        del g[name]
        nd = g.create_dataset(name, data=np.bytes_(text))
        for k, v in attrs.items():
            nd.attrs[k] = v
        nd.attrs["sha256"] = np.bytes_(hashlib.sha256(text).hexdigest())
PYEOF
}
plant_aa aa-bad.h5 || fail "plant aa_of in the recorded experiment"
expect_status 1 h audit -f json aa-bad.h5
check_audit "$SCRATCH/out" identity FAIL '"declared A/A" in c["summary"] and any("do not measure the same thing" in e for e in c["evidence"])' &&
	pass "a declared A/A pair that chose different configs: identity FAIL" || fail "A/A pair with different configs"
# the same pair with one unit of each mode: a measuring tuner's own variation between
# processes (Inductor's launch-time autotuning) would look the same, so WARN, undecided
sed -e 's/^repeats = 2/repeats = 1/' aa-bad.toml > aa-one.toml
expect_status 0 h run -q -o aa-one.h5 aa-one.toml || fail "the one-block vendor/heuristic run"
plant_aa aa-one.h5 || fail "plant aa_of in the one-block run"
expect_status 1 h audit -f json aa-one.h5
check_audit "$SCRATCH/out" identity WARN '"undecided" in c["summary"] and any("more units of each" in e for e in c["evidence"])' &&
	pass "the same pair from one unit each: identity WARN (undecided)" || fail "A/A pair with different configs, one unit each"
# two units of the original against one of the copy (the copy's other unit failed): still
# one unit on a side of every differing cell, so still undecided
cp aa-bad.h5 aa-21.h5
$PY - aa-21.h5 <<'PYEOF' || fail "fail one unit of the copy"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    u = f["units"][()]
    i = [k for k in range(len(u)) if u["mode"][k] in (b"exhaustive", "exhaustive")][0]
    u["status"][i] = b"failed"
    f["units"][...] = u
PYEOF
expect_status 1 h audit -f json aa-21.h5
check_audit "$SCRATCH/out" identity WARN '"undecided" in c["summary"]' &&
	pass "two units against one: identity WARN (undecided)" || fail "A/A pair with different configs, two units against one"

# the margin against the effects claimed: aa-kinds.toml's copy is 4% off in its forwards, so
# the cells' noise floors (at least 0.5%) are wider than the 0.3% a hypothesis names: WARN,
# naming it; with 5% named instead (no floor exceeds the 5% clamp), PASS
cp "$DATA/report/aa-kinds.toml" "$DATA/command/fake_worker.py" "$DATA/audit/margin-hyp.toml" .
sed 's/^unit_timeout = 60$/unit_timeout = 60\nhypotheses = ["margin-hyp.toml"]/' aa-kinds.toml > margin.toml
expect_status 0 h run -q -o margin.h5 margin.toml >/dev/null || fail "the margin run"
h audit -f json margin.h5 >"$SCRATCH/out" 2>"$SCRATCH/err"
check_audit "$SCRATCH/out" margin WARN 'd["settings"]["margin_source"] == "none" and "wider than the 0.30% that \x27tight\x27 names" in c["summary"] and len(c["cells"]) == 6' &&
	pass "noise floors wider than a named effect: margin WARN, naming the hypothesis and the cells" || fail "margin check, 0.3%"
sed -i 's/^min_effect = 0.003$/min_effect = 0.05/' margin-hyp.toml
expect_status 0 h run -q -o margin5.h5 margin.toml >/dev/null || fail "the margin run, 5%"
h audit -f json margin5.h5 >"$SCRATCH/out" 2>"$SCRATCH/err"
check_audit "$SCRATCH/out" margin PASS '"within the smallest effect a hypothesis names (5.00%" in c["summary"]' &&
	pass "floors within the named effect: margin PASS" || fail "margin check, 5%"

# op-spin: op cells timed behind a GPU spin, read from the units' spin notes (the fake
# worker's spin = {mode = L}: L of the 9 samples of each op cell late).  None late: PASS;
# 2 of 9 in base-aa: WARN naming it; 5 of 9: FAIL; a fixed spin with no notes: WARN; no spin
# at all: no such check.
spin_case() { # OPTIONS STATUS CONDITION WHAT: a 2-block run of aa-kinds.toml with OPTIONS
	# added to both modes, whose op-spin check must be STATUS with CONDITION (check_audit)
	sed -e 's/^repeats = 6$/repeats = 2/' -e "s/e2e = true, e2e_scale/e2e = true, $1, e2e_scale/" \
		aa-kinds.toml > spin.toml
	rm -rf spin.h5 spin
	expect_status 0 h run -q -o spin.h5 spin.toml >/dev/null &&
		{ h audit -f json spin.h5 >"$SCRATCH/out" 2>"$SCRATCH/err"; true; } &&
		check_audit "$SCRATCH/out" op-spin "$2" "$3" && pass "$4" || fail "op-spin: $4"
}
spin_case 'spin = { base = 0, base-aa = 0 }' PASS '"every op cell of 4 units" in c["summary"] and any("\x27base-aa\x27: 0 of 54 op samples late" in e for e in c["evidence"])' \
	"no late op samples: op-spin PASS"
spin_case 'spin = { base = 0, base-aa = 2 }' WARN 'c["modes"] == ["base-aa"] and "6 unit-cells were late in more than 10%" in c["summary"] and any("\x27base-aa\x27: 12 of 54 op samples late (22.2%)" in e and "in 10-50%: 6" in e for e in c["evidence"])' \
	"2 of 9 late in one mode: op-spin WARN naming it"
spin_case 'spin = { base = 5, base-aa = 0 }' FAIL 'c["modes"] == ["base"] and "6 unit-cells were late in 50% or more" in c["summary"] and len(c["units"]) == 2 and len(c["cells"]) == 3' \
	"5 of 9 late: op-spin FAIL, its units and cells named"
spin_case 'spin_fixed = true' WARN '"4 units recorded no host time" in c["summary"] and any("fixed spin (200000 cycles)" in e for e in c["evidence"])' \
	"a fixed spin without host times: op-spin WARN"
h audit -f json margin5.h5 >"$SCRATCH/out" 2>"$SCRATCH/err"
$PY -c 'import json, sys; sys.exit(any(k["id"] == "op-spin" for k in json.load(open(sys.argv[1]))["checks"]))' "$SCRATCH/out" &&
	pass "no spin recorded: no op-spin check" || fail "an op-spin check without spin notes"
finish

# tests/cli/devices.sh: the device as a stratum of the report (issue 15).  On a committed
# results file with planted device effects (tests/data/devices: a --jobs 2 run of an
# external worker whose units on the slot without core 0 are 25% slower and drift), every
# per-device statistic of `report --format json` (A/A noise floor, drift, the baseline's
# level, the level differences) equals tests/data/devices/reference.json, derived with
# numpy and SciPy by reference.py; markdown and warnings say the same, and the audit's
# devices check agrees.  A live --jobs 2 run of the same worker is checked against
# reference.py run on it; a run on one device gets a report without the stratum.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py, numpy, scipy' 2>/dev/null || skip "h5py, numpy and scipy for /usr/bin/python3 are needed"
export PYTHONPATH="$top_srcdir/tests/cli"
D="$DATA/devices"

# compare REPORT.json REFERENCE.json: every per-device number within 1e-9 (relative)
compare() { $PY - "$1" "$2" <<'PY'
import json, math, sys
rep = json.load(open(sys.argv[1]))["devices"]
ref = json.load(open(sys.argv[2]))
bad = []
def close(a, b, what):
    if a is None or b is None or (isinstance(a, float) and math.isnan(a)):
        ok = (a is None or (isinstance(a, float) and math.isnan(a))) and b is None
    else:
        ok = math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if not ok:
        bad.append("%s: report %r, reference %r" % (what, a, b))
assert [d["device"] for d in rep["devices"]] == [d["device"] for d in ref["devices"]], "device order"
close(rep["split_blocks"], ref["split_blocks"], "split blocks")
for d, r in zip(rep["devices"], ref["devices"]):
    n = d["device"]
    close(d["blocks"], r["blocks"], n + " blocks")
    assert sorted(a["mode"] for a in d["aa"]) == sorted(r["aa"]), n
    for a in d["aa"]:
        close(a["noise_floor"], r["aa"][a["mode"]], n + " A/A " + a["mode"])
    for x in d["drift"]:
        k, rho, p = r["drift"][x["mode"]]
        close(x["n"], k, n + " drift n " + x["mode"])
        close(x["spearman_rho"], rho, n + " drift rho " + x["mode"])
        close(x["p"], p, n + " drift p " + x["mode"])
        if x["flagged"] != (p is not None and p < 0.05):
            bad.append(n + " drift flag " + x["mode"])
    for l in d["baseline_level"]:
        k, med, spread, se = r["level"][l["cell"]]
        close(l["n"], k, n + " level n " + l["cell"])
        close(l["median_ns"], med, n + " level " + l["cell"])
        close(l["log_spread"], spread, n + " spread " + l["cell"])
        close(l["log_se"], se, n + " se " + l["cell"])
got = [[x["cell"], x["device_a"], x["device_b"]] for x in rep["level_differences"]]
if got != [x[:3] for x in ref["differ"]]:
    bad.append("level differences: report %r, reference %r" % (got, ref["differ"]))
for x, r in zip(rep["level_differences"], ref["differ"]):
    close(x["log_difference"], r[3], "difference " + x["cell"])
    close(x["two_se"], r[4], "2 SE " + x["cell"])
for b in bad:
    print("  " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# ---- the committed file: planted effects, committed reference values
expect_status 0 h report --format json "$D/devices.h5" && cp out rep.json || cat err >&2
compare rep.json "$D/reference.json" && pass "per-device A/A floor, drift, levels and differences equal the SciPy reference" ||
	fail "the device stratum differs from reference.json"
$PY - rep.json <<'PY' && pass "planted: cpu:1 is 25%+ slower and drifts, cpu:0 does not drift" || fail "the planted effects are not what the report says"
import json, sys
d = {x["device"]: x for x in json.load(open(sys.argv[1]))["devices"]["devices"]}
assert all(x["flagged"] for x in d["cpu:1"]["drift"]), d["cpu:1"]["drift"]
assert not any(x["flagged"] for x in d["cpu:0"]["drift"]), d["cpu:0"]["drift"]
for a, b in zip(d["cpu:1"]["baseline_level"], d["cpu:0"]["baseline_level"]):
    assert a["median_ns"] / b["median_ns"] > 1.25, (a, b)
PY
expect_status 0 h report "$D/devices.h5"
cp out rep.md
expect_grep "^## Devices$" rep.md && expect_grep "^\| cpu:1 \| 6 \| 2\.43% \|$" rep.md &&
	expect_grep "^\| w1/planted \| 28\.92 \(6, 9\.2%\) \| 19\.95 \(6, 1\.2%\) \| cpu:1 vs cpu:0: 45\.0% \(2 SE 7\.5%\) \|$" rep.md &&
	expect_grep "^- devices 'cpu:1' and 'cpu:0' differ in the baseline's level beyond the noise floor in 2 of 2 cells" rep.md &&
	expect_grep "^- mode 'base' drifts with run order on device 'cpu:1'" rep.md &&
	pass "markdown: the Devices section and its warnings"
grep -q "drifts with run order on device 'cpu:0'" rep.md && fail "a drift warning for cpu:0, which has none planted"
h report --format html "$D/devices.h5" >rep.html 2>err
grep -q '<h3 id="devices">Devices</h3>' rep.html &&
	grep -q '<tr><td>cpu:1</td><td class="num">6</td><td class="num">2.43%</td><td>base (rho 1.00), base-aa (rho 1.00), fast (rho 1.00)</td></tr>' rep.html &&
	grep -q '<tr><td>w1/planted</td><td>cpu:1</td><td>cpu:0</td><td class="num">45.0%</td><td class="num">7.5%</td></tr>' rep.html &&
	pass "html: the Devices table and the level differences" || fail "html: no Devices section as expected"
h audit "$D/devices.h5" >out 2>err
expect_grep "devices alike in level \(baseline, per device\) \| \*\*WARN\*\* \| the devices differ in level beyond the noise floor in 2 comparisons" out &&
	pass "audit: the devices check warns on the same level differences"

# ---- a live run: --jobs 2 pins each unit to one slot's cores
if [ "$(nproc)" -ge 2 ]; then
	cp "$D/devices_worker.py" "$D/devices.toml" .
	expect_status 0 h run -q --jobs 2 -o live.h5 devices.toml || cat err >&2
	$PY "$D/reference.py" live.h5 >live-ref.json
	expect_status 0 h report --format json live.h5 && cp out live.json
	compare live.json live-ref.json && pass "live --jobs 2 run: the device stratum equals the SciPy reference on it" ||
		fail "live run: the device stratum differs from reference.py"
	$PY - live.json <<'PY' && pass "live run: the slow device is flagged" || fail "live run: the planted difference is not flagged"
import json, sys
r = json.load(open(sys.argv[1]))["devices"]
assert len(r["devices"]) == 2 and r["level_differences"], r["level_differences"]
PY
	# one device: the report has no device stratum (as before --jobs existed)
	expect_status 0 h run -q --jobs 1 -o one.h5 devices.toml
	h report one.h5 >one.md 2>err
	h report --format json one.h5 >one.json 2>err
	h report --format html one.h5 >one.html 2>err
	! grep -q "^## Devices" one.md && ! grep -q 'id="devices"' one.html && $PY -c 'import json,sys; sys.exit("devices" in json.load(open("one.json")))' &&
		pass "one device: no Devices section (markdown, HTML), no 'devices' in the JSON" || fail "a one-device report shows the stratum"
fi
finish

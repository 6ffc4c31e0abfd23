#!/bin/bash
# tests/gpu/spec-run.sh [MAIN_S] [TORCH_S]: issue 46 item 1 on a lent GPU machine (bundle at
# .gpu/bundle.txz, `make bundle`; docs/benchmarks-archive.md, stop 56): the own worker from its unit
# specification alone.  selftest-unit of the own worker on cuda; the main job within
# --max-time (its units' specifications checked against `check --settings`); torch-tiny.
set -u
cd "$(dirname "$0")/.."
[ -d bundle ] || tar -xJf .gpu/bundle.txz
B=$PWD/bundle/run.sh
R=/root/gpurun
rm -rf $R; mkdir -p $R
q() { nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,power.limit,clocks_event_reasons.active --format=csv,noheader; }
{ date -u +%FT%TZ; q; nproc; uname -r; } > $OUT/host.txt 2>&1
{ for t in vendor heuristic exhaustive; do echo "== selftest-unit --tuner $t --backend cuda"; /usr/bin/time -f "%e s" $B selftest-unit --tuner $t --backend cuda --timeout 300 --dir $R/st-$t; echo "exit $?"; done; } > $OUT/selftest.txt 2>&1
$B check --settings bundle/experiments/resnet.toml > $OUT/settings.txt 2>&1
/usr/bin/time -v $B run --max-time "${1:-420}" -o $R/resnet.h5 bundle/experiments/resnet.toml > $OUT/run.txt 2>&1
echo "exit $?" >> $OUT/run.txt
grep -E "^harness: look|exit|Elapsed" $OUT/run.txt
python3 - $R/resnet/cache $OUT/settings.txt > $OUT/specs.txt 2>&1 <<'PY'
import glob, json, sys, re
want = {}
for l in open(sys.argv[2]):
    m = re.match(r"\s+mode '([\w-]+)', \[on\.cuda\]: (.*)", l)
    if m:
        want[m.group(1)] = dict(kv.split(" = ") for kv in m.group(2).split(", "))
keys = {"warmup_time": "warmup_s", "max_time": "max_time_s", "target_precision": "target_rel_precision"}
n = bad = 0
for p in sorted(glob.glob(sys.argv[1] + "/*/harness-unit-*.json")):
    s = json.load(open(p)); n += 1
    w = want[s["mode"]]
    for k, v in w.items():
        got = s["measure"][keys.get(k, k)]
        if (str(got).lower() if isinstance(got, bool) else float(got)) != (v if v in ("true", "false") else float(v)):
            bad += 1; print("MISMATCH", p, k, got, v)
    if s["backend"] != "cuda": bad += 1; print("BACKEND", p, s["backend"])
print("%d specifications, %d mismatches against check --settings [on.cuda]" % (n, bad))
PY
/usr/bin/time -v $B run --max-time "${2:-100}" -o $R/tt.h5 bundle/experiments/torch-tiny.toml > $OUT/torch.txt 2>&1
echo "exit $?" >> $OUT/torch.txt
$B show $R/tt.h5 >> $OUT/torch.txt 2>&1
{ date -u +%FT%TZ; q; } >> $OUT/host.txt 2>&1
$B report $R/resnet.h5 > $OUT/report.md 2>&1
$B verify $R/resnet.h5 > $OUT/verify.md 2>&1
$B audit $R/resnet.h5 > $OUT/audit.md 2>&1
ls -la $OUT

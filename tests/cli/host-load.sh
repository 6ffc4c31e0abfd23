# tests/cli/host-load.sh: the harness's note of the host's CPUs in each unit's info
# (host_cpus, host_busy_cpus, host_unit_cpus and the unit's context switches, page faults,
# CPU moves and last CPU: unit.h, "the host's CPU note"; the worker's host-speed probe, page
# faults while it measures and NUMA notes) and
# the audit's host-load check on it.  Every unit
# records them, in range (busy and own CPUs within
# the host's, the unit's own work inside the host's busy time up to rounding); with a busy
# loop on every CPU while the units run, the check WARNs and names the units and the mode;
# a file from before the note has no such check.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"
export PYTHONPATH="$top_srcdir/tests/cli"
cp "$DATA/run/resume.toml" exp.toml
ncpu=$(getconf _NPROCESSORS_ONLN)

expect_status 0 h run -q -o quiet.h5 exp.toml || finish
sched=0
[ -r /proc/self/sched ] && grep -q nr_migrations /proc/self/sched && sched=1
[ $sched = 1 ] || echo "note: no /proc/PID/sched (a kernel without scheduler statistics): host_unit_migrations is not expected"
$PY - quiet.h5 "$ncpu" "$sched" <<'PYEOF' && pass "every unit notes the host's CPUs, in range, and its switches, moves and last CPU" || fail "host notes"
import glob, os, re, sys, h5py
from h5util import table
ncpu, sched = int(sys.argv[2]), sys.argv[3] == "1"
# each CPU's NUMA node from sysfs, independently of the harness (empty: no NUMA in sysfs)
numa_cpu = {}
for d in glob.glob("/sys/devices/system/cpu/cpu[0-9]*"):
    nodes = [e for e in os.listdir(d) if re.fullmatch(r"node[0-9]+", e)]
    if nodes:
        numa_cpu[int(d.rsplit("cpu", 1)[1])] = int(nodes[0][4:])
numa_maps = os.access("/proc/self/numa_maps", os.R_OK)
with h5py.File(sys.argv[1], "r") as f:
    units = table(f, "units")
assert len(units) == 12, len(units)
for u in units:
    info = u["info"].decode() if isinstance(u["info"], bytes) else u["info"]
    kv = dict(l.split("=", 1) for l in info.splitlines() if "=" in l)
    cpus, busy, own = int(kv["host_cpus"]), float(kv["host_busy_cpus"]), float(kv["host_unit_cpus"])
    assert cpus == ncpu, (cpus, ncpu)
    assert 0 <= busy <= cpus + 0.05 and 0 <= own <= cpus + 0.05, (busy, own)
    # the unit's own CPU time is part of the host's busy time (ticks against rusage: slack)
    assert own <= busy + 0.15, (u["id"], own, busy)
    assert own > 0.05, (u["id"], own)  # it measured a GEMM on a CPU core
    # its context switches (rusage) and, where /proc keeps them, its moves and last CPU
    assert int(kv["host_unit_voluntary_switches"]) >= 0, kv
    assert int(kv["host_unit_involuntary_switches"]) >= 0, kv
    # its page faults (rusage): exec alone maps pages in; the worker's own count over its
    # timed regions is part of the unit's
    for kind in ("minor", "major"):
        assert 0 <= int(kv["host_measure_%s_faults" % kind]) <= int(kv["host_unit_%s_faults" % kind]), kv
    assert int(kv["host_unit_minor_faults"]) > 0, kv
    assert 0 <= int(kv["host_unit_last_cpu"]) < ncpu, kv
    if sched:
        assert int(kv["host_unit_migrations"]) >= 0, kv
    else:
        assert "host_unit_migrations" not in kv, kv
    # the worker's host-speed probe before and after its timed regions, and where it ran
    for when in ("before", "after"):
        assert 0 < int(kv["host_spin_ns_" + when]) < 10**9, kv
        assert 0 <= int(kv["host_spin_cpu_" + when]) < ncpu, kv
    # and where it sat for NUMA: the nodes of those CPUs (sysfs) and its pages by node
    # (/proc/self/numa_maps), where this kernel has them
    for when in ("before", "after"):
        node = int(kv["host_numa_node_" + when])
        assert node == (numa_cpu[int(kv["host_spin_cpu_" + when])] if numa_cpu else -1), kv
    if numa_maps:
        pages = [int(p.split(":")[1]) for p in kv["host_numa_pages"].split(",")]
        assert [int(p.split(":")[0]) for p in kv["host_numa_pages"].split(",")] == list(range(len(pages))), kv
        assert sum(pages) > 0 and min(pages) >= 0, kv
    else:
        assert "host_numa_pages" not in kv, kv
PYEOF

if [ "$ncpu" -lt 2 ]; then
	echo "note: one CPU: the loaded host is not planted (a busy loop would be the only other work)"
else
	pids=
	for _ in $(seq 1 "$ncpu"); do
		sh -c 'while :; do :; done' &
		pids="$pids $!"
	done
	h run -q -o busy.h5 exp.toml >/dev/null 2>&1
	rc=$?
	# shellcheck disable=SC2086 # one pid per word
	kill $pids
	wait 2>/dev/null
	[ $rc -eq 0 ] || fail "the run beside the busy loops exited $rc"
	h audit -f json busy.h5 >busy.json 2>/dev/null
	$PY - busy.json <<'PYEOF' && pass "busy loops on every CPU: host-load WARN naming every mode and their units" || fail "host-load WARN"
import json, sys
d = json.load(open(sys.argv[1]))
c = {k["id"]: k for k in d["checks"]}["host-load"]
ok = (c["status"] == "WARN" and set(c["modes"]) == {"again", "default", "heuristic"}
      and len(c["units"]) >= 6 and "time that contention too" in c["summary"])
if not ok:
    print(c, file=sys.stderr)
sys.exit(0 if ok else 1)
PYEOF
fi

# a results file from before the note (the v1 golden run) has no host-load check
h audit -f json "$DATA/v1/v1.h5" >old.json 2>/dev/null
$PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if "host-load" not in [k["id"] for k in d["checks"]] else 1)' old.json &&
	pass "a file without the note: no host-load check" || fail "host-load on a file without the note"
finish

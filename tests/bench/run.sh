# tests/bench/run.sh: the benchmarks behind docs/BENCHMARKS.md (run by `make bench` from the
# build tree).  Prints the numbers; record them in docs/BENCHMARKS.md with the machine and date.
#  1. the recorder's HDF5 write rate for 10 million samples (tests/bench/bench-recorder)
#  2. the harness's own overhead as a share of wall time on experiments/resnet.toml (CPU):
#     the scheduler's time outside units = run wall time - sum of unit wall times, and the
#     start-up cost of a unit (spawn + exec + experiment parse + backend open: the time to its
#     first record), from a run of experiments/tiny.toml
#  3. peak memory of the scheduler and of the largest unit (recorded in the results file)
#  4. `harness import` of a CSV with 100,000 distinct cells (2 modes x 100k cells)
set -eu
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
HARNESS=${HARNESS:-./harness/harness}
export HARNESS_KERNEL_DIR=${HARNESS_KERNEL_DIR:-$top_srcdir/kernels}
export PYTHONPATH="$top_srcdir/tests/cli"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== machine"
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "cpu: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1) x $(nproc)"
echo "memory: $(sed -n 's/^MemTotal:\s*//p' /proc/meminfo)"

echo "== recorder: 10 million samples"
BENCH_KEEP=1 ./tests/bench/bench-recorder "$out"

echo "== report: 10 million samples"
for f in "$out"/bench-*.h5; do
	/usr/bin/python3 - "$HARNESS" "$f" <<'PYEOF'
import resource, subprocess, sys, time
t = time.monotonic()
subprocess.run([sys.argv[1], "report", "--format", "json", sys.argv[2]], check=True, stdout=subprocess.DEVNULL)
wall = time.monotonic() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print("report %s: %.2f s, peak RSS %.1f MB" % (sys.argv[2].rsplit("/", 1)[1], wall, rss))
PYEOF
done

echo "== import: 100,000 distinct cells"
/usr/bin/python3 - "$out/cells.csv" <<'PYEOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("mode,block,cell,value,unit\n")
    for m in ("a", "b"):
        for i in range(100000):
            f.write("%s,0,w/op:n=%d,%s,us\n" % (m, i, 1.5 + i % 7))
PYEOF
/usr/bin/python3 - "$HARNESS" "$out/cells.csv" "$out/cells.h5" <<'PYEOF'
import resource, subprocess, sys, time
t = time.monotonic()
subprocess.run([sys.argv[1], "import", "--csv", sys.argv[2], "-o", sys.argv[3]], check=True, stdout=subprocess.DEVNULL)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print("import 100k cells: %.2f s wall, %.2f s user, peak RSS %.1f MB" % (time.monotonic() - t, ru.ru_utime, ru.ru_maxrss / 1024))
PYEOF

echo "== resnet.toml on the CPU backend"
t0=$(date +%s.%N)
$HARNESS run -q -o "$out/resnet.h5" "$top_srcdir/experiments/resnet.toml" > "$out/summary.txt"
t1=$(date +%s.%N)
/usr/bin/python3 - "$out/resnet.h5" "$t0" "$t1" <<'PYEOF'
import sys, h5py
from h5util import table, meta
path, t0, t1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
with h5py.File(path, "r") as f:
    units, m = table(f, "units"), meta(f)
    nsamples = f["samples"].shape[0]
    samples = f["samples"][:]
    measures = table(f, "measures")
wall = t1 - t0
inside = sum(u["wall_ns"] for u in units) / 1e9
# inside a unit: setup (compile, tuning benchmarks, search incl. per-op reference checks),
# the e2e check (the whole forward against float64), warm-up and timed calls are the work;
# the rest (process start and exit, experiment parse, backend open, the sampling loop,
# records) is the harness's own overhead
def phase(u, key):
    for line in (u.get("info") or "").splitlines():
        if line.startswith(key + "="):
            return int(line.split("=", 1)[1])
    return 0
setup = sum(u["compile_ns"] + u["tune_ns"] + u["search_ns"] for u in units) / 1e9
e2e = sum(phase(u, "phase_e2e_check_ns") for u in units) / 1e9
timed = (sum(m["warmup_ns"] for m in measures) + int(samples["ns"].sum())) / 1e9
rest = inside - setup - e2e - timed
print("inside units: setup %.1f s, e2e reference checks %.1f s (%.2f%% of wall), warm-up + timed calls %.1f s"
      % (setup, e2e, 100 * e2e / wall, timed))
print("harness overhead inside units (start, parse, open, sampling loop, records): %.2f s = %.2f%% of wall"
      % (rest, 100 * rest / wall))
print("units: %d, samples: %d" % (len(units), nsamples))
print("run wall time: %.1f s; inside units: %.1f s; scheduler overhead: %.2f s = %.2f%%"
      % (wall, inside, wall - inside, 100 * (wall - inside) / wall))
print("setup per unit (median s): " + ", ".join(
    "%s %.2f" % (mo, sorted(u["compile_ns"] + u["tune_ns"] + u["search_ns"] for u in units if u["mode"] == mo)[len([u for u in units if u["mode"] == mo]) // 2] / 1e9)
    for mo in sorted(set(u["mode"] for u in units))))
print("peak RSS: scheduler %s kB, largest unit %s kB" % (m.get("harness_peak_rss_kb"), m.get("units_peak_rss_kb")))
PYEOF

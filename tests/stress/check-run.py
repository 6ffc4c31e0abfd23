"""check-run.py: after a run was killed (or hit a full disk) and resumed, check the results
file against what the journal held before the resume (tests/cli/crash.sh,
tests/stress/crash-stress.sh).

usage: check-run.py snapshot RUNDIR > SNAP     (before --resume: the finished units)
       check-run.py check RESULTS.h5 SNAP NPLAN  (after: prints the counts, exit 1 on any)

A finished unit is one whose journal file unit-NNNN.h5 was in place (renamed, so whole).
lost: a finished unit missing from the results, or re-run (its pid changed);
duplicated: a unit id twice in /units; unverified: a unit `ok` whose samples are not all
positive, or not as many as /units says."""
import glob, json, os, sys
import h5py


def snapshot(rundir):
    snap = {}
    for p in sorted(glob.glob(os.path.join(rundir, "journal", "unit-*.h5"))):
        with h5py.File(p, "r") as f:
            u = f["units"][0]
            snap[int(u["id"])] = int(u["pid"])
    json.dump(snap, sys.stdout)


def check(results, snapfile, nplan):
    snap = {int(k): v for k, v in json.load(open(snapfile)).items()}
    with h5py.File(results, "r") as f:
        units = f["units"][:]
        samples = f["samples"][:]
    ids = [int(u["id"]) for u in units]
    pid = {int(u["id"]): int(u["pid"]) for u in units}
    lost = sum(1 for i, p in snap.items() if pid.get(i) != p)
    dup = len(ids) - len(set(ids))
    missing = len(set(range(nplan)) - set(ids))
    unverified = 0
    for k, u in enumerate(units):
        a, n = int(u["sample_first"]), int(u["sample_count"])
        mine = samples[a:a + n]
        ok = u["status"].decode() == "ok"
        if ok and (n == 0 or len(mine) != n or (mine["ns"] <= 0).any() or (mine["unit"] != k).any()):
            unverified += 1
    print("finished-before=%d lost=%d duplicated=%d missing=%d unverified=%d"
          % (len(snap), lost, dup, missing, unverified))
    sys.exit(1 if lost or dup or missing or unverified else 0)


if sys.argv[1] == "snapshot":
    snapshot(sys.argv[2])
else:
    check(sys.argv[2], sys.argv[3], int(sys.argv[4]))

# tests/cli/slurm.sh: harness slurm against a real Slurm (issue 15).  Starts a one-host
# cluster in the scratch folder (munged with a generated key, slurmctld and slurmd on
# localhost with a generated slurm.conf, ports of its own), submits a small experiment as a
# 3-task job array with harness slurm --submit, waits, merges the shards and checks the
# merged file's units, blocks and modes equal the same plan run in one process, with each
# task's Slurm ids in its provenance, and that report, audit and verify read it.  Skips,
# saying why, without root or Debian's slurm-wlm and munge (scripts/setup-debian.sh);
# tests/cli/scale.sh covers sharding and merging without Slurm (--local).
. "$top_srcdir/tests/setup"
. "$top_srcdir/tests/setup-shards"
[ "$(id -u)" -eq 0 ] || skip "starting slurmctld, slurmd and munged needs root"
for p in munged slurmctld slurmd sbatch squeue; do
	command -v $p >/dev/null 2>&1 || PATH="$PATH:/usr/sbin" command -v $p >/dev/null 2>&1 ||
		skip "'$p' is not installed (Debian: slurm-wlm, munge)"
done
export PATH="$PATH:/usr/sbin"
D="$SCRATCH/slurm"
mkdir -p "$D/state" "$D/spool"
stop_cluster() {
	for f in slurmd slurmctld munged; do
		[ -s "$D/$f.pid" ] && kill "$(cat "$D/$f.pid")" 2>/dev/null
	done
	sleep 0.5
	rm -rf "$SCRATCH"
}
trap stop_cluster EXIT
host=$(hostname -s)
port=$((20000 + $$ % 20000))
dd if=/dev/urandom of="$D/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$D/munge.key"
munged --force --key-file="$D/munge.key" --socket="$D/munge.sock" --pid-file="$D/munged.pid" \
	--log-file="$D/munged.log" --seed-file="$D/munge.seed" >"$D/munged.out" 2>&1 ||
	skip "munged would not start: $(tail -1 "$D/munged.out")"
cat >"$D/slurm.conf" <<CONF
ClusterName=harnesstest
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$D/munge.sock
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SlurmUser=root
SlurmdUser=root
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmdSpoolDir=$D/spool
StateSaveLocation=$D/state
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$D/slurm.conf"
slurmctld -f "$SLURM_CONF" >"$D/ctld.out" 2>&1 || skip "slurmctld would not start: $(tail -1 "$D/ctld.out")"
slurmd -f "$SLURM_CONF" >"$D/slurmd.out" 2>&1 || skip "slurmd would not start: $(tail -1 "$D/slurmd.out")"
up=0
for _ in $(seq 1 100); do
	sinfo -h -o %t 2>/dev/null | grep -q idle && { up=1; break; }
	sleep 0.2
done
[ "$up" = 1 ] || skip "the one-host cluster did not come up: $(tail -2 "$D/slurmctld.log" 2>/dev/null)"
pass "a one-host Slurm cluster is up ($(sinfo -h -o '%P %t %N'))"

expect_status 0 h slurm --tasks 3 --partition test --time 10:00 --submit -o run exp.toml &&
	expect_grep "^submitted job [0-9]+" out && pass "harness slurm --submit: a 3-task array submitted" || cat err >&2
job=$(sed -n 's/^submitted job \([0-9]*\).*/\1/p' out)
for _ in $(seq 1 1500); do
	[ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
	sleep 0.2
done
[ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && pass "the job array finished" || fail "job $job still queued or running"
for k in 0 1 2; do
	[ -s run/shard-$k.h5 ] || { fail "task $k wrote no shard"; sed 's/^/  | /' run/slurm-*_$k.out >&2; }
done
expect_status 0 h merge run/shard-*.h5 -o run.h5 && pass "harness merge: the 3 shards" || cat err >&2
expect_status 0 h run -q -o one.h5 exp.toml
rows() { units "$1" id block position mode warm; }
rows run.h5 >m.txt
rows one.h5 >o.txt
[ -s m.txt ] && cmp -s m.txt o.txt && pass "merged: the units, blocks and modes of the plan run in one process" ||
	{ fail "merged units differ"; diff m.txt o.txt >&2; }
$PY - "$job" <<'PY' && pass "merged: each task's Slurm job and task ids in its provenance" || fail "merged provenance"
import sys, h5py, json
with h5py.File("run.h5", "r") as f:
    a = f["run"].attrs
    s = json.loads(a["shards"])
    assert a["status"] == b"complete", a["status"]
    assert sorted(x["slurm_array_task_id"] for x in s) == ["0", "1", "2"], s
    assert all(x["slurm_array_job_id"] == sys.argv[1] for x in s), s
    assert all(x["slurm_job_id"] for x in s), s
PY
h report run.h5 >out 2>err && pass "report reads the merged file" || fail "report on the merged file"
h audit run.h5 >out 2>err; [ $? -le 1 ] && pass "audit reads the merged file" || fail "audit on the merged file"
h verify run.h5 >out 2>err && pass "verify reads the merged file" || fail "verify on the merged file"
finish

#!/bin/bash
# tests/gpu/sandbox-run.sh PHASE: issue 45's sandbox on the GPU machine, run from a copy in
# .gpu/ beside .gpu/bundle.txz (scripts/bundle.sh's bundle, with experiments/resnet.toml,
# torch-tiny.toml and tests/data/writer/hostile.* in bundle/hostile/).  "a": the card's
# state, the hostile unit (what held here), the main job (resnet.toml) within --max-time; "b": --resume of the
# main job, then torch-tiny within --max-time (torch worker units sandboxed).  Files to $OUT.
set -u
cd "$(dirname "$0")/.."
[ -d bundle ] || tar -xJf .gpu/bundle.txz
B=$PWD/bundle/run.sh
R=/root/gpurun
mkdir -p $R
q() { nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,power.limit,clocks_event_reasons.active --format=csv,noheader; }
{ date -u +%FT%TZ; q; nproc; id; uname -r; cat /proc/sys/user/max_user_namespaces; cat /proc/sys/kernel/apparmor_restrict_unprivileged_userns 2>/dev/null; grep -c shared: /proc/self/mountinfo; } > $OUT/host-$1.txt 2>&1
if [ "$1" = a ]; then
	rm -rf $R/resnet $R/resnet.h5 $R/h
	( cd bundle/hostile && HS_SECRET=never-for-a-unit $B run -q -o $R/h/h.h5 hostile.toml > $OUT/hostile.txt 2>&1
	  echo "exit $?" >> $OUT/hostile.txt
	  cat $R/h/h/logs/u0000.err >> $OUT/hostile.txt
	  $B audit $R/h/h.h5 | grep -A8 "## units sandboxed" >> $OUT/hostile.txt
	  grep -c never-for-a-unit $R/h/h.h5 $R/h/h/logs/* >> $OUT/hostile.txt
	  ps -eo args | grep -c "[h]s-orphan-marker" >> $OUT/hostile.txt )
	/usr/bin/time -v $B run --max-time "${2:-480}" -o $R/resnet.h5 bundle/experiments/resnet.toml > $OUT/run.txt 2>&1
else
	/usr/bin/time -v $B run --max-time "${2:-300}" --resume $R/resnet.h5 > $OUT/run.txt 2>&1
fi
echo "exit $?" >> $OUT/run.txt
grep -E "^harness: look|exit|Elapsed" $OUT/run.txt
if [ "$1" = b ]; then
	/usr/bin/time -v $B run --max-time "${3:-100}" -o $R/tt.h5 bundle/experiments/torch-tiny.toml > $OUT/torch.txt 2>&1
	echo "exit $?" >> $OUT/torch.txt
	$B show $R/tt.h5 >> $OUT/torch.txt 2>&1
	$B audit $R/tt.h5 > $OUT/torch-audit.md 2>&1
fi
{ date -u +%FT%TZ; q; } >> $OUT/host-$1.txt 2>&1
$B report $R/resnet.h5 > $OUT/report.md 2>&1
$B verify $R/resnet.h5 > $OUT/verify.md 2>&1
$B audit $R/resnet.h5 > $OUT/audit.md 2>&1
{ echo "---- harness show"; $B show $R/resnet.h5; } >> $OUT/run.txt 2>&1
ls -la $OUT

#!/bin/bash
# tests/gpu/main-job.sh PHASE [SECONDS]: the main job on one GPU (issue 44), on a lent
# machine, from the checkout with the bundle at .gpu/bundle.txz (`make bundle`, tar cJf;
# docs/BENCHMARKS.md).  PHASE "run": unpack the bundle, record the card and host, run
# experiments/resnet.toml (sequential) within --max-time SECONDS (560); "resume": go on with
# it; "collect": run nothing, only bring back what the last phase left.  GPUS=all (or a
# list) runs it with --gpus GPUS, one slot a device (docs/cluster.md).
# After a run or resume that ended (exit 0 or a failure), and in "collect": the results file
# back under $OUT (resnet.h5.xz.aa, .ab, ...: cat | xz -d; not when it exceeds 63 MiB
# compressed), the JSON report (report.json.xz) and text.tar.xz (host.txt, run-<phase>.txt
# of each phase run, verify.md, report.md, audit.md).  After one stopped by --max-time (exit
# 75), or with NO_COLLECT=1, only text.tar.xz (host.txt and the phases' run-*.txt): the
# results stay in /root/gpurun for the next call (within the device's idle window), so a
# run near the call's limit (`NO_COLLECT=1 ... run 560`, then `collect`) never loses them
# to the copy.
set -u
cd "$(dirname "$0")/../.."
[ -d bundle ] || tar -xJf .gpu/bundle.txz
B=bundle/run.sh
R=/root/gpurun
mkdir -p $R
. "$PWD/tests/gpu/card-state.sh" # q: the card's state
P=${1:-}
# "run" starts anew: the last run's results file and run folder go too (harness run -o refuses
# a file whose run folder holds a run), so `GPUS=all ... run`, `collect`, `GPUS=0 ... run` on
# one machine compare the two on the same host (stop 72)
[ "$P" = run ] && rm -rf $R/host.txt $R/run-*.txt $R/resnet.h5 $R/resnet.h5.xz $R/resnet
{ date -u +%FT%TZ; echo "phase $P"; q; nproc; lscpu | grep -E "Model name|Thread|Core|Socket|NUMA node\(s\)"; } >> $R/host.txt 2>&1
G=${GPUS:+--gpus $GPUS}
rc=0
case $P in
run)
	/usr/bin/time -v $B run $G --max-time "${2:-560}" -o $R/resnet.h5 bundle/experiments/resnet.toml > $R/run-run.txt 2>&1
	rc=$? ;;
resume)
	/usr/bin/time -v $B run $G --max-time "${2:-560}" --resume $R/resnet.h5 > $R/run-resume.txt 2>&1
	rc=$? ;;
collect) ;;
*)
	echo "usage: main-job.sh run|resume|collect [SECONDS]" >&2
	exit 2 ;;
esac
if [ $P != collect ]; then
	echo "exit $rc" >> $R/run-$P.txt
	{ date -u +%FT%TZ; q; } >> $R/host.txt 2>&1
	grep -E "^harness: look|exit|Elapsed" $R/run-$P.txt
fi
if [ $P != collect ] && { [ $rc = 75 ] || [ "${NO_COLLECT:-0}" = 1 ]; }; then
	# to be resumed or collected on this machine in the next call: nothing to copy yet
	# (stop 65's first call spent its last 60 s compressing a file the resume then
	# replaced, and lost its text files to the call's limit)
	echo "the results stay in $R; call again with 'resume' (exit 75) or 'collect'"
	tar -C $R -cJf $OUT/text.tar.xz host.txt $(cd $R && ls run-*.txt)
	exit 0
fi
# what comes back (the device tool: 8 files, 16 MiB each, 64 MiB in all): the results file
# first, xz in parts of 15 MiB (at most 5: stop 65's 94.8 MiB came to 61.9 MiB at xz's
# default level, 59.4 MiB at -9), then the text files in one archive, the audit bounded by
# AUDIT_LIMIT seconds (60) so a call's end never costs the results file
xz -T0 -9 -k -c $R/resnet.h5 > $R/resnet.h5.xz
if [ $(stat -c %s $R/resnet.h5.xz) -le $((63 * 1024 * 1024)) ]; then
	split -b 15M $R/resnet.h5.xz $OUT/resnet.h5.xz.
else
	echo "the results file is $(stat -c %s $R/resnet.h5.xz) bytes compressed: not copied"
fi
$B verify $R/resnet.h5 > $R/verify.md 2>&1
sed -n '/^| id | primary/,/^Holm/p' $R/verify.md | cut -c1-400
$B report $R/resnet.h5 > $R/report.md 2>&1
grep -c "FASTER\|SLOWER" $R/report.md
$B report -f json $R/resnet.h5 2>/dev/null | xz -c > $OUT/report.json.xz
timeout ${AUDIT_LIMIT:-60} $B audit $R/resnet.h5 > $R/audit.md 2>&1 || echo "audit exit $?" >> $R/audit.md
{ echo "---- harness show"; $B show $R/resnet.h5; } >> $R/host.txt 2>&1
tar -C $R -cJf $OUT/text.tar.xz host.txt $(cd $R && ls run-*.txt) verify.md report.md audit.md
ls -la $OUT

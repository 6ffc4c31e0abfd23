#!/bin/bash
# tests/gpu/main-job.sh PHASE [SECONDS]: the main job on one GPU (issue 44), on a lent
# machine, from the checkout with the bundle at .gpu/bundle.txz (`make bundle`, tar cJf;
# docs/BENCHMARKS.md).  PHASE "run": unpack the bundle, record the card and host, run
# experiments/resnet.toml (sequential) within --max-time SECONDS (560); "resume": go on with
# it.  GPUS=all (or a list) runs it with --gpus GPUS, one slot a device (docs/cluster.md).
# Then the results file back under $OUT (resnet.h5.xz.aa, .ab, ...: cat | xz -d; not when it
# exceeds 63 MiB compressed), the JSON report (report.json.xz) and text.tar.xz (host.txt,
# run.txt, verify.md, report.md, audit.md); after a run stopped by --max-time (exit 75), only
# text.tar.xz (host.txt, run.txt): the results stay for the resume.
set -u
cd "$(dirname "$0")/../.."
[ -d bundle ] || tar -xJf .gpu/bundle.txz
B=bundle/run.sh
R=/root/gpurun
mkdir -p $R
. "$PWD/tests/gpu/card-state.sh" # q: the card's state
{ date -u +%FT%TZ; q; nproc; lscpu | grep -E "Model name|Thread|Core|Socket|NUMA node\(s\)"; } > $OUT/host.txt 2>&1
G=${GPUS:+--gpus $GPUS}
if [ "$1" = run ]; then
	/usr/bin/time -v $B run $G --max-time "${2:-560}" -o $R/resnet.h5 bundle/experiments/resnet.toml > $OUT/run.txt 2>&1
else
	/usr/bin/time -v $B run $G --max-time "${2:-560}" --resume $R/resnet.h5 > $OUT/run.txt 2>&1
fi
rc=$?
echo "exit $rc" >> $OUT/run.txt
{ date -u +%FT%TZ; q; } >> $OUT/host.txt 2>&1
grep -E "^harness: look|exit|Elapsed" $OUT/run.txt
if [ $rc = 75 ]; then
	# stopped by --max-time, to be resumed on this machine in the next call (within the
	# device's idle window): nothing to copy yet (stop 65's first call spent its last 60 s
	# compressing a file the resume then replaced, and lost its text files to the limit)
	echo "resumable: the results stay in $R; call again with 'resume'"
	mv $OUT/run.txt $OUT/host.txt $R/ && tar -C $R -cJf $OUT/text.tar.xz host.txt run.txt
	exit 0
fi
# what comes back (the device tool: 8 files, 16 MiB each, 64 MiB in all): the results file
# first, xz in parts of 15 MiB (at most 5: stop 65's 94.8 MiB came to 61.9 MiB at xz's
# default level, 59.4 MiB at -9), then the text files in one archive, the audit bounded by AUDIT_LIMIT seconds (60) so a
# call's end never costs the results file
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
{ echo "---- harness show"; $B show $R/resnet.h5; } >> $OUT/run.txt 2>&1
mv $OUT/run.txt $OUT/host.txt $R/ && tar -C $R -cJf $OUT/text.tar.xz host.txt run.txt verify.md report.md audit.md
ls -la $OUT

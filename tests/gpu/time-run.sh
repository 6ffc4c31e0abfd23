#!/bin/bash
# tests/gpu/time-run.sh: `harness time` on a lent GPU machine (issue 48, item 1), from the
# checkout with the bundle at .gpu/bundle.txz: three whole torch processes (tests/gpu/mm.py:
# 50 products of 8192^2 matrices in float32, TF32 off; float16; float16 again, an A/A
# control for the process timing), 3 runs a unit, 4 blocks; then the results file's report
# and audit, and the card's state before and after, under $OUT.
set -u
cd "$(dirname "$0")/../.."
[ -d bundle ] || tar -xJf .gpu/bundle.txz
B=$PWD/bundle/run.sh
. "$PWD/tests/gpu/card-state.sh" # q: the card's state
{ date -u +%FT%TZ; q; nproc; command -v python3; python3 -c 'import torch; print(torch.__version__, torch.version.cuda)'; } > $OUT/time-host.txt 2>&1
M=$PWD/tests/gpu/mm.py
mkdir -p /root/timerun && cd /root/timerun
/usr/bin/time -v $B time --runs 3 --repeats 4 -o /root/timerun/t.h5 -n fp32 -n fp16 -n fp16-again \
	"python3 $M float32 8192 50" "python3 $M float16 8192 50" "python3 $M float16 8192 50" \
	> $OUT/time.txt 2>&1
echo "exit $?" >> $OUT/time.txt
{ date -u +%FT%TZ; q; } >> $OUT/time-host.txt 2>&1
$B report /root/timerun/t.h5 > $OUT/time-report.md 2>&1
$B audit /root/timerun/t.h5 > $OUT/time-audit.md 2>&1
head -8 $OUT/time.txt

#!/bin/bash
# tests/gpu/sk-probe.sh: tests/gpu/sk-probe.c (where conv.cu's stream-K launches spend their
# time, block by block) on a lent machine, from the checkout: built there with cc when the host
# has it and the CUDA headers, else the binary built here at .gpu/sk-probe (cc -std=gnu11 -O2
# -I/usr/local/cuda/include tests/gpu/sk-probe.c -L/usr/local/cuda/lib64 -lcudart -lnvrtc -lm);
# the card's state before and after.  Files under $OUT: host.txt, sk-probe.txt, sk-probe.csv
# (every block's stamps).
set -u
cd "$(dirname "$0")/../.."
. "$PWD/tests/gpu/card-state.sh" # q: the card's state
CUDA=${CUDA:-/usr/local/cuda}
P=.gpu/sk-probe
if command -v cc > /dev/null && [ -e $CUDA/include/cuda.h ] &&
	cc -std=gnu11 -O2 -I$CUDA/include tests/gpu/sk-probe.c -L$CUDA/lib64 -lcudart -lnvrtc -lm \
		-o /tmp/sk-probe; then
	P=/tmp/sk-probe
fi
{ date -u +%FT%TZ; q; nproc; echo "probe: $P"; } > $OUT/host.txt 2>&1
LD_LIBRARY_PATH=$CUDA/lib64:${LD_LIBRARY_PATH:-} SK_PROBE_CSV=$OUT/sk-probe.csv \
	$P kernels/cuda/templates > $OUT/sk-probe.txt 2>&1
echo "sk-probe exit $?" >> $OUT/sk-probe.txt
{ date -u +%FT%TZ; q; } >> $OUT/host.txt 2>&1
cat $OUT/host.txt $OUT/sk-probe.txt

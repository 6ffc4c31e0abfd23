#!/bin/bash
# tests/gpu/stream-pin.sh [REPEATS]: does the stream-launched forward's process-to-process
# spread (the report's per-cell floor of the `<w>/e2e` cells, 2.3-3.05% for ResNet-50 fp16 at
# stop 72) come from where the scheduler puts the launching process?  On a lent machine, from
# the checkout with the bundle at .gpu/bundle.txz: experiments/gpu-stream.toml without its
# legacy mode (`default` and its A/A copy only), REPEATS blocks (10), run once an arm in one
# call, in the order ARMS names them ("all 1 2"): "all" on every core the machine gives (the
# harness's default), "1" under `taskset -c 4` (the unit on one core), "2" under `taskset -c
# 4,5`.  A fresh machine's first units may read slow, so run the arms in the other order too
# to tell that from the pinning.  Under $OUT: the card's state (host.txt), each arm's results
# file (pin-<arm>.h5) and report's e2e rows (pin-<arm>.md).  Read the files with h5py for each
# arm's unit medians (docs/benchmarks-archive.md, stop 72).
set -u
cd "$(dirname "$0")/../.."
[ -d bundle ] || tar -xJf .gpu/bundle.txz
B=$PWD/bundle/run.sh
R=/root/gpupin
rm -rf $R && mkdir -p $R
. "$PWD/tests/gpu/card-state.sh" # q: the card's state
{ date -u +%FT%TZ; q; nproc; } > $OUT/host.txt 2>&1
n=$(grep -n '^name = "legacy"' experiments/gpu-stream.toml | cut -d: -f1) # its [[modes]] above
head -n $((n - 2)) experiments/gpu-stream.toml > $R/pin.toml
[ "$(grep -c '^\[\[modes\]\]' $R/pin.toml)" = 2 ] ||
	{ echo "stream-pin.sh: gpu-stream.toml's legacy mode is no longer its last: pin.toml is wrong"; exit 1; }
for arm in ${ARMS:-all 1 2}; do
	case $arm in all) T= ;; 1) T="taskset -c 4" ;; 2) T="taskset -c 4,5" ;; esac
	/usr/bin/time -f "$arm: wall %e s" $T $B run -q --repeats "${1:-10}" -o $R/pin-$arm.h5 \
		$R/pin.toml > $R/run-$arm.txt 2>&1
	echo "$arm exit $?"; tail -1 $R/run-$arm.txt
	$B report $R/pin-$arm.h5 2>&1 | grep -E "^\| [a-z0-9-]+/e2e(-graph)? \| default" > $OUT/pin-$arm.md
	grep -E "default-aa \| [0-9]+ \|" $OUT/pin-$arm.md | cut -c1-200
	cp $R/pin-$arm.h5 $OUT/
done
{ date -u +%FT%TZ; q; } >> $OUT/host.txt 2>&1

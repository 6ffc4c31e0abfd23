#!/bin/bash
# tests/gpu/bundle-tests.sh: the GPU CLI tests cuda-conv.sh and cuda-model.sh (GPU_TESTS: a
# subset) on the unpacked bundle (bundle/run.sh, its kernels), each within TEST_LIMIT seconds
# (300), appending to $OUT/tests.txt; prints each test's exit status and the failed checks.
# The lease scripts' (cluster-run.sh, res-tma-run.sh) common tests step.
set -u
cd "$(dirname "$0")/../.."
for t in ${GPU_TESTS:-cuda-conv cuda-model}; do
	/usr/bin/time -f "$t: wall %e s" env HARNESS=$PWD/bundle/run.sh top_srcdir=$PWD \
		top_builddir=$PWD HARNESS_CUDA_REQUIRED=1 HARNESS_KERNEL_DIR=$PWD/bundle/kernels \
		timeout ${TEST_LIMIT:-300} bash tests/cli/$t.sh >> $OUT/tests.txt 2>&1
	echo "$t exit $?" | tee -a $OUT/tests.txt
done
grep -E "^(not ok|FAIL)" $OUT/tests.txt | head -20

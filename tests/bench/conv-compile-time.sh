#!/bin/bash
# tests/bench/conv-compile-time.sh [TEMPLATE_DIR...]: what a conv.cu wgmma module costs to
# compile, with and without the residual's code (WG_RES, docs/kernels.md): nvcc -cubin for
# sm_90a (no GPU needed), one after another, over six configs (16-bit and TF32, 4 to 12
# warps, the backend's WG_RT_STAGES), printing the seconds and the cubins' bytes for each
# template directory (default kernels/cuda/templates; give a copy of an older tree's to
# compare).  CUDA_HOME (default /usr/local/cuda) names the toolkit.  Exits 77 without nvcc.
set -u
cd "$(dirname "$0")/../.."
NVCC=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
[ -x "$NVCC" ] || { echo "conv-compile-time: no nvcc at $NVCC: not run"; exit 77; }
cfgs=("-DDTYPE_FLOAT16 -DBLOCK_K=64 -DBLOCK_M=64 -DBLOCK_N=128 -DWARPS=4"
	"-DDTYPE_FLOAT16 -DBLOCK_K=64 -DBLOCK_M=128 -DBLOCK_N=128 -DWARPS=8"
	"-DDTYPE_FLOAT16 -DBLOCK_K=64 -DBLOCK_M=192 -DBLOCK_N=128 -DWARPS=12"
	"-DDTYPE_FLOAT16 -DBLOCK_K=64 -DBLOCK_M=128 -DBLOCK_N=256 -DWARPS=8"
	"-DDTYPE_FLOAT32 -DTF32=1 -DBLOCK_K=32 -DBLOCK_M=64 -DBLOCK_N=128 -DWARPS=4"
	"-DDTYPE_FLOAT32 -DTF32=1 -DBLOCK_K=32 -DBLOCK_M=128 -DBLOCK_N=128 -DWARPS=8")
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
rc=0
for dir in "${@:-kernels/cuda/templates}"; do
	for res in "" "-DWG_RES=1"; do
		t0=$(date +%s.%N) bytes=0
		for c in "${cfgs[@]}"; do
			# shellcheck disable=SC2086 # each config is a list of options
			"$NVCC" -std=c++17 -arch=sm_90a -cubin -o "$out/m.cubin" $c -DWGMMA=1 \
				-DWG_RT_STAGES=1 $res "$dir/conv.cu" || { rc=1; continue; }
			bytes=$((bytes + $(stat -c %s "$out/m.cubin")))
		done
		t1=$(date +%s.%N)
		printf '%s %s: %.2f s, cubins %d bytes\n' "$dir" "${res:-(plain)}" \
			"$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$bytes"
	done
done
exit $rc

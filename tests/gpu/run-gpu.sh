#!/bin/sh
# run-gpu.sh: on a GPU host, record the card's state, compile-check every template for sm_80
# and sm_90a, then run kernel-check (correctness + timings). Results go to $OUT (default .).
#
# usage: tests/gpu/run-gpu.sh DIR   where DIR holds kernel-check, nvrtc-compile and templates/
# Finds libcudart/libnvrtc/libcublasLt in the system path or in a PyTorch install's wheels
# (.../site-packages/nvidia/*/lib) and puts them on LD_LIBRARY_PATH. Never changes a setting.
dir=${1:?usage: run-gpu.sh DIR}
out=${OUT:-.}
for d in /opt/torch/.venv/lib/python3.*/site-packages/nvidia/*/lib \
	 /usr/local/lib/python3*/dist-packages/nvidia/*/lib; do
	[ -d "$d" ] && LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$d"
done
export LD_LIBRARY_PATH
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >"$out/env.txt"
ldd "$dir/kernel-check" >>"$out/env.txt" 2>&1
nvidia-smi -q >"$out/smi-before.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,power.limit,clocks_event_reasons.active --format=csv
"$dir/nvrtc-compile" "$dir/templates" sm_80 sm_90a >"$out/nvrtc-compile.txt" 2>&1
echo "nvrtc-compile: exit $?"; tail -3 "$out/nvrtc-compile.txt"
"$dir/kernel-check" "$dir/templates" "$2" >"$out/kernel-check.txt" 2>&1
rc=$?
echo "kernel-check: exit $rc"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,power.limit,clocks_event_reasons.active --format=csv
nvidia-smi -q >"$out/smi-after.txt" 2>&1
grep -E "^(FAIL|BEST|device|versions|correctness|total|compile|time copy)" "$out/kernel-check.txt"
tail -5 "$out/kernel-check.txt"
exit $rc

#!/bin/sh
# tests/gpu/nvrtc-compile.sh: every CUDA template (kernels/cuda/templates) x a spread of configs
# compiles with NVRTC for sm_80 and sm_90a. Needs the CUDA toolkit's NVRTC, no GPU; skips
# (exit 77) without it. The toolkit is $CUDA_HOME, else $CUDA_PATH, else /usr/local/cuda.
set -u
export LC_ALL=C TZ=UTC
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
cuda=${CUDA_HOME:-${CUDA_PATH:-/usr/local/cuda}}
if [ ! -f "$cuda/include/nvrtc.h" ]; then
	echo "SKIP: nvrtc-compile: no nvrtc.h under '$cuda' (set CUDA_HOME)"
	exit 77
fi
libdir=
for d in "$cuda/lib64" "$cuda/lib" "$cuda/targets/x86_64-linux/lib" "$cuda/targets/sbsa-linux/lib"; do
	if [ -e "$d/libnvrtc.so" ]; then
		libdir=$d
		break
	fi
done
if [ -z "$libdir" ]; then
	echo "SKIP: nvrtc-compile: no libnvrtc.so under '$cuda'"
	exit 77
fi
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/nvrtc-compile.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
export HOME="$SCRATCH"
if ! ${CC:-cc} -std=gnu11 -O1 -I"$cuda/include" -o "$SCRATCH/nvrtc-compile" \
	"$srcdir/tests/gpu/nvrtc-compile.c" "$srcdir/tests/gpu/nvrtc-common.c" \
	-L"$libdir" -Wl,-rpath,"$libdir" -lnvrtc -lpthread; then
	echo "FAIL: nvrtc-compile: cannot build the checker against '$cuda'"
	exit 1
fi
"$SCRATCH/nvrtc-compile" "$srcdir/kernels/cuda/templates" sm_80 sm_90a >"$SCRATCH/log" 2>&1
rc=$?
grep -v '^ok ' "$SCRATCH/log"
exit $rc

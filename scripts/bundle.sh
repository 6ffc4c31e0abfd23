#!/bin/sh
# bundle.sh: copy harness, the shared libraries a stock Ubuntu 24.04 GPU host lacks, the kernel
# templates and the shipped experiments into one folder that runs through its run.sh.
#
# Usage: scripts/bundle.sh BINARY DIR        (make bundle runs it on harness/harness)
#
#   DIR/bin/harness          the binary, unchanged
#   DIR/lib/                 the libraries in BUNDLE below, and what they need in turn
#   DIR/kernels/             kernels/*/templates/, kernels/python/
#                            (HARNESS_KERNEL_DIR)
#   DIR/experiments/, DIR/hypotheses/, DIR/plots/ (HARNESS_PLOT_DIR)
#   DIR/run.sh               sets LD_LIBRARY_PATH, HARNESS_KERNEL_DIR and HARNESS_PLOT_DIR,
#                            execs bin/harness; finds the CUDA libraries the binary needs
#                            (never bundled) in the loader's path, $CUDA_HOME, /usr/local/cuda
#                            or a PyTorch install's site-packages/nvidia/*/lib (or only in
#                            $HARNESS_CUDA_LIB_DIRS), else says which version it needs and
#                            which the host has
#   DIR/MANIFEST             each bundled library, where it came from and its package
#
# The dependency graph is walked from the binary's DT_NEEDED entries (readelf), so only
# libraries that are really needed are copied.  A library matching HOST is left to the
# host (glibc, the C++ runtime, CUDA, and libraries every Ubuntu 24.04 install has) and
# its own dependencies are not followed: on the host they come with the host's copy.
# A library in neither list is reported, so a new dependency is classified on purpose.
# DIR is replaced when it holds an earlier bundle; any other non-empty DIR is refused.
set -eu

# Shell patterns on sonames.
BUNDLE="libgsl.so.* libgslcblas.so.* libhdf5*.so.* libsz.so.* libaec.so.* libcsv.so.*
	libtomlplusplus.so.* libjansson.so.* libopenblas*.so.* libgfortran.so.* libquadmath.so.*"
HOST="linux-vdso.so.* ld-linux*.so.* libc.so.* libm.so.* libpthread.so.* libdl.so.* librt.so.*
	libresolv.so.* libutil.so.* libmvec.so.* libstdc++.so.* libgcc_s.so.*
	libcuda.so.* libcudart.so.* libnvrtc*.so.* libcublas*.so.* libcudnn*.so.* libnvidia-*.so.*
	libz.so.* libcrypto.so.* libssl.so.* libcurl.so.*"

me=bundle.sh
die() { echo "$me: $*" >&2; exit 1; }

[ $# -eq 2 ] || { echo "usage: $0 BINARY DIR" >&2; exit 2; }
binary=$1
dir=$2
srcdir=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$binary" ] || [ ! -x "$binary" ]; then
	die "'$binary' is not an executable file"
fi
command -v readelf >/dev/null 2>&1 || die "readelf not found (Debian: apt-get install binutils)"
file_head=$(od -An -c -N4 "$binary" | tr -d ' ')
[ "$file_head" = '177ELF' ] || die "'$binary' is not an ELF binary (a libtool wrapper?)"

if [ -e "$dir" ] && [ ! -f "$dir/MANIFEST" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
	die "'$dir' exists and is not an earlier bundle; refusing to replace it"
fi
rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/lib" "$dir/kernels"

# soname -> path for every library the loader finds for the binary, transitively.
map=$(mktemp "${TMPDIR:-/tmp}/bundle.XXXXXX")
trap 'rm -f "$map"' EXIT
# (A library the host provides may be missing here, CUDA's say: that is checked at the end.)
ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' >"$map"

matches() { # NAME PATTERNS...
	name=$1
	shift
	for p in "$@"; do
		# shellcheck disable=SC2254 # the patterns are meant to glob
		case $name in $p) return 0 ;; esac
	done
	return 1
}

needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

# Walk the graph breadth first from the binary.
todo=$(needed "$binary")
seen=" "
bundled=""
unknown=""
while [ -n "$todo" ]; do
	next=""
	for so in $todo; do
		case $seen in *" $so "*) continue ;; esac
		seen="$seen$so "
		# shellcheck disable=SC2086 # pattern lists
		if matches "$so" $HOST; then
			continue
		fi
		# shellcheck disable=SC2086
		if ! matches "$so" $BUNDLE; then
			unknown="$unknown $so"
			continue
		fi
		path=$(awk -v so="$so" '$1 == so { print $2; exit }' "$map")
		[ -n "$path" ] || die "cannot find '$so' (needed by '$binary')"
		cp -L "$path" "$dir/lib/$so"
		chmod 0644 "$dir/lib/$so"
		bundled="$bundled $so"
		next="$next $(needed "$path")"
	done
	todo=$next
done
if [ -n "$unknown" ]; then
	echo "$me: warning: neither bundled nor known to be on the host:$unknown" >&2
	echo "$me: warning: add them to BUNDLE or HOST in scripts/bundle.sh" >&2
fi

cp "$binary" "$dir/bin/harness"
chmod 0755 "$dir/bin/harness"

# Kernel templates keep their layout under kernels/ (kernels/cpu/templates/...,
# kernels/cuda/templates/*.cu and the headers they include, *.cuh).
# The external units' Python (kernels/python/harness_unit.py, kernels/python/torch_worker.py)
# and the external tuners' (kernels/python/harness_tuner.py) too.
(cd "$srcdir" && find kernels \( -path '*/templates/*' -o -path 'kernels/python/*.py' \
	\) -type f) | while read -r f; do
	mkdir -p "$dir/$(dirname "$f")"
	cp "$srcdir/$f" "$dir/$f"
done
for d in experiments hypotheses plots; do
	if [ -d "$srcdir/$d" ]; then
		cp -R "$srcdir/$d" "$dir/$d"
	fi
done

# The CUDA libraries the binary needs (never bundled: they come from the GPU host).
cuda_needed=""
for so in $(needed "$binary"); do
	case $so in libcudart.so.* | libnvrtc*.so.* | libcublas*.so.* | libcudnn*.so.*)
		cuda_needed="$cuda_needed $so" ;;
	esac
done

{
	echo '#!/bin/sh'
	echo "# run.sh: run the bundled harness with the bundle's libraries, kernel and plot templates."
	echo '# CUDA libraries (never bundled) come from the host: the system library path, the toolkit'
	echo '# in $CUDA_HOME or /usr/local/cuda, or a PyTorch install'"'"'s wheels'
	echo '# (.../site-packages/nvidia/*/lib, nvidia/cu13/lib).  A library the binary needs in a'
	echo '# version the host does not have is an error naming both versions.'
	echo "cuda_needed=\"${cuda_needed# }\""
	cat <<'EOF'
here=$(cd "$(dirname "$0")" && pwd)
# HARNESS_CUDA_LIB_DIRS (colon-separated): search only these folders, not the loader's
# cache nor the default places (for tests, and for hosts with several CUDA installs).
found() { # SONAME: 0 when the loader finds it in the system path or LD_LIBRARY_PATH
	[ -z "${HARNESS_CUDA_LIB_DIRS:-}" ] && ldconfig -p 2>/dev/null | grep -q " $1 " && return 0
	for d in $(echo "${LD_LIBRARY_PATH:-}" | tr ':' ' '); do
		[ -e "$d/$1" ] && return 0
	done
	return 1
}
cuda_dirs=""
if [ -n "${HARNESS_CUDA_LIB_DIRS:-}" ]; then
	search=$(echo "$HARNESS_CUDA_LIB_DIRS" | tr ':' ' ')
else
	search=""
fi
for d in ${search:-${CUDA_HOME:+$CUDA_HOME/lib64} /usr/local/cuda/lib64 \
	/opt/*/.venv/lib/python3*/site-packages/nvidia/*/lib \
	/usr/local/lib/python3*/dist-packages/nvidia/*/lib \
	/usr/lib/python3/dist-packages/nvidia/*/lib \
	"$HOME"/.local/lib/python3*/site-packages/nvidia/*/lib}; do
	[ -d "$d" ] && cuda_dirs="$cuda_dirs $d"
done
for so in $cuda_needed; do
	found "$so" && continue
	hit=""
	for d in $cuda_dirs; do
		if [ -e "$d/$so" ]; then hit=$d; break; fi
	done
	if [ -n "$hit" ]; then
		LD_LIBRARY_PATH="$hit${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		continue
	fi
	base=${so%.so.*}
	other=$(for d in $cuda_dirs ${search:-/usr/lib/x86_64-linux-gnu}; do
		ls "$d/$base.so."* 2>/dev/null; done | head -1)
	if [ -n "$other" ]; then
		echo "run.sh: harness needs $so (the version it was built with); this host has $(basename "$other") ('$other'), which cannot stand in for it" >&2
	else
		echo "run.sh: harness needs $so: not in the system library path, \$CUDA_HOME, /usr/local/cuda or a PyTorch install's nvidia/*/lib" >&2
	fi
	echo "run.sh: install it (or a PyTorch wheel that has it), or use a bundle built --without-cuda" >&2
	exit 127
done
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
HARNESS_KERNEL_DIR="$here/kernels"
HARNESS_PLOT_DIR="$here/plots"
export LD_LIBRARY_PATH HARNESS_KERNEL_DIR HARNESS_PLOT_DIR
exec "$here/bin/harness" "$@"
EOF
} >"$dir/run.sh"
chmod 0755 "$dir/run.sh"

# Provenance of what was copied.
{
	echo "# harness bundle made $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n) from $binary"
	echo "# library source package version"
	for so in $bundled; do
		path=$(awk -v so="$so" '$1 == so { print $2; exit }' "$map")
		real=$(readlink -f "$path")
		pkg=$(dpkg-query -S "$real" 2>/dev/null || dpkg-query -S "${real#/usr}" 2>/dev/null ||
			dpkg-query -S "/usr$real" 2>/dev/null || true)
		pkg=${pkg%%:*}
		ver=
		[ -n "$pkg" ] && ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
		echo "lib/$so $real ${pkg:-unknown} ${ver:-unknown}"
	done
} >"$dir/MANIFEST"

# Everything must resolve with the bundle's lib/ first, but for what the host provides.
missing=$(LD_LIBRARY_PATH="$dir/lib" ldd "$dir/bin/harness" | awk '/not found/ { print $1 }')
for so in $missing; do
	# shellcheck disable=SC2086
	if matches "$so" $HOST; then
		echo "$me: note: '$so' is not found here; the host must provide it" >&2
	else
		die "the bundled binary does not resolve '$so'"
	fi
done
echo "$me: bundled into '$dir':$bundled"

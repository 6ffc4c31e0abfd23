#!/bin/sh
# tests/gpu/sass-compare.sh: compile every config of tests/gpu/nvrtc-common.c's list from two
# template folders with NVRTC and compare the machine code kernel by kernel: the bytes of each
# kernel's .text section in the cubin (its SASS), its instruction count (16 bytes each on
# sm_70 and newer), registers and static shared memory.  For a refactor of the templates that
# must not change the generated code.  Needs the CUDA toolkit's NVRTC, no GPU, and no
# disassembler (the toolkit's cuobjdump and nvdisasm may be absent).
#
# usage: tests/gpu/sass-compare.sh OLD_TEMPLATE_DIR [NEW_TEMPLATE_DIR [ARCH...]]
#   NEW_TEMPLATE_DIR defaults to this tree's kernels/cuda/templates; ARCH to sm_80 sm_90a.
#   $KC_ONLY keeps only the templates whose file name contains it (as nvrtc-compile).
#   Old templates: git archive REV kernels/cuda/templates | tar -x -C DIR
# exit: 0 every kernel's SASS is identical, 1 some differ (each listed), 2 usage or a compile
# failed.
set -u
export LC_ALL=C TZ=UTC
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
cuda=${CUDA_HOME:-${CUDA_PATH:-/usr/local/cuda}}
if [ $# -lt 1 ] || [ "$1" = -h ]; then
	echo "usage: sass-compare.sh OLD_TEMPLATE_DIR [NEW_TEMPLATE_DIR [ARCH...]]"
	[ $# -lt 1 ] && exit 2 || exit 0
fi
old=$1
new=${2:-$srcdir/kernels/cuda/templates}
[ $# -ge 2 ] && shift 2 || shift $#
libdir=
for d in "$cuda/lib64" "$cuda/lib" "$cuda/targets/x86_64-linux/lib"; do
	[ -e "$d/libnvrtc.so" ] && libdir=$d && break
done
[ -n "$libdir" ] || { echo "sass-compare: no libnvrtc.so under '$cuda'" >&2; exit 2; }
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/sass-compare.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
${CC:-cc} -std=gnu11 -O1 -I"$cuda/include" -o "$SCRATCH/nvrtc-compile" \
	"$srcdir/tests/gpu/nvrtc-compile.c" "$srcdir/tests/gpu/nvrtc-common.c" \
	-L"$libdir" -Wl,-rpath,"$libdir" -lnvrtc -lpthread || exit 2
mkdir "$SCRATCH/old" "$SCRATCH/new"
for side in old new; do
	eval "dir=\$$side"
	if ! KC_CUBIN_DIR="$SCRATCH/$side" "$SCRATCH/nvrtc-compile" "$dir" "$@" \
		>"$SCRATCH/$side.log" 2>&1; then
		echo "sass-compare: the $side templates ('$dir') did not all compile:" >&2
		grep -v '^ok ' "$SCRATCH/$side.log" >&2
		exit 2
	fi
done
/usr/bin/python3 - "$SCRATCH/old" "$SCRATCH/new" <<'PYEOF'
import hashlib, os, struct, sys

def kernels(path):
    """{kernel: [sha256 of .text, instructions, registers, static shared bytes]} of a cubin;
    registers from .nv.info's EIATTR_REGCOUNT (attribute 0x2f: symbol index, count)."""
    b = open(path, "rb").read()
    assert b[:4] == b"\x7fELF" and b[4] == 2, path + ": not a 64-bit ELF"
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3a)
    secs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
    def cstr(off):
        return b[off:b.index(b"\0", off)].decode()
    names = [cstr(secs[shstrndx][4] + s[0]) for s in secs]
    syms = []
    for n, s in zip(names, secs):
        if n == ".symtab":
            stroff = secs[s[6]][4]
            syms = [cstr(stroff + struct.unpack_from("<I", b, s[4] + i)[0])
                    for i in range(0, s[5], 24)]
    out = {}
    for n, s in zip(names, secs):
        off, size = s[4], s[5]
        if n.startswith(".text."):
            out[n[6:]] = [hashlib.sha256(b[off:off + size]).hexdigest(), size // 16, 0, 0]
    for n, s in zip(names, secs):
        off, size = s[4], s[5]
        if n.startswith(".nv.shared.") and n[11:] in out:
            out[n[11:]][3] = size
        if n != ".nv.info":
            continue
        i = off
        while i < off + size:
            fmt, attr = b[i], b[i + 1]
            if fmt == 4:
                ln, = struct.unpack_from("<H", b, i + 2)
                if attr == 0x2f:
                    sym, cnt = struct.unpack_from("<II", b, i + 4)
                    if syms[sym] in out:
                        out[syms[sym]][2] = cnt
                i += 4 + ln
            else:
                i += 4
    return out

old_dir, new_dir = sys.argv[1:3]
same = differ = 0
rows = []
for fn in sorted(f for f in os.listdir(new_dir) if f.endswith(".cubin")):
    tmpl, idx, arch = fn[:-len(".cubin")].rsplit("-", 2)
    d = open(os.path.join(new_dir, fn[:-len("cubin")] + "defines")).read().split()
    d = " ".join(x.replace("-DDTYPE_", "").replace("-D", "") for x in d)
    op = os.path.join(old_dir, fn)
    if not os.path.exists(op):
        print("%s: no cubin from the old templates" % fn)
        differ += 1
        continue
    ko, kn = kernels(op), kernels(os.path.join(new_dir, fn))
    for k in sorted(set(ko) | set(kn)):
        o, n = ko.get(k), kn.get(k)
        ident = o is not None and n is not None and o[0] == n[0] and o[2:] == n[2:]
        same += ident
        differ += not ident
        rows.append((tmpl, arch, k, d, o, n, ident, idx))
print("%-7s %-8s %-19s %7s %7s %5s %5s  %s" % ("arch", "template", "kernel", "instr", "instr'",
                                                "regs", "regs'", "SASS"))
for tmpl, arch, k, d, o, n, ident, idx in rows:
    print("%-7s %-8s %-19s %7s %7s %5s %5s  %s  [%s] %s" % (
        arch, tmpl, k, o[1] if o else "-", n[1] if n else "-", o[2] if o else "-",
        n[2] if n else "-", "identical" if ident else "DIFFERS", idx, d))
print("%d kernels: %d with identical SASS, %d differ" % (same + differ, same, differ))
sys.exit(1 if differ else 0)
PYEOF

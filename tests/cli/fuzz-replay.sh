# tests/cli/fuzz-replay.sh: every fuzz target (tests/fuzz/) over its seed corpus and every
# input that once crashed it (tests/fuzz/crashes/<target>/), under the ordinary build and its
# sanitizers: a parser or reader that crashes, leaks or trips UBSan on any of them fails.
. "$top_srcdir/tests/setup"
F="$top_builddir/tests/fuzz"
C="$top_srcdir/tests/fuzz/crashes"
replay() { # replay TARGET PATH...
	local t=$1; shift
	if "$F/fuzz-$t" "$@" >"$SCRATCH/replay.out" 2>"$SCRATCH/replay.err"; then
		pass "fuzz-$t: $(cat "$SCRATCH/replay.out")"
	else
		fail "fuzz-$t crashed or failed on its corpus"; tail -20 "$SCRATCH/replay.err" >&2
	fi
}
replay experiment "$top_srcdir/tests/data/experiments" "$top_srcdir/experiments" "$C/experiment"
replay hypothesis "$top_srcdir/hypotheses" "$top_srcdir/tests/data/hypotheses" "$C/hypothesis"
replay csv "$top_srcdir/tests/data/import" "$C/csv"
replay proto "$top_srcdir/tests/fuzz/seeds/proto" "$C/proto"
replay cache "$top_srcdir/tests/fuzz/seeds/cache" "$top_srcdir/tests/data/caches" "$C/cache"

# Results files: a real one (imported), and damaged copies of it: truncated at several
# points and with bytes overwritten across the file.  Reading must never crash.
mkdir -p "$SCRATCH/h5"
h import --csv "$top_srcdir/tests/data/report/synthetic.csv" -o "$SCRATCH/h5/good.h5" >/dev/null 2>&1 ||
	fail "import of the synthetic CSV failed"
# Byte-flipped copies: layout 2 holds no variable-length data (libhdf5 1.10's global-heap
# reader crashed on those), its metadata is checksummed and its tables Fletcher32'd.
# The same for tests/data/v2/long.h5, whose long info lies in /long_strings and /long_bytes.
flips=12
cp "$top_srcdir/tests/data/v2/long.h5" "$SCRATCH/h5/long.h5"
/usr/bin/python3 - "$SCRATCH/h5" "$flips" <<'PYEOF'
import os, random, sys
d = sys.argv[1]
rng = random.Random(20261123)
for name in ("good", "long"):
    data = open(os.path.join(d, name + ".h5"), "rb").read()
    for i, frac in enumerate([0.1, 0.5, 0.9, 0.99]):
        open(os.path.join(d, "%s-trunc%d.h5" % (name, i)), "wb").write(data[: int(len(data) * frac)])
    for i in range(int(sys.argv[2])):
        b = bytearray(data)
        for _ in range(8):
            p = rng.randrange(len(b))
            b[p] = rng.randrange(256)
        open(os.path.join(d, "%s-flip%02d.h5" % (name, i)), "wb").write(bytes(b))
PYEOF
replay results "$SCRATCH/h5" "$C/results"
finish

# tests/cli/formats.sh: a results file of layout version 1 (tests/data/v1, written by the
# harness before layout 2) still shows and reports exactly as the expected files say (they
# change only with a deliberate change of the report: 2026-11-26 added "Choices that differ
# between units", whose rows this file's exhaustive units give, and then its column of the
# kernels unlike the fastest, "-" here; 2026-11-28 the (trimmed) t test, the per-cell noise
# floors and families, and the audit's findings among the warnings; 2026-11-30 the audit's
# record check: a file from before the digests WARNs), is refused for appending,
# and a new run writes layout 2: config spaces, trial samples and the optional sample columns.
. "$top_srcdir/tests/setup"
cp "$DATA/v1/v1.h5" "$DATA/v1/v1.toml" .
chmod u+w v1.h5
expect_status 0 h show v1.h5 && diff -u "$DATA/v1/show.expected" "$SCRATCH/out" >&2 &&
	pass "show of a version 1 file is unchanged" || fail "show of a version 1 file changed"
expect_status 0 h report v1.h5 && diff -u "$DATA/v1/report.expected" "$SCRATCH/out" >&2 &&
	pass "report of a version 1 file is unchanged" || fail "report of a version 1 file changed"
expect_status 0 h report --format json v1.h5 &&
	diff -u "$DATA/v1/report-json.expected" "$SCRATCH/out" >&2 &&
	pass "json report of a version 1 file is unchanged" || fail "json report changed"
expect_status 0 h export --csv csv v1.h5 && pass "export reads a version 1 file"
expect_status 2 h run --resume v1.h5 &&
	expect_grep "results format version 1 is read-only for this harness" "$SCRATCH/err"

# layout 2
h run -q -o v2.h5 v1.toml >/dev/null 2>&1 || fail "the run of v1.toml failed"
expect_status 0 h show v2.h5 && expect_grep '^format_version: 2$' "$SCRATCH/out"
/usr/bin/python3 - v2.h5 <<'PYEOF' && pass "layout 2 tables" || fail "layout 2 tables"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], 'r')
assert f.attrs['format_version'] == 2
units = f['units'][:]
mode = np.char.decode(units['mode'].astype('S'), 'utf-8')
s = f['samples'][:]
assert np.all(np.isnan(s['clock_mhz'])) and np.all(s['throttle'] == -1) and np.all(s['launches'] == 1)
sp = f['spaces'][:]
assert len(sp) == len(units)                       # one op cell per unit
assert np.all(sp['grid'] == 36), sp
vals = f['space_values'][:]
names = [n.decode() for n in vals['name'][vals['unit'] == 0]]
assert names == ['BM', 'BM', 'BN', 'BN', 'BN', 'BK', 'BK', 'UNROLL', 'UNROLL', 'UNROLL'], names
ven = f['space_vendors'][:]
assert [c.decode() for c in ven['config']] == ['vendor'] * len(units)
inv = f['space_invalid'][:]
for u in range(len(units)):                        # valid + invalid = the grid
    assert sp['nvalid'][u] + np.sum(inv['count'][inv['unit'] == u]) == 36   # (runs of points)
trials = f['trials'][:]
ts = f['trial_samples'][:]
for t in range(len(trials)):                       # every sample of every trial, medians agree
    mine = ts['ns'][ts['trial'] == t]
    assert len(mine) == trials['nsamples'][t]
    if len(mine):
        assert abs(np.median(mine) - trials['median_ns'][t]) < 1e-6
        assert mine.min() == trials['min_ns'][t] and mine.max() == trials['max_ns'][t]
assert np.sum(mode == 'exhaustive') * 3 * 3 == len(ts)
PYEOF
finish

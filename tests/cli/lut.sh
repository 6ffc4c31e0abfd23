# tests/cli/lut.sh: the "lut" tuner on a real CPU run: the table's exact entry chosen, the
# nearest entry with match = "nearest" and the heuristic with match = "exact", a stale entry
# falling back to the heuristic, each with its reason in the unit's info; the run folder's
# copy of the table and its SHA-256; every error in a table at `harness check` naming
# file:line:col, and a missing table.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is needed"

cp "$DATA/lut/lut.toml" "$DATA/lut/lut.exp.toml" .
expect_status 0 h check lut.exp.toml && pass "check with a table"
# 'lut-exact' falls back to the heuristic in most cells (no exact entry): the run records
# every unit ok and exits 4, naming the audit's tuner-fallback FAIL
expect_status 4 h run lut.exp.toml -o r.h5 && pass "a live run of the lut tuner" &&
	expect_grep '^  FAIL tuner-fallback \(a mode did not measure what it names' "$SCRATCH/out"
[ -f r/tables/lut.toml ] && cmp -s r/tables/lut.toml lut.toml && \
	pass "the run folder holds the table" || fail "no copy of the table in the run folder"
$PY - r.h5 "$(sha256sum lut.toml | cut -d' ' -f1)" <<'PYEOF' || fail "lut choices and notes"
import h5py, sys
f = h5py.File(sys.argv[1])
units = f["units"]
cells = [c.decode() for c in f["cells"]["name"]]
def unit(mode):
    return [i for i, u in enumerate(units) if u["mode"].decode() == mode][0]
def choices(row):
    return {cells[r["cell"]]: r["config"].decode() for r in f["choices"] if r["unit"] == row}
def notes(row):
    info = units["info"][row].decode()
    return {l.split("=", 1)[1].split(": ", 1)[0]: l.split(": ", 1)[1]
            for l in info.splitlines() if l.startswith("tuner_note=")}, info
heur = choices(unit("heuristic"))
for mode in ("lut", "lut-exact"):
    row = unit(mode)
    ch = choices(row)
    nt, info = notes(row)
    assert "lut_sha256=" + sys.argv[2] in info, info
    g, g2, br = "g/sgemm:m=64,n=48,k=72", "g2/sgemm:m=64,n=48,k=96", "br/bias_relu:c=8,hw=256"
    assert ch[g] == "BM=16,BN=32,BK=32,UNROLL=2", ch
    assert nt[g].startswith("lut: exact entry"), nt
    assert ":9:10" in nt[g], nt
    if mode == "lut":
        assert ch[g2] == "BM=16,BN=32,BK=32,UNROLL=2", ch
        assert "nearest entry" in nt[g2] and "(distance 0.415)" in nt[g2], nt
    else:
        assert ch[g2] == heur[g2], (ch, heur)
        assert "fell back to the heuristic" in nt[g2] and "no exact entry" in nt[g2], nt
    assert ch[br] == heur[br], (ch, heur)
    assert "fell back to the heuristic: stale entry" in nt[br], nt
    assert ":19:10: unknown field 'BLOCK'" in nt[br], nt
    print("ok:", mode, nt)
PYEOF

# the audit's tuner-fallback check: cells that fell back from the table WARN, with counts per
# mode; a mode that fell back in most of its cells FAILs (it ran the heuristic)
tf='^\| tuners used what they were given \(tables, models\) \|'
sed 's/table = "lut.toml", match = "exact"/table = "lut.toml"/' lut.exp.toml >near.exp.toml
# both modes now choose the same configs everywhere (identity FAIL, in the closing lines):
# two tuners that agree, which leaves the exit status alone
expect_status 0 h run near.exp.toml -o n.h5 && expect_grep '^  FAIL identity: ' "$SCRATCH/out"
h audit n.h5 >audit.md
expect_grep "$tf \*\*WARN\*\* \| 2 of 6 op-cell notes fell back \(in 2 modes\)" audit.md && \
	expect_grep "^- 'lut': 1 of 3 op-cell notes over 1 unit fell back; the first \(unit [0-9]+\): br/bias_relu:c=8,hw=256: lut: fell back to the heuristic: stale entry" audit.md && \
	expect_grep "^- 'lut-exact': 1 of 3 op-cell notes over 1 unit fell back; the first" audit.md && \
	pass "audit: cells that fell back from the table WARN"
h audit r.h5 >audit-r.md
expect_grep "$tf \*\*FAIL\*\* \| 1 mode fell back in most of its op cells" audit-r.md && \
	expect_grep "^- 'lut-exact': 2 of 3 op-cell notes over 1 unit fell back \(most cells" audit-r.md && \
	pass "audit: a mode that fell back in most cells FAILs"
sed -n '/^\[\[entries\]\]/,$p' lut.toml | sed -n '/op = "bias_relu"/,$p' | \
	sed '1i [[entries]]' >stale.toml
sed 's/table = "lut.toml", match = "exact"/table = "stale.toml", match = "exact"/' lut.exp.toml \
	>stale.exp.toml
expect_status 4 h run stale.exp.toml -o s.h5 && h audit s.h5 >audit-s.md
expect_grep "$tf \*\*FAIL\*\* \| 1 mode fell back in most of its op cells: .*; 4 of 6 notes in all" audit-s.md && \
	expect_grep "^- 'lut-exact': 3 of 3 op-cell notes over 1 unit fell back \(most cells" audit-s.md && \
	pass "audit: a mode that fell back everywhere FAILs"

# errors in a table at check: file:line:col
bad() { # NAME TABLE-TEXT WANT-REGEX
	printf '%s\n' "$2" > "bad-$1.toml"
	sed "s/lut.toml/bad-$1.toml/" lut.exp.toml > "exp-$1.toml"
	expect_status 2 h check "exp-$1.toml" && expect_grep "$3" "$SCRATCH/err" && \
		pass "a table with $1"
}
bad syntax '[[entries]
op = "sgemm"' "'bad-syntax.toml':1:"
bad unknown-key '[[entries]]
op = "sgemm"
shape = { m = 1, n = 1, k = 1 }
config = "BM=16"
colour = 3' "'bad-unknown-key.toml':5:1: unknown key 'colour' in \\[\\[entries\\]\\].*mode 'lut', 'table' at 'exp-unknown-key.toml':42:13\\)"
bad op '[[entries]]
op = "sgem"
shape = { m = 1, n = 1, k = 1 }
config = "BM=16"' "'bad-op.toml':2:6: unknown op 'sgem' \\(did you mean 'sgemm'\\?\\)"
bad shape-key '[[entries]]
op = "sgemm"
shape = { m = 1, n = 1 }
config = "BM=16"' "'bad-shape-key.toml':1:1: the shape of a 'sgemm' entry needs 'k'"
bad value-kind '[[entries]]
op = "sgemm"
shape = { m = 1, n = 1, k = 1 }
config = { BM = "16" }' "'bad-value-kind.toml':4:17: 'BM' must be an integer, not a string"
bad duplicate '[[entries]]
op = "sgemm"
shape = { m = 1, n = 1, k = 1 }
config = "BM=16"
[[entries]]
op = "sgemm"
shape = { k = 1, n = 1, m = 1 }
config = "BM=64"' "'bad-duplicate.toml':5:1: a second entry for op 'sgemm' and this shape"
bad no-entries 'schema = 1' "'bad-no-entries.toml':1:1: missing required key 'entries'"
bad schema 'schema = 2
[[entries]]' "'bad-schema.toml':1:10: unsupported schema 2"
sed 's/lut.toml/nosuch.toml/' lut.exp.toml > exp-missing.toml
expect_status 2 h check exp-missing.toml && expect_grep "cannot read the lookup table" \
	"$SCRATCH/err" && pass "a missing table"
sed 's/options = { table = "lut.toml" }/options = { match = "exact" }/' lut.exp.toml > exp-none.toml
expect_status 2 h check exp-none.toml && \
	expect_grep "exp-none.toml':39:1: mode 'lut': tuner 'lut' needs options.table" \
	"$SCRATCH/err" && pass "no table option"
sed 's/match = "exact"/match = "closest"/' lut.exp.toml > exp-match.toml
expect_status 2 h check exp-match.toml && \
	expect_grep "exp-match.toml':47:33: 'match' must be one of \"exact\", \"nearest\"" \
	"$SCRATCH/err" && pass "a bad match option"
finish

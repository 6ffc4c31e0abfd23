# tests/cli/tamper.sh: a results file you can vouch for after the run (issue 51, findings 1
# and 7).  A run's file carries digests (docs/results-format.md, "Digests") that h5py
# recomputes alike (tests/cli/h5seal.py); one mode's samples halved through h5py (HDF5's
# checksums recomputed) make verify refuse a verdict (exit 2, naming unit, mode and cell)
# and the audit FAIL, with its journal beside it or without; a forger who rewrites the
# digests too passes the file alone but not its journal, nor `verify --anchor` against the
# commit `run --commit-digest` made, nor `--digest` with the noted value.  A hypothesis
# file replaced with its SHA-256, blob ids and digests recomputed and git_commit pointed at
# a backdated commit on no branch is not PRE-REGISTERED.  A FIFO at the recorded
# hypothesis path, at journal/digests, or given as a results file or input to any command
# that reads one, is an error, never a hang.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"
command -v git >/dev/null 2>&1 || skip "git is needed"
command -v timeout >/dev/null 2>&1 || skip "timeout (coreutils) is needed"
export PYTHONPATH="$top_srcdir/tests/cli"
export GIT_CONFIG_NOSYSTEM=1

mkdir repo && (cd repo && git init -q . && git config user.name test && git config user.email test@example.com) || fail "git init"
sed 's/^unit_timeout = 120$/unit_timeout = 120\nhypotheses = ["h.toml"]/' "$DATA/run/tiny.toml" > repo/exp.toml
cat > repo/h.toml <<'TOML'
# decided by counts alone: every run corroborates it, whatever the timings
schema = 1
[[hypotheses]]
id = "measured"
claim = "exhaustive was compared with the baseline on every cell"
primary = true
mode = "exhaustive"
criteria = [ { id = "paired", statistic = "n", op = ">=", value = 1 },
             { id = "unpaired", statistic = "n", op = "<", value = 1 } ]
corroborate = "paired"
falsify = "unpaired"
TOML
(cd repo && git add exp.toml h.toml && git commit -q -m "experiment") || fail "git commit"

# ---- the run, its digests and its anchor ------------------------------------------------
expect_status 0 h run -q --commit-digest -o run.h5 repo/exp.toml || fail "the run"
DIGEST=$(sed -n 's/^record digest: sha256:\([0-9a-f]\{64\}\)  run.h5$/\1/p' "$SCRATCH/out")
check "run --commit-digest prints the record digest" '[ ${#DIGEST} -eq 64 ]'
check "and commits it on the branch" \
	'[ "$(git -C repo log -1 --format=%s)" = "harness record sha256:$DIGEST" ] && [ -z "$(git -C repo status --porcelain)" ]'
$PY - run.h5 "$DIGEST" <<'PYEOF' && pass "h5py recomputes every digest the harness wrote" || fail "the digests' definition"
import sys, h5py, h5seal
f = h5py.File(sys.argv[1], "r")
p = h5seal.parts(f)
stored = {(int(r["unit"]), int(r["cell"])): r["sha256"].decode() for r in f["digests"][:]}
assert p == stored, (len(p), len(stored))
assert h5seal.record(f, p) == f.attrs["record_sha256"].decode() == sys.argv[2]
assert any(c == -1 for _, c in p) and any(c >= 0 for _, c in p)
PYEOF
expect_status 0 h verify --anchor repo --digest "sha256:$DIGEST" run.h5 &&
	expect_grep "^Record digest sha256:$DIGEST: anchored in 'repo' by commit [0-9a-f]{12} " "$SCRATCH/out" &&
	expect_grep '^\| measured \| yes \| PRE-REGISTERED \| \*\*CORROBORATED\*\*' "$SCRATCH/out" &&
	pass "verify: the untouched file, anchored: PRE-REGISTERED, CORROBORATED"
expect_status 0 h audit -f json run.h5 &&
	$PY -c 'import json,sys; (k,) = [c for c in json.load(open(sys.argv[1]))["checks"] if c["id"] == "record"]; assert k["status"] == "PASS", k' "$SCRATCH/out" &&
	pass "audit: the record check PASSes on the untouched file"

# ---- finding 1: one mode's samples halved through h5py ----------------------------------
halve() {
	$PY - "$1" <<'PYEOF'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r+")
u, s = f["units"][:], f["samples"][:]
m = np.isin(s["unit"], np.where(u["mode"] == b"exhaustive")[0])
s["ns"][m] //= 2
f["samples"][...] = s
f.close()
PYEOF
}
cp run.h5 halved.h5 && halve halved.h5 || fail "halve the samples"
expect_status 2 h verify halved.h5 &&
	expect_grep "^harness: 'halved.h5': altered after it was written: [0-9]+ of [0-9]+ parts of its record differ from the digests it carries \(modes 'exhaustive'\); the first: unit [0-9]+ \(mode 'exhaustive', block [0-9]+(, warm)?\), cell '[a-z]+/[a-z_]+:[^']*': its rows differ" "$SCRATCH/err" &&
	check "no verdict is printed" '! grep -q CORROBORATED "$SCRATCH/out"'
expect_status 1 h audit -f json halved.h5 &&
	$PY - "$SCRATCH/out" <<'PYEOF' && pass "audit: the record check FAILs, naming the mode" || fail "audit of the halved file"
import json, sys
d = json.load(open(sys.argv[1]))
(k,) = [c for c in d["checks"] if c["id"] == "record"]
assert k["status"] == "FAIL" and k["summary"].startswith("ALTERED:"), k
assert k["modes"] == ["exhaustive"], k
assert any("differs from its journal" in e for e in k["evidence"]), k["evidence"]
PYEOF
expect_status 2 h verify --record halved.h5 && expect_grep '^- differs: unit [0-9]+ \(mode .exhaustive.' "$SCRATCH/out" &&
	pass "verify --record lists the parts that differ"
# away from its run folder (no journal at hand): the digests alone still tell
mkdir away && cp halved.h5 away/ || fail "copy"
expect_status 2 h verify away/halved.h5 && expect_grep "altered after it was written" "$SCRATCH/err" &&
	pass "verify: the halved file away from its journal is refused too"

# ---- a forger who rewrites the digests as well ------------------------------------------
cp halved.h5 forged.h5 && $PY -c 'import sys,h5py,h5seal; f = h5py.File(sys.argv[1], "r+"); h5seal.forge(f); f.close()' forged.h5 || fail "forge"
mkdir away2 && cp forged.h5 away2/ || fail "copy"
expect_status 0 h verify away2/forged.h5 && pass "limit: digests rewritten, no journal, no anchor: the file alone cannot tell (documented)"
expect_status 2 h verify forged.h5 && expect_grep "units differ from the journal they were recorded in" "$SCRATCH/err" &&
	pass "the forged file beside its journal: refused"
expect_status 2 h verify --anchor repo away2/forged.h5 &&
	expect_grep "its record digest sha256:[0-9a-f]{64} is in no commit of 'repo' on a branch or tag" "$SCRATCH/err" &&
	pass "verify --anchor: the forged file's digest was never committed: refused"
expect_status 2 h verify --digest "$DIGEST" away2/forged.h5 && expect_grep "not the one given" "$SCRATCH/err" &&
	pass "verify --digest: the noted digest is not the forged file's"

# ---- finding 1: a hypothesis replaced, its commit on no branch, backdated -----------------
# the registered hypothesis with its claim rewritten
sed 's/^claim = .*/claim = "exhaustive was compared with the baseline on every cell, as predicted long ago"/' \
	repo/h.toml > evil.toml
# a commit holding evil.toml at h.toml, on no branch, its committer date a year back
BLOB=$(git -C repo hash-object -w "$SCRATCH/evil.toml")
TREE=$(printf '100644 blob %s\th.toml\n' "$BLOB" | git -C repo mktree)
EVIL=$(GIT_COMMITTER_DATE=2025-01-02T03:04:05Z GIT_AUTHOR_DATE=2025-01-02T03:04:05Z git -C repo commit-tree "$TREE" -m "hypotheses")
check "a dangling commit made" '[ ${#EVIL} -eq 40 ] && [ -z "$(git -C repo branch --contains "$EVIL")" ]'
cp run.h5 evil.h5
$PY - evil.h5 evil.toml "$BLOB" "$EVIL" <<'PYEOF' || fail "replace the hypothesis"
import sys, hashlib, h5py, numpy as np, h5seal
f = h5py.File(sys.argv[1], "r+")
text = open(sys.argv[2], "rb").read()
files = f["run/files"]
(name,) = [n for n in files if files[n].attrs["role"] == b"hypothesis"]
attrs = dict(files[name].attrs)
del files[name]
d = files.create_dataset(name, data=np.bytes_(text))
for k in ("role", "path", "sha256"):
    d.attrs.create(k, np.bytes_(hashlib.sha256(text).hexdigest() if k == "sha256" else attrs[k]))
run = f["run"].attrs
for k in ("hypothesis_0_git_blob", "hypothesis_0_git_head_blob"):
    run.modify(k, np.bytes_(sys.argv[3]))
run.modify("hypothesis_0_git_commit", np.bytes_(sys.argv[4]))
h5seal.forge(f)
f.close()
PYEOF
# the forger edits the working copy too (the file on disk is compared with the recorded bytes)
cp repo/h.toml h.toml.kept && cp evil.toml repo/h.toml || fail "edit the working copy"
expect_status 0 h verify evil.h5 &&
	expect_grep "^\| repo/h.toml \| UNCOMMITTED \| [0-9a-f]{12} \| commit ${EVIL:0:12} holds the recorded bytes, but no branch or tag of its repository contains it" "$SCRATCH/out" &&
	expect_grep '^\| measured \| yes \| UNCOMMITTED \| \*\*CORROBORATED\*\* \(exploratory\)' "$SCRATCH/out" &&
	pass "a backdated commit on no branch: not PRE-REGISTERED"
expect_status 2 h verify --anchor repo evil.h5 && pass "and the anchor refuses the forged record"
cp h.toml.kept repo/h.toml || fail "restore the working copy"

# ---- finding 7: FIFOs where files are read ------------------------------------------------
mv repo/h.toml h.toml.kept && mkfifo repo/h.toml || fail "mkfifo"
timeout 20 "$HARNESS" verify run.h5 >out 2>err
got=$?
check "verify with a FIFO at the hypothesis path: exit 2, no hang (exit $got)" '[ $got -eq 2 ]' &&
	expect_grep "/repo/h.toml' is not a regular file \(a FIFO\)" err
timeout 20 "$HARNESS" audit run.h5 >out 2>err
got=$?
check "audit with a FIFO at the hypothesis path: ends, says why (exit $got)" '[ $got -ne 124 ] && [ $got -ne 137 ]' &&
	expect_grep "/repo/h.toml' is not a regular file \(a FIFO\)" err
rm repo/h.toml && mv h.toml.kept repo/h.toml || fail "restore"
mv run/journal/digests digests.kept && mkfifo run/journal/digests || fail "mkfifo digests"
timeout 20 "$HARNESS" verify run.h5 >out 2>err
got=$?
check "verify with a FIFO at journal/digests: exit 2, no hang (exit $got)" '[ $got -eq 2 ]' &&
	expect_grep "journal/digests' is not a regular file \(a FIFO\)" err
rm run/journal/digests && mv digests.kept run/journal/digests || fail "restore digests"
timeout 20 "$HARNESS" verify run.h5 >/dev/null 2>&1
check "restored: verify exits 0 again" '[ $? -eq 0 ]'
# every command that reads a results file or an input, given a FIFO: exit 2 at once, said
mkfifo fifo.h5 fifo.csv fifo.json || fail "mkfifo"
for c in "verify fifo.h5" "audit fifo.h5" "report fifo.h5" "show fifo.h5" "plot fifo.h5" \
	"compare fifo.h5 run.h5" "replay --tuners random --budget 5 fifo.h5" \
	"export --csv ex fifo.h5" "import --csv fifo.csv -o i.h5" "verify --hypotheses fifo.csv run.h5" \
	"import --kernel-tuner fifo.json -o i.h5" "import --t4 fifo.json -o i.h5"; do
	# shellcheck disable=SC2086
	timeout 20 "$HARNESS" $c >out 2>err
	got=$?
	check "'$c': exit 2, at once (exit $got)" '[ $got -eq 2 ]' &&
		expect_grep "'fifo\.(h5|csv|json)'(:)? (is )?not a regular file \(a FIFO\)" err
	check "'$c': one message" '[ "$(wc -l < err)" -eq 1 ]'
done

finish

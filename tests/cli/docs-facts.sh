# tests/cli/docs-facts.sh: facts the documentation states that the code decides, read back
# from the code (issue 46, item 6): the [measure] and [limits] defaults of
# docs/experiment-format.md against `harness check --settings`; README's Quickstart (two
# commands, the second the one .ci/run runs); README's word that results/ is ignored by git;
# docs/BENCHMARKS.md's targets table, whose every row names a command or script that exists;
# the layout tables of README.md and harness/README.md; the variables a unit inherits; every
# time estimate in README.md and experiments/ a measurement with its source (issue 48, item 6).
. "$top_srcdir/tests/setup"

cat >min.toml <<'EOF2'
schema = 1
name = "min"
[[workloads]]
op = "sgemm"
shape = { m = 8, n = 8, k = 8 }
[[modes]]
name = "v"
tuner = "vendor"
EOF2
expect_status 0 h check --settings min.toml || finish
cp "$SCRATCH/out" settings.txt
check "the [measure] and [limits] defaults in docs/experiment-format.md are the code's" \
	/usr/bin/python3 - "$top_srcdir/docs/experiment-format.md" settings.txt <<'PYEOF'
import re, sys
doc = open(sys.argv[1]).read()
got = {}
for line in open(sys.argv[2]):
    m = re.match(r"\s+(mode '\w+', \[measure\]|limits): (.*)", line)
    if m:
        for kv in m.group(2).split(", "):
            k, v = kv.split(" = ")
            got[k] = v
def table(heading):
    part = doc.split("## `[%s]`" % heading, 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| \w+ \| ([^|]*) \|", part, re.M)
    if not rows:
        sys.exit("no table under [%s]" % heading)
    return rows
bad = []
for key, default in table("measure") + table("limits"):
    d = default.strip().strip("`").split(" ")[0].replace(",", "")
    v = got.get(key)
    same = v == d if d in ("true", "false") else v is not None and float(v) == float(d)
    if not same:
        bad.append("%s: docs say %s, the code %s" % (key, d, v))
    else:
        print("ok: %s = %s" % (key, v))
if bad or len(got) < 12:
    sys.exit("\n".join(bad) or "too few settings: %s" % got)
PYEOF

# README's Quickstart: exactly two commands; the second (the whole test suite) is .ci/run's
check "README's Quickstart holds two commands; .ci/run runs the second" \
	/usr/bin/python3 - "$top_srcdir/README.md" "$top_srcdir/.ci/run" <<'PYEOF'
import re, sys
readme, ci = open(sys.argv[1]).read(), open(sys.argv[2]).read()
block = readme.split("## Quickstart", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
cmds = [l for l in block.splitlines() if l.strip()]
assert len(cmds) == 2, cmds
assert "harness run experiments/resnet.toml" in cmds[0], cmds[0]
assert cmds[1].replace("./configure", "./configure --enable-werror") in ci, (cmds[1], ci)
PYEOF

# README: `results/` is where runs go, ignored by git (only its README is tracked)
if git -C "$top_srcdir" rev-parse --git-dir >/dev/null 2>&1; then
	grep -q '^| `results/` | where runs are written (ignored by git) |' "$top_srcdir/README.md" ||
		fail "README no longer says results/ is ignored by git (update this test with it)"
	tracked=$(git -C "$top_srcdir" ls-files results | tr '\n' ' ')
	check "results/ holds no tracked run data (git tracks: $tracked)" '[ "$tracked" = "results/README.md " ]'
else
	pass "not a git checkout: the results/ claim is checked in one"
fi

# docs/BENCHMARKS.md: one table of targets; each row's reproduce cell names files that exist
check "every row of docs/BENCHMARKS.md's targets table names a command or script that exists" \
	/usr/bin/python3 - "$top_srcdir" <<'PYEOF'
import os, re, sys
top = sys.argv[1]
text = open(os.path.join(top, "docs/BENCHMARKS.md")).read()
head = "| what | target | latest value | date | machine | commit | reproduce |"
assert head in text, "no targets table (its header: %s)" % head
rows = [l for l in text.split(head, 1)[1].splitlines()[1:] if not l.startswith("|---")]
rows = rows[:next((i for i, l in enumerate(rows) if not l.startswith("|")), len(rows))]
assert len(rows) >= 8, "only %d rows" % len(rows)
bad = []
for r in rows:
    cells = [c.strip() for c in r.strip("|").split("|")]
    assert len(cells) == 7, r
    paths = re.findall(r"`([^`]+)`", cells[6])
    files = [w for p in paths for w in p.split() if re.match(r"^(scripts|tests|experiments|hypotheses|docs|kernels|\.ci)/", w)]
    if not files:
        bad.append("%s: no committed command or script named" % cells[0])
    for f in files:
        f = f.rstrip(".,;:)")
        if not os.path.exists(os.path.join(top, f)):
            bad.append("%s: %s does not exist" % (cells[0], f))
    if not re.match(r"20\d\d-\d\d-\d\d", cells[3]):
        bad.append("%s: no date" % cells[0])
print("%d rows" % len(rows))
# README's time for the main job on 2 cores is row 1's latest value, to the minute
readme = open(os.path.join(top, "README.md")).read()
said = int(re.search(r"job \(about (\d+) minutes on a 2-core machine", readme).group(1))
m = re.search(r"(\d+):(\d\d)", [r for r in rows if r.startswith("| 1. ")][0].split("|")[3])
latest = int(m.group(1)) + int(m.group(2)) / 60
if abs(said - latest) > 1:
    bad.append("README says about %d minutes for the main job; row 1 says %.1f" % (said, latest))
if bad:
    sys.exit("\n".join(bad))
PYEOF
# Time estimates (issue 48, item 6): a time README.md or experiments/ states is a measurement
# with its source, or it is not there. A row of a table in experiments/README.md that gives a
# time (its "wall time" column, or seconds, minutes, hours in any cell) cites a row of
# docs/BENCHMARKS.md's table ("row N") or a dated section of docs/benchmarks-archive.md; a
# sentence of README.md's prose, of experiments/README.md's or of an experiment's comments
# that says seconds, minutes or hours holds a measured number and such a source. Every row and
# date cited must exist.
check "every time estimate in README.md and experiments/ is a measurement that names its source" \
	/usr/bin/python3 - "$top_srcdir" <<'PYEOF'
import glob, os, re, sys
top = sys.argv[1]
bench = open(os.path.join(top, "docs/BENCHMARKS.md")).read()
rows = set(re.findall(r"^\| (\d+)\. ", bench, re.M))
heads = re.findall(r"^## (.*)$", open(os.path.join(top, "docs/benchmarks-archive.md")).read(), re.M)
WORDS = re.compile(r"\b(seconds|minutes?|hours?)\b", re.I)  # not "a second look"
NUMBER = re.compile(r"\d[\d,.]*(?:-[\d,.]+)?\s?(?:ms|s|m|min|h|minutes?|seconds?|hours?)\b|\b\d+:\d\d\b")
ORD = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth"
DATE = re.compile(r"(20\d\d-\d\d-\d\d)(?:,? \(?((?:%s) session|night|evening|later|stop \d+)\)?)?" % ORD)
ROWS = re.compile(r"\brows? (\d+)(?:(?:-|,? and |, )(\d{1,3})\b(?!-))?")

def sources(text):
    """(cited sources that exist, cited sources that do not)"""
    good, bad = [], []
    for m in ROWS.finditer(text):
        for n in filter(None, m.groups()):
            (good if n in rows else bad).append("row " + n)
    for m in DATE.finditer(text):
        date, qual = m.group(1), m.group(2)
        ok = any(h.startswith(date) and (qual is None or qual in h.split(":", 1)[0]) for h in heads)
        (good if ok else bad).append(m.group(0))
    return good, bad

def sentences(text):
    text = re.sub(r"\s+", " ", text)
    return [s for s in re.split(r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<!\bcf\.)(?<=[.!?])\s+", text) if s.strip()]

bad = []
def judge(where, text, need_number=True):
    good, wrong = sources(text)
    if wrong:
        bad.append("%s: cites what does not exist (%s): %s" % (where, ", ".join(wrong), text[:160]))
    elif not good:
        bad.append("%s: a time without a source (a row of docs/BENCHMARKS.md or an archive date): %s" % (where, text[:160]))
    elif need_number and not NUMBER.search(text):
        bad.append("%s: a time without a measured number: %s" % (where, text[:160]))

def prose(where, text):
    for s in sentences(text):
        if WORDS.search(s):
            judge(where, s)

# README.md: its prose (not code blocks, fenced or indented)
readme = open(os.path.join(top, "README.md")).read()
readme = re.sub(r"```.*?```", "", readme, flags=re.S)
paras = [p for p in re.split(r"\n\s*\n", readme) if not p.startswith("    ") and not p.startswith("|")]
for p in paras:
    prose("README.md", p)

# experiments/README.md: its tables row by row, its prose by sentence
exp = open(os.path.join(top, "experiments/README.md")).read()
timed = 0
for p in re.split(r"\n\s*\n", exp):
    lines = p.strip().splitlines()
    if not lines or not lines[0].startswith("|"):
        prose("experiments/README.md", p)
        continue
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    col = next((i for i, c in enumerate(head) if re.search(r"how long|wall time|\btime\b", c)), None)
    for l in lines[2:]:
        cells = [c.strip() for c in l.strip("|").split("|")]
        where = "experiments/README.md, %s" % cells[0]
        if col is not None and col < len(cells) and cells[col]:
            timed += 1
            if not NUMBER.search(cells[col]):
                bad.append("%s: its time is no measured number: %s" % (where, cells[col]))
            judge(where, l, need_number=False)
        elif WORDS.search(l):
            judge(where, l)
if timed < 10:
    bad.append("experiments/README.md: only %d rows of measured times (its table \"How long each experiment takes\")" % timed)

# experiments/*.toml: every comment, block by block
for f in sorted(glob.glob(os.path.join(top, "experiments", "*.toml"))):
    block = []
    for line in open(f).read().splitlines() + [""]:
        s = line.strip()
        if s.startswith("#") and s.strip("# "):
            block.append(s.lstrip("#"))
        elif block:
            prose("experiments/" + os.path.basename(f), " ".join(block))
            block = []
if bad:
    sys.exit("\n".join(bad))
print("%d timed rows in experiments/README.md" % timed)
PYEOF

# File layout: every folder and file README's "Where things live" and the layer table of
# harness/README.md name exists, and the layer table is the lint's order of layers
check "README's and harness/README.md's layout tables name what exists, in the lint's layer order" \
	/usr/bin/python3 - "$top_srcdir" <<'PYEOF'
import os, re, sys
top = sys.argv[1]
readme = open(os.path.join(top, "README.md")).read().split("## Where things live", 1)[1].split("\n## ", 1)[0]
bad = [p for p in re.findall(r"^\| `([^`]+)` \|", readme, re.M) if not os.path.exists(os.path.join(top, p))]
layers_doc = re.findall(r"^\| \d+ \| `([^`]+)/` \|", open(os.path.join(top, "harness/README.md")).read(), re.M)
lint = open(os.path.join(top, "tests/cli/lint.sh")).read()
layers_lint = re.findall(r'"([a-z/]+)"', lint.split("layers = [", 1)[1].split("]", 1)[0])
if layers_doc != layers_lint:
    bad.append("harness/README.md's layers %s, the lint's %s" % (layers_doc, layers_lint))
bad += [l for l in layers_doc if not os.path.isdir(os.path.join(top, l))]
if bad:
    sys.exit("\n".join(bad))
PYEOF

# docs/record-protocol.md lists the variables a unit inherits: the code's allowlist
check "the inherited variables docs/record-protocol.md lists are harness/config/unitenv.c's allowlist" \
	/usr/bin/python3 - "$top_srcdir" <<'PYEOF'
import os, re, sys
top = sys.argv[1]
code = open(os.path.join(top, "harness/config/unitenv.c")).read()
allow = re.findall(r'"([A-Z_]+)"', code.split("unitenv_allowlist[] = {", 1)[1].split("};", 1)[0])
doc = open(os.path.join(top, "docs/record-protocol.md")).read()
m = re.search(r"From the harness's own environment only these pass, when set:\n`([^`]+)`", doc)
assert m, "the sentence listing them is gone from docs/record-protocol.md"
listed = m.group(1).split()
assert listed == allow, (listed, allow)
PYEOF
finish

# tests/cli/manpage.sh: docs/harness.1 is checked against the code, so it cannot drift.
#  - every command in the table (`harness __table`) has a SYNOPSIS entry and a COMMANDS
#    paragraph, and the man page names no command the table lacks; its synopsis lists every option the entry declares (long and short names)
#    and no option it does not declare;
#  - every --format value a command accepts (read from the command's own refusal of a bad
#    one, "--format must be md, json or csv (or html), not 'x'", each then tried) is in
#    its synopsis;
#  - every environment variable the code reads (getenv("NAME") or util_data_dir("NAME", ...)
#    in harness/, kernels/ and stats/) is in the ENVIRONMENT section, and every variable
#    the section lists is read somewhere.  PASSTHROUGH below is the short list of standard
#    variables read only to pass them on or to search programs; they are not ours to document.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "/usr/bin/python3 is needed"
PASSTHROUGH="PATH HOME"

expect_status 0 h __table && cp "$SCRATCH/out" table.tsv && pass "harness __table" || finish

# the values each --format accepts, from the command's own error message
: >formats.txt
while IFS="$(printf '\t')" read -r name min max opts; do
	case "$(printf '\t%s\t' "$opts")" in *--format=*) ;; *) continue ;; esac
	set --
	i=0
	while [ "$i" -lt "$min" ]; do set -- "$@" "missing$i.h5"; i=$((i + 1)); done
	h "$name" --format zz-not-a-format "$@" >/dev/null 2>"$SCRATCH/err"
	st=$?
	vals=$(sed -n "s/^harness: --format must be \(.*\), not 'zz-not-a-format'$/\1/p" "$SCRATCH/err" |
		tr -c 'a-z\n' ' ' | tr ' ' '\n' | grep -v -e '^or$' -e '^$' | tr '\n' ' ')
	if [ "$st" -ne 2 ] || [ -z "$vals" ]; then
		fail "'$name --format zz-not-a-format' did not name the formats it accepts (exit $st)"
		sed 's/^/  | /' "$SCRATCH/err" >&2
		continue
	fi
	# a two-stage check (verify: report's parser, then its own) names more than it takes:
	# keep the values the command does not refuse as a format
	ok=
	for v in $vals; do
		h "$name" --format "$v" "$@" >/dev/null 2>"$SCRATCH/err"
		grep -q -- "--format must be" "$SCRATCH/err" || ok="$ok $v"
	done
	printf '%s\t%s\n' "$name" "$ok" >>formats.txt
done <table.tsv
grep -q '^report	.*html' formats.txt && pass "report --format accepts html (from its message)" ||
	fail "report --format accepts html (from its message)"

$PY - "$top_srcdir" table.tsv formats.txt "$PASSTHROUGH" <<'PYEOF' || fail "docs/harness.1 against the code"
import os, re, sys
top, table_path, formats_path, passthrough = sys.argv[1:5]
passthrough = set(passthrough.split())
fails = 0
def check(cond, what):
    global fails
    print(("ok: " if cond else "FAIL: manpage: ") + what)
    fails += not cond

def degroff(s):
    s = re.sub(r'\\f[BIRP]', '', s)
    return s.replace('\\-', '-').replace('\\e', '\\')

man = open(os.path.join(top, "docs/harness.1")).read().split("\n")
sections, cur = {}, None
for line in man:
    if line.startswith(".SH "):
        cur = line[4:].strip().strip('"')
        sections[cur] = []
    elif cur:
        sections[cur].append(line)

# SYNOPSIS: entries separated by .br; "harness CMD ..." belongs to CMD
synopsis = {}
entry = []
for line in sections.get("SYNOPSIS", []) + [".br"]:
    if line.startswith(".br"):
        text = " ".join(degroff(re.sub(r'^\.[BI]R? ', '', l)) for l in entry)
        toks = text.split()
        if len(toks) >= 2 and toks[0] == "harness" and not toks[1].startswith("-"):
            synopsis.setdefault(toks[1], []).append(text)
        entry = []
    else:
        entry.append(line)

# COMMANDS: ".TP" then ".B NAME"
described = set()
lines = sections.get("COMMANDS", [])
for i, line in enumerate(lines):
    if line == ".TP" and i + 1 < len(lines) and lines[i + 1].startswith(".B "):
        described.add(lines[i + 1][3:].strip())

formats = {}
for line in open(formats_path):
    name, vals = line.rstrip("\n").split("\t")
    formats[name] = vals.split()

def tokens(text):
    return set(re.findall(r'--?[A-Za-z0-9][A-Za-z0-9-]*|[A-Za-z0-9.][A-Za-z0-9.-]*', text))

for line in open(table_path):
    f = line.rstrip("\n").split("\t")
    name, opts = f[0], f[3:]
    check(name in synopsis, "SYNOPSIS has 'harness %s'" % name)
    check(name in described, "COMMANDS describes '%s'" % name)
    text = " ".join(synopsis.get(name, []))
    toks = tokens(text)
    declared = set()
    for o in opts:
        for spelling in o.rstrip("=").split(","):
            declared.add(spelling)
            check(spelling in toks, "the synopsis of '%s' lists %s" % (name, spelling))
    extra = sorted(t for t in toks if t.startswith("-") and t not in declared and t not in ("-h", "--help"))
    check(not extra, "the synopsis of '%s' lists only options it declares (extra: %s)" % (name, extra))
    for v in formats.get(name, []):
        check(v in toks, "the synopsis of '%s' lists --format %s" % (name, v))

names = [l.split("\t")[0] for l in open(table_path)]
for name in synopsis:
    if name.islower():
        check(name in names, "'harness %s' in SYNOPSIS is a command of the table" % name)
for name in described:
    check(name in names, "'%s' in COMMANDS is a command of the table" % name)

# ENVIRONMENT: ".TP" then ".B NAME"
documented = set()
lines = sections.get("ENVIRONMENT", [])
for i, line in enumerate(lines):
    if line == ".TP" and i + 1 < len(lines) and lines[i + 1].startswith(".B "):
        documented.add(lines[i + 1][3:].strip())
read, literals = {}, set()
pat = re.compile(r'\b(?:secure_)?getenv\s*\(\s*"([A-Za-z_][A-Za-z0-9_]*)"|\butil_data_dir\s*\(\s*"([A-Za-z_][A-Za-z0-9_]*)"')
for sub in ("harness", "kernels", "stats"):
    for root, dirs, files in os.walk(os.path.join(top, sub)):
        for fn in files:
            if not fn.endswith((".c", ".h", ".cc", ".cpp", ".cu", ".cuh")):
                continue
            path = os.path.join(root, fn)
            src = open(path, errors="replace").read()
            literals.update(re.findall(r'"([A-Z][A-Z0-9_]*)"', src))
            for m in pat.finditer(src):
                read.setdefault(m.group(1) or m.group(2), os.path.relpath(path, top))
check(len(read) >= 5, "found the variables the code reads: %s" % sorted(read))
for var, where in sorted(read.items()):
    if var in passthrough:
        continue
    check(var in documented, "ENVIRONMENT documents %s (read in %s)" % (var, where))
for var in sorted(documented):
    check(var in literals, "%s, documented in ENVIRONMENT, is read by the code" % var)
sys.exit(1 if fails else 0)
PYEOF

finish

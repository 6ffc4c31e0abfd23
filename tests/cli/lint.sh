# tests/cli/lint.sh: project rules a compiler does not check (STYLE.md): every include looks
# down the layers (harness/README.md), only harness/base/spawn.c starts processes, banned
# unbounded libc calls appear nowhere, every source file starts with a one-line purpose comment
# and none is over 800 lines; every CLI check can fail.
. "$top_srcdir/tests/setup"
cd "$top_srcdir"
src=$(find harness stats kernels -name '*.c' -o -name '*.cc' | sort)
hdr=$(find harness stats kernels -name '*.h' ! -name git-version.h | sort)
# comments and string literals are blanked first, so prose such as "gets (a + b)" is not code
out=$(/usr/bin/python3 - $src <<'PYEOF'
import re, sys
code = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
spawn = re.compile(r'\b(fork|vfork|execv|execve|execvp|execl|execlp|system|popen|posix_spawn)\s*\(')
banned = re.compile(r'(?<![_A-Za-z0-9])(strcpy|strcat|sprintf|vsprintf|gets|atoi|atol|atof)\s*\(')
for path in sys.argv[1:]:
    text = open(path).read()
    blank = code.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)
    for no, line in enumerate(blank.split("\n"), 1):
        if spawn.search(line) and path != "harness/base/spawn.c":
            print("spawn %s:%d: %s" % (path, no, text.split("\n")[no - 1].strip()))
        if banned.search(line):
            print("banned %s:%d: %s" % (path, no, text.split("\n")[no - 1].strip()))
PYEOF
)
bad=$(echo "$out" | grep '^spawn ')
[ -z "$bad" ] && pass "only harness/base/spawn.c starts processes" || fail "process creation outside spawn.c: $bad"
bad=$(echo "$out" | grep '^banned ')
[ -z "$bad" ] && pass "no banned libc calls" || fail "banned calls: $bad"
# a CLI check must be able to fail: `COND && pass` with no failing branch is refused
bad=$(/usr/bin/python3 tests/lint/silent-pass.py tests/cli/*.sh)
[ -z "$bad" ] && pass "every CLI check can fail (tests/lint/silent-pass.py)" ||
	fail "checks that cannot fail (write them 'check DESC COND', tests/setup):
$bad"
for f in $src $hdr; do
	head -1 "$f" | grep -q '^/\*' || fail "$f does not start with a purpose comment"
done
# a file over 800 lines holds more than one responsibility: split it along its banners
long=$(wc -l $src $hdr | awk '$2 != "total" && $1 > 800 { print $2 " (" $1 " lines)" }')
[ -z "$long" ] && pass "no source file over 800 lines" || fail "over 800 lines: $long"

# The layers, lowest first (harness/README.md).  A file may include headers of its own layer
# and of the layers below it, never above: an arrow that points up fails here.
bad=$(/usr/bin/python3 - $src $hdr <<'PYEOF'
import re, sys
layers = ["harness/base", "stats", "kernels", "harness/config", "harness/record",
          "harness/run", "harness/analysis", "harness/output", "harness/cli"]
def rank(path):
    best = None
    for i, l in enumerate(layers):
        if path.startswith(l + "/"):
            best = i
    return best
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
for path in sys.argv[1:]:
    r = rank(path)
    if r is None:
        print("%s: in no layer (tests/cli/lint.sh lists them)" % path)
        continue
    text = open(path).read()
    for m in inc.finditer(text):
        h = m.group(1)
        if h == "config.h" or "/" not in h or h.startswith("kernels/cpu/templates/"):
            continue
        hr = rank(h)
        if hr is None:
            print("%s: includes '%s', which is in no layer" % (path, h))
        elif hr > r:
            line = text.count("\n", 0, m.start()) + 1
            print("%s:%d: includes '%s' (%s, above %s)" % (path, line, h, layers[hr], layers[r]))
        # kernels/ by role: its interfaces at the top, then tune/ (the driver and tuners),
        # cpu/ and cuda/ (the device backends); a folder includes the interfaces and its
        # own headers, never another folder's; nothing outside kernels/ includes a folder's
        elif h.startswith("kernels/") and h.count("/") > 1:
            sub = h.split("/")[1]
            own = path.split("/")[1] if path.startswith("kernels/") and path.count("/") > 1 else None
            if own != sub:
                line = text.count("\n", 0, m.start()) + 1
                print("%s:%d: includes '%s', private to kernels/%s/" % (path, line, h, sub))
PYEOF
)
# (issue 8 redrew the last arrows that pointed up: no exceptions are left)
[ -z "$bad" ] && pass "every include looks down the layers (and kernels/'s folders keep to their own)" || fail "includes that go up a layer or into another kernels/ folder:
$bad"

# every shipped data file is in Makefile.am, so make dist and make install carry it (a plot
# template once was not, and `make distcheck` failed where the tree passed)
missing=""
for f in "$top_srcdir"/plots/*.gp "$top_srcdir"/experiments/*.toml "$top_srcdir"/hypotheses/*.toml \
	 "$top_srcdir"/kernels/cuda/templates/* "$top_srcdir"/kernels/cpu/templates/*; do
	[ -f "$f" ] || continue
	rel=${f#"$top_srcdir"/}
	grep -q "$rel" "$top_srcdir/Makefile.am" || missing="$missing $rel"
done
[ -z "$missing" ] && pass "every template, experiment and hypothesis file is in Makefile.am" ||
	fail "not in Makefile.am (so not in the tarball or the install):$missing"
finish

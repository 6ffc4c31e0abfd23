# tests/cli/lint.sh: project rules a compiler does not check (STYLE.md): only spawn.c starts
# processes; banned unbounded libc calls appear nowhere; every source file starts with a
# one-line purpose comment.
. "$top_srcdir/tests/setup"
cd "$top_srcdir"
src=$(ls harness/*.c harness/*.cc stats/*.c kernels/*.c kernels/cpu/*.c)
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
        if spawn.search(line) and path != "harness/spawn.c":
            print("spawn %s:%d: %s" % (path, no, text.split("\n")[no - 1].strip()))
        if banned.search(line):
            print("banned %s:%d: %s" % (path, no, text.split("\n")[no - 1].strip()))
PYEOF
)
bad=$(echo "$out" | grep '^spawn ')
[ -z "$bad" ] && pass "only harness/spawn.c starts processes" || fail "process creation outside spawn.c: $bad"
bad=$(echo "$out" | grep '^banned ')
[ -z "$bad" ] && pass "no banned libc calls" || fail "banned calls: $bad"
for f in $src $(ls harness/*.h stats/*.h kernels/*.h kernels/cpu/*.h); do
	head -1 "$f" | grep -q '^/\*' || fail "$f does not start with a purpose comment"
done
finish

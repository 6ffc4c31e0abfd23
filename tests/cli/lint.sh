# tests/cli/lint.sh: project rules a compiler does not check (STYLE.md): only spawn.c starts
# processes; banned unbounded libc calls appear nowhere; every source file starts with a
# one-line purpose comment.
. "$top_srcdir/tests/setup"
cd "$top_srcdir"
src=$(ls harness/*.c harness/*.cc stats/*.c kernels/*.c kernels/cpu/*.c)
bad=$(grep -nE '\b(fork|vfork|execv|execve|execvp|execl|execlp|system|popen|posix_spawn)\s*\(' $src | grep -v '^harness/spawn.c:')
[ -z "$bad" ] && pass "only harness/spawn.c starts processes" || fail "process creation outside spawn.c: $bad"
bad=$(grep -nE '(^|[^_a-z])(strcpy|strcat|sprintf|vsprintf|gets|atoi|atol|atof)\s*\(' $src)
[ -z "$bad" ] && pass "no banned libc calls" || fail "banned calls: $bad"
for f in $src $(ls harness/*.h stats/*.h kernels/*.h kernels/cpu/*.h); do
	head -1 "$f" | grep -q '^/\*' || fail "$f does not start with a purpose comment"
done
finish

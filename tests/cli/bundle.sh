# tests/cli/bundle.sh: make bundle's launcher and the CUDA libraries it looks for on the
# host (never bundled): found in a folder it searches (a PyTorch wheel's, say), an error
# naming both versions when the host has another one, an error when it has none.  The
# searched folders are set with HARNESS_CUDA_LIB_DIRS, so the host's own CUDA is not used.
. "$top_srcdir/tests/setup"
command -v readelf >/dev/null 2>&1 || skip "readelf not found (binutils)"
[ "${HARNESS_VALGRIND:-0}" = 1 ] && skip "not under valgrind"
B="$SCRATCH/b"
sh "$top_srcdir/scripts/bundle.sh" "$HARNESS" "$B" >"$SCRATCH/out" 2>"$SCRATCH/err" ||
	{ fail "bundle.sh failed"; sed 's/^/  /' "$SCRATCH/err" >&2; finish; }
[ -x "$B/run.sh" ] && [ -x "$B/bin/harness" ] || { fail "bundle layout"; finish; }
size=$(du -sk "$B" | cut -f1)
# the 60 MiB (a lent machine takes 64 a call) is the product build's: a sanitized binary and
# its runtime are larger by design (an --enable-asan build's about 64 MiB)
if sanitized; then
	echo "note: a sanitizer build (its bundle $size KiB): the size limit not checked"
else
	[ "$size" -lt $((60 * 1024)) ] && pass "bundle is $size KiB, under 60 MiB" || fail "bundle is $size KiB"
fi
! ls "$B"/lib | grep -Eq 'cublas|cudnn|cudart|nvrtc' && pass "no CUDA library bundled" ||
	fail "a CUDA library was bundled"
needed=$(sed -n 's/^cuda_needed="\(.*\)"$/\1/p' "$B/run.sh")
[ -n "$needed" ] || skip "this build links no CUDA library (built without CUDA)"

# a wheel folder holding every library the binary needs (links to the real ones)
mkdir -p wheel/nvidia/lib other
for so in $needed; do
	real=$(ldd "$HARNESS" | awk -v so="$so" '$1 == so { print $3 }')
	[ -n "$real" ] || skip "'$so' is not found on this machine"
	ln -s "$real" "wheel/nvidia/lib/$so"
done
unset LD_LIBRARY_PATH
expect_status 0 env HARNESS_CUDA_LIB_DIRS="$SCRATCH/other:$SCRATCH/wheel/nvidia/lib" "$B/run.sh" --version &&
	pass "the libraries are found in a searched folder"

# the same folder with cuDNN 8 instead of the 9 the binary needs
first=$(echo "$needed" | tr ' ' '\n' | grep cudnn | head -1)
if [ -n "$first" ]; then
	rm "wheel/nvidia/lib/$first"
	: >"wheel/nvidia/lib/libcudnn.so.8"
	expect_status 127 env HARNESS_CUDA_LIB_DIRS="$SCRATCH/wheel/nvidia/lib" "$B/run.sh" --version &&
		expect_grep "needs $first .*has libcudnn.so.8" "$SCRATCH/err" &&
		pass "a version that cannot work is an error naming both"
fi
# nothing at all
expect_status 127 env HARNESS_CUDA_LIB_DIRS="$SCRATCH/other" "$B/run.sh" --version &&
	expect_grep "needs lib.*not in the system library path" "$SCRATCH/err" &&
	pass "a missing library is an error naming it"
finish

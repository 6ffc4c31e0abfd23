# tests/cli/module-count.sh: tests/bench/module-count, the NVRTC modules an exhaustive walk
# compiles: a GEMM cell's configs each a module of their own (no field of gemm.cu is the
# launch's); at ResNet-50's 512-channel 3x3 on 7 x 7 fewer modules than configs (the depth is
# the launch's), fewer again with STREAM_K left out (stream-K is valid there), one a template
# with every option left out; a prefix no option has changes nothing; the two cells' counts
# add up; a malformed line is refused, naming it.  Skips (77) without the CUDA build.
. "$top_srcdir/tests/setup"
MC="$top_builddir/tests/bench/module-count"
[ -x "$MC" ] || skip "no CUDA build: tests/bench/module-count is not built"
printf 'float16 r50/gemm:m=32,n=1000,k=2048\n' > g.txt
printf 'float16 r50/conv2d_bias_relu:c=512,h=7,w=7,k=512,r=3,stride=1,pad=1\n' > c.txt
cat g.txt c.txt > both.txt
count() { # FILE [DROP...]: the output's numbers, one a line
	"$MC" "${@:2}" < "$1" | sed -E -e 's/^[0-9]+ cells, ([0-9]+) valid configs, ([0-9]+) modules$/\1 \2/' \
		-e 's/^without .*: ([0-9]+) modules$/\1/'
}
set -- $(count g.txt -DNOSUCH)
[ "$#" -eq 3 ] || { fail "gemm: output '$*'"; finish; }
[ "$1" -gt 0 ] && [ "$1" = "$2" ] && [ "$2" = "$3" ] &&
	pass "a GEMM cell: $1 configs, as many modules, the same without a prefix no option has" ||
	fail "gemm: configs $1, modules $2, without -DNOSUCH $3"
set -- $(count c.txt -DSTREAM_K -D)
[ "$#" -eq 4 ] && [ "$2" -lt "$1" ] && [ "$3" -lt "$2" ] && [ "$4" = 1 ] &&
	pass "the 3x3 conv: $1 configs, $2 modules, $3 without STREAM_K, 1 without any option" ||
	fail "conv: '$*'"
conv_modules=$2
set -- $(count g.txt) ; g=$2
set -- $(count both.txt)
[ "$2" = $((g + conv_modules)) ] && pass "two cells' modules add up ($2)" ||
	fail "both cells: $2 modules, wanted $g + $conv_modules"
printf 'float16 no-shape-here\n' > bad.txt
expect_status 2 "$MC" < bad.txt && grep -q "no-shape-here" "$SCRATCH/err" &&
	pass "a malformed line is refused, naming it" || fail "a malformed line"
finish

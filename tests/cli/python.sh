# tests/cli/python.sh: the Python parts, with /usr/bin/python3 and the standard library only:
# kernels/python/harness_unit.py (tests/python/test_harness_unit.py) and the pure parts of
# the torch.compile worker, kernels/torch/worker.py (tests/python/test_torch_worker.py;
# without PyTorch, its unit fails with "PyTorch not importable: ...").
. "$top_srcdir/tests/setup"
export PYTHONDONTWRITEBYTECODE=1
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no /usr/bin/python3"
export top_srcdir
if top_srcdir=$(cd "$top_srcdir" && pwd) $PY -m unittest discover -s "$top_srcdir/tests/python" -p 'test_*.py' -v \
	>"$SCRATCH/out" 2>&1; then
	pass "python unit tests: $(grep -c ' ok$' "$SCRATCH/out") passed"
else
	fail "python unit tests"; cat "$SCRATCH/out" >&2
fi
# the shipped torch experiment names the worker where harness check finds it
expect_status 0 h check "$top_srcdir/experiments/torch-tiny.toml" && pass "experiments/torch-tiny.toml checks"
finish

# tests/cli/python.sh: the Python parts, with /usr/bin/python3 and the standard library only:
# kernels/python/harness_unit.py (tests/python/test_harness_unit.py) and the pure parts of
# the torch.compile worker, kernels/python/torch_worker.py (tests/python/test_torch_worker.py;
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
# the shipped torch experiments name the worker where harness check finds it
for e in torch-tiny torch-resnet torch-controls torch-plant-leak torch-plant-eager; do
	expect_status 0 h check "$top_srcdir/experiments/$e.toml" && pass "experiments/$e.toml checks"
done
# a model outside the harness's catalog is a command mode's business, and only its
printf 'schema = 1\nname = "m"\n[[workloads]]\nmodel = "mobilenet_v2"\n[[modes]]\nname = "t"\ncommand = ["python3", "python/torch_worker.py"]\n' >"$SCRATCH/m.toml"
expect_status 0 h check "$SCRATCH/m.toml" && pass "a torchvision model name with command modes only"
printf '[[modes]]\nname = "v"\ntuner = "vendor"\n' >>"$SCRATCH/m.toml"
expect_status 2 h check "$SCRATCH/m.toml" &&
	grep -q "m.toml':4:9: unknown model 'mobilenet_v2' (known models: resnet18, resnet50; a command mode's worker may run others, but mode 'v' is not a command mode)" "$SCRATCH/err" &&
	pass "refused with a mode that is not a command mode, at the workload" || fail "model refused: $(cat "$SCRATCH/err")"
printf 'schema = 1\nname = "n"\n[[workloads]]\nmodel = "../x"\n[[modes]]\nname = "t"\ncommand = ["python3", "w.py"]\n' >"$SCRATCH/n.toml"
expect_status 2 h check "$SCRATCH/n.toml" && grep -q "unknown model '../x'" "$SCRATCH/err" &&
	pass "a model name that is no plain name is refused" || fail "bad model name: $(cat "$SCRATCH/err")"
# [environment] cannot plant a shared Inductor cache: the harness sets that variable
sed 's|^\[\[workloads\]\]$|[environment]\nset = { TORCHINDUCTOR_CACHE_DIR = "/tmp/shared" }\n\n[[workloads]]|' \
	"$top_srcdir/experiments/torch-tiny.toml" >"$SCRATCH/leak.toml"
expect_status 2 h check "$SCRATCH/leak.toml" &&
	grep -q "'TORCHINDUCTOR_CACHE_DIR' is set by the harness for every unit" "$SCRATCH/err" &&
	pass "a shared TORCHINDUCTOR_CACHE_DIR through [environment] is refused" || fail "leak plant: $(cat "$SCRATCH/err")"
finish

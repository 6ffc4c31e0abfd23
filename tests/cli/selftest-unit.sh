# tests/cli/selftest-unit.sh: `harness selftest-unit -- CMD...` passes a worker that speaks the
# record protocol (the Python fake worker, via kernels/python/harness_unit.py; the shell one)
# and names what is wrong with one that does not: garbage on fd 3, no 'done', a hang, no
# 'setup' record, nothing done that `--expects` asks for.
. "$top_srcdir/tests/setup"
export PYTHONDONTWRITEBYTECODE=1
command -v python3 >/dev/null || skip "no python3 on PATH for the fake worker"
W="$DATA/command"

expect_status 0 h selftest-unit --workloads both --expects compile,benchmark -- python3 "$W/fake_worker.py" &&
	pass "the Python fake worker conforms"
expect_grep 'conforms: 0 problem' "$SCRATCH/out"
expect_grep 'ok: 2 of 2 cell.s. sampled' "$SCRATCH/out"
expect_status 0 h selftest-unit --workloads both -- sh "$W/fake_worker.sh" && pass "the shell fake worker conforms"
expect_grep "note: no 'info' record" "$SCRATCH/out"

expect_status 1 h selftest-unit -- sh -c 'echo "{not json" >&3' && pass "garbage on fd 3 does not conform"
expect_grep "PROBLEM: status 'bad-output'" "$SCRATCH/out"
expect_status 1 h selftest-unit -- sh -c 'printf "{\"type\":\"hello\",\"protocol\":2,\"pid\":1,\"mode\":\"m\",\"unit\":0,\"backend\":\"sh\"}\n" >&3' &&
	pass "a unit without 'done' does not conform"
expect_grep "exited without a 'done' record" "$SCRATCH/out"
expect_status 1 h selftest-unit --timeout 1 -- sleep 30 && pass "a hanging unit is killed and does not conform"
expect_grep "PROBLEM: status 'timeout'" "$SCRATCH/out"
expect_status 1 h selftest-unit --expects compile -- python3 -c '
import harness_unit as hu
u = hu.Unit(hu.read_spec())
c = u.cell("x/y")
u.samples(c, [1200, 1300])
u.measure(c)
u.setup()
u.done()' && pass "a unit that compiles nothing when compile is expected does not conform" ||
	fail "a unit that compiles nothing when compile is expected does not conform"
expect_grep "PROBLEM: expects compile: it recorded 0 compiles" "$SCRATCH/out"
expect_status 1 h selftest-unit -- python3 -c '
import harness_unit as hu
u = hu.Unit(hu.read_spec())
c = u.cell("x/y")
u.samples(c, [1200, 1300])
u.done()' && pass "a unit without setup or measure records does not conform" ||
	fail "a unit without setup or measure records does not conform"
expect_grep "PROBLEM: no 'setup' record" "$SCRATCH/out"
expect_grep "PROBLEM: cell 'x/y' has no 'measure' record" "$SCRATCH/out"
# --dir keeps the unit's folder: its specification is the documented JSON
expect_status 0 h selftest-unit --workloads both --dir kept -- sh "$W/fake_worker.sh" && pass "--dir"
spec=$(ls kept/cache-*/harness-unit-0000.json 2>/dev/null)
[ -n "$spec" ] && python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert s["spec"] == 1 and s["mode"] == "selftest" and s["workloads"][0]["op"] == "sgemm", s
assert s["workloads"][1]["model"] == "resnet18" and s["record_fd"] == 3, s' "$spec" &&
	pass "the kept specification" || fail "the kept specification ($spec)"
grep -q '^HARNESS_UNIT_SPEC=.*/harness-unit-0000.json$' kept/unit.out && pass "HARNESS_UNIT_SPEC names it" ||
	fail "HARNESS_UNIT_SPEC in the unit's environment"
# the default sends an op alone (an op-only worker is not judged on a model), and a relative
# path is the caller's: the unit runs in its own cache folder
mkdir -p mine && cp "$W/fake_worker.py" mine/
(cd mine && $HARNESS_CMD selftest-unit --dir ../kept-op -- python3 fake_worker.py >../rel.out 2>&1)
check "a relative script path is taken from the caller's folder" grep -q '^conforms: 0 problem' rel.out
check "the program it ran is printed" grep -q '^ok: program: /' rel.out
check "the default sends one op workload" python3 -c '
import glob, json, sys
s = json.load(open(glob.glob("kept-op/cache-*/harness-unit-0000.json")[0]))
sys.exit(not ([w["op"] for w in s["workloads"]] == ["sgemm"]))'
expect_status 2 h selftest-unit --workloads ops -- true && expect_grep "'ops' is not op, model or both" "$SCRATCH/err"
expect_status 2 h selftest-unit --workloads op --tuner heuristic && pass "--workloads with --tuner is a usage error"
# a version manager's shim first in PATH: a script, which picks its interpreter from HOME
# and the working folder (the unit's own); selftest-unit notes it, check and run warn
mkdir -p shims && printf '#!/bin/sh
exec /usr/bin/python3 "$@"
' >shims/python3 && chmod +x shims/python3
PATH="$SCRATCH/shims:$PATH" $HARNESS_CMD selftest-unit -- python3 "$W/fake_worker.py" >shim.out 2>&1
check "selftest-unit notes a program that is a script" grep -q "^note: '$SCRATCH/shims/python3' is a script ('#!/bin/sh')" shim.out
printf 'schema = 1\nname = "s"\nrepeats = 2\n[[workloads]]\nname = "g"\nop = "sgemm"\nshape = { m = 8, n = 8, k = 8 }\n[[modes]]\nname = "a"\ncommand = ["python3", "w.py"]\n' >shim.toml
PATH="$SCRATCH/shims:$PATH" $HARNESS_CMD check shim.toml >/dev/null 2>shim.err
check "check warns of it" grep -q "mode 'a': the program 'python3' is '$SCRATCH/shims/python3', a script" shim.err
$HARNESS_CMD check shim.toml >/dev/null 2>plain.err
check "and not of the system's python3" '! grep -q "a script" plain.err'
expect_status 2 h selftest-unit && pass "no command is a usage error"
expect_status 2 h selftest-unit --tuner heuristic -- true && pass "a command and --tuner is a usage error"
expect_status 2 h selftest-unit --backend cpu -- true && pass "--backend without --tuner is a usage error"

# the harness's own worker is checked like any other unit: from its specification alone
expect_status 0 h selftest-unit --tuner heuristic --backend cpu --dir own &&
	expect_grep "^unit: the harness's own worker on backend cpu$" "$SCRATCH/out" &&
	expect_grep "^ok: expects compile: it recorded [1-9][0-9]* compiles" "$SCRATCH/out" &&
	expect_grep "^conforms: 0 problem" "$SCRATCH/out" && pass "the own worker (heuristic on cpu) conforms" ||
	fail "the own worker"
python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert s["backend"] == "cpu" and s["tuner"] == "heuristic" and s["fault"] == "none" and s["lut"] is None, s' \
	own/cache-*/harness-unit-0000.json && pass "its specification names backend and tuner" ||
	fail "the own worker's specification"
expect_status 2 h selftest-unit --tuner nosuch && expect_grep "nosuch" "$SCRATCH/err" && pass "an unknown tuner is refused" ||
	fail "an unknown tuner"
expect_status 2 h selftest-unit --timeout -3 -- true && pass "a bad --timeout is a usage error"
finish

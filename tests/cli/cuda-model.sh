# tests/cli/cuda-model.sh: ResNet-18 and ResNet-50 on the CUDA backend (tests/data/cuda/
# model.toml, small): every unit of every mode must end ok with both e2e cells of every
# workload (stream launches and the CUDA graph) checked against the vendor forward within
# the dtype's bound (the unit's info records each relative error) and timed (the stream-k
# mode's forwards with stream-K convolutions, stream-k.lut.toml; the cluster mode's with
# cluster ones, cluster.lut.toml), the op cells
# counted as the forward uses them, every template convolution's epilogue fused, the forward
# itemised (e2e_part lines) and its captured
# graph's shape recorded (a chain of at least a kernel a step).  Then the
# same forward with its maxpool left out (HARNESS_CUDA_MODEL_FAULT=1) must fail its unit as
# incorrect (its NaN-poisoned activations reach the logits), its message naming the maxpool
# as the first step off the vendor's: a wrong forward is never timed.  Skips (77) with the
# reason where there is no CUDA backend or device; `make check-gpu` cannot skip it.
. "$top_srcdir/tests/setup"
. "$top_srcdir/tests/setup-cuda"
cp "$DATA/cuda/stream-k.lut.toml" "$DATA/cuda/cluster.lut.toml" .
cuda_run model.toml model cudamodel
[ -n "${HARNESS_CUDA_KEEP:-}" ] && cp "$H5" "$HARNESS_CUDA_KEEP"/

PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || PY=python3
if $PY -c 'import h5py' 2>/dev/null; then
export PYTHONPATH="$top_srcdir/tests/cli"
$PY - "$H5" <<'PYEOF' || fail "results file checks"
import sys, h5py
from h5util import table, Checker
c = Checker("cuda-model")
with h5py.File(sys.argv[1], "r") as f:
    units, cells, samples = table(f, "units"), table(f, "cells"), table(f, "samples")
    ch = table(f, "choices")
def s(v):
    return v.decode() if isinstance(v, bytes) else v
c.check(len(units) == 7 and all(s(u["status"]) == "ok" for u in units),
        "every unit ok: " + ", ".join("%s:%s" % (s(u["mode"]), s(u["status"])) for u in units))
names = [s(x["name"]) for x in cells]
bounds = {"r18-f16": 3e-2, "r50-tf32": 1e-2, "r18-bf16": 1e-1}
for w in bounds:
    for e in ("%s/e2e" % w, "%s/e2e-graph" % w):
        c.check(e in names, "cell %s exists" % e)
        n = sum(1 for x in samples if int(x["cell"]) == names.index(e)) if e in names else 0
        c.check(n != 0, "cell %s has samples (%d)" % (e, n))
for u in units:
    info = dict(l.split("=", 1) for l in s(u["info"]).splitlines() if "=" in l)
    for w, b in bounds.items():
        for e in ("%s/e2e" % w, "%s/e2e-graph" % w):
            k = "e2e_%s_rel_err" % e
            c.check(k in info and float(info[k]) <= b,
                    "%s: %s = %s within %g" % (s(u["mode"]), k, info.get(k), b))
        # the captured forward's shape: one stream's launches, so a chain (an edge fewer than
        # nodes), at least a kernel a step; its programmatic edges counted (0 on the legacy API)
        g = "e2e_%s/e2e-graph_graph_" % w
        nn, nk, ne, npe = (int(info.get(g + k, -1)) for k in ("nodes", "kernels", "edges", "programmatic_edges"))
        steps = int(info.get("e2e_%s/e2e_steps" % w, 0))
        c.check(steps > 0 and nk >= steps and nn >= nk and ne == nn - 1 and npe >= 0 and
                (npe == 0 or "cudnn_api=graph" in s(u["info"]).splitlines()),
                "%s: %s's graph: %d nodes, %d kernels for %d steps, %d edges, %d programmatic"
                % (s(u["mode"]), w, nn, nk, steps, ne, npe))
        c.check("e2e_part.%s/e2e.op_conv2d_bias_relu_add_ns" % w in info and
                "e2e_part.%s/e2e.forward_ns" % w in info, "%s: %s's forward itemised" % (s(u["mode"]), w))
    # ResNet's output channels are multiples of 64 and its buffers aligned, so every template
    # convolution at SPLIT_K 1 stored through its fused epilogue (conv.c's conv_fused)
    c.check(int(info.get("cuda_conv_partial_launches", -1)) == 0, "%s: %s convolutions through "
            "the unfused epilogue, wanted none" % (s(u["mode"]), info.get("cuda_conv_partial_launches")))
    # every mode's tuner has a plan, and the worker queued all of its cells' before tuning
    # (harness/run/worker.c, plan_unit): the queue compiled the unit's modules, each once, and
    # the unit's trials took them; nothing compiled twice (compiles counted = the queue's)
    q, n, x, t = (int(info.get("cuda_compile_ahead_" + k, -1))
                  for k in ("queued", "compiled", "cancelled", "taken"))
    c.check(q > 0 and q == n + x and t > 0, "%s: the unit's plans were queued: %d queued = %d "
            "compiled + %d dropped, %d taken" % (s(u["mode"]), q, n, x, t))
    c.check(int(u["compiles"]) >= n, "%s: the unit's %d compiles count the queue's %d"
            % (s(u["mode"]), int(u["compiles"]), n))
# the vendor-legacy mode ran cuDNN's legacy API, every other mode its graph API, the default
# (the forwards checked like every mode's above)
vg = [u for u in units if s(u["mode"]) == "vendor-legacy"]
c.check(vg and all("cudnn_api=legacy" in s(u["info"]).splitlines() for u in vg),
        "the vendor-legacy units ran cuDNN's legacy API")
c.check(all("cudnn_api=graph" in s(u["info"]).splitlines() for u in units
            if s(u["mode"]) != "vendor-legacy"), "every other unit ran the graph API")
# the residual convolutions ran fused (the residual-first graph: cudnn-graph.c), cuDNN's
# heuristic choice at every conv2d_bias_relu_add cell of the default mode
dm = [r for r, u in enumerate(units) if s(u["mode"]) == "default"]
rf = [s(x["config"]) for x in ch if int(x["unit"]) in dm and s(cells[int(x["cell"])]["op"]) == "conv2d_bias_relu_add"]
c.check(rf and all(v.startswith("vendor:engine=") and v.endswith(",fused=1") for v in rf),
        "the default mode's residual convolutions ran fused: %s" % sorted(set(rf))[:4])
# the stream-k mode's forwards ran stream-K convolutions (checked against the vendor's above)
sk = [u for u in units if s(u["mode"]) == "stream-k"]
for w in bounds:
    n = sum(1 for x in ch if sk and int(x["unit"]) == int(sk[0]["id"]) and
            names[int(x["cell"])].startswith(w + "/conv") and
            any((",STREAM_K=%s," % v) in s(x["config"]) + "," for v in "123"))
    c.check(n >= 2, "stream-k: %d of %s's conv cells run stream-K in its forward" % (n, w))
# the cluster mode's forwards ran cluster convolutions (CLUSTER 2), launched as clusters in
# the stream and in the captured graph (checked against the vendor's above)
cm = [u for u in units if s(u["mode"]) == "cluster"]
for w in bounds:
    n = sum(1 for x in ch if cm and int(x["unit"]) == int(cm[0]["id"]) and
            names[int(x["cell"])].startswith(w + "/conv") and
            (s(x["config"]) + ",").find(",CLUSTER=2,") >= 0)
    c.check(n >= 2, "cluster: %d of %s's conv cells run in clusters in its forward" % (n, w))
def unit_info(u):
    return dict(l.split("=", 1) for l in s(u["info"]).splitlines() if "=" in l)
c.check(cm and all(int(unit_info(u).get("cuda_cluster_launches", 0)) > 0 for u in cm), "cluster: its units launched clusters")
# programmatic dependent launch (HARNESS_CUDA_PDL, default on): the template forwards' wgmma
# convolutions start under the layer before them and wait for it (wgmma.cuh's
# griddepcontrol.wait), so a wait out of place would fail the forwards' check above
pl = [int(unit_info(u).get("cuda_pdl_launches", 0)) for u in cm + sk]
c.check(pl and all(n > 0 for n in pl), "stream-k and cluster: their units launched programmatic dependents: %s" % pl)
# counts: ResNet-50's layer-1..4 3x3 convs at stride 1 (planes 64..512) occur 3, 4, 6, 3
# times less the strided first of layers 2-4: 3, 3, 5, 2 (the cpu model's structure)
cnt = {s(x["name"]): int(x["count"]) for x in cells}
c.check(cnt.get("r50-tf32/conv2d_bias_relu:c=64,h=16,w=16,k=64,r=3,stride=1,pad=1") == 3,
        "r50 layer-1 3x3 count: %s" % cnt.get("r50-tf32/conv2d_bias_relu:c=64,h=16,w=16,k=64,r=3,stride=1,pad=1"))
c.check(sum(v for k, v in cnt.items() if k.startswith("r50-tf32/conv2d")) == 53, "r50 has 53 convs")
c.check(sum(v for k, v in cnt.items() if k.startswith("r18-f16/conv2d")) == 20, "r18 has 20 convs")
c.exit()
PYEOF
else
	pass "h5py missing: results not inspected"
fi

# the fault: one workload, the heuristic mode, the forward without its maxpool
$PY - model.toml fault.toml <<'PYEOF' 2>/dev/null || sed -e 's/^name = "cudamodel"/name = "cudafault"/' model.toml >fault.toml
import sys, re
t = open(sys.argv[1]).read()
t = t.replace('name = "cudamodel"', 'name = "cudafault"')
parts = t.split("\n[[")
keep = [parts[0]] + [p for p in parts[1:] if ('name = "r18-f16"' in p or 'name = "heuristic"' in p or not p.startswith(("workloads", "modes")))]
open(sys.argv[2], "w").write("\n[[".join(keep))
PYEOF
HARNESS_CUDA_MODEL_FAULT=1 h run -q --results-dir fres fault.toml >"$SCRATCH/fout" 2>"$SCRATCH/ferr"
h show fres/cudafault-*.h5 >"$SCRATCH/fshow" 2>&1
grep -q "incorrect" "$SCRATCH/fshow" || fail "the fault run's unit is not incorrect: $(head -20 "$SCRATCH/fshow")"
# the reason is the unit's message (show's table has no room for it): read it with h5py
: >"$SCRATCH/fmsg"
$PY -c 'import h5py' 2>/dev/null && PYTHONPATH="$top_srcdir/tests/cli" $PY - fres/cudafault-*.h5 >"$SCRATCH/fmsg" 2>&1 <<'PYEOF'
import sys, h5py
from h5util import table
with h5py.File(sys.argv[1], "r") as f:
    for u in table(f, "units"):
        print(u["status"], u["message"])
PYEOF
grep -Eq "off the vendor forward's|forward's logit [0-9]+ of [0-9]+ is not finite" "$SCRATCH/ferr" "$SCRATCH/fmsg" &&
	pass "a wrong forward fails its unit" ||
	fail "the fault run's failure does not name the vendor forward: $(cat "$SCRATCH/fmsg")"
# and it says where: the forward redone step by step on the vendor's inputs finds the maxpool
# that wrote nothing as the first step off
grep -Eq "first off: step [0-9]+ of [0-9]+, '[^']*maxpool[^']*' on " "$SCRATCH/fmsg" &&
	pass "the wrong forward's message names its first wrong step, the maxpool" ||
	fail "the fault run's message does not name the maxpool as the first step off: $(cat "$SCRATCH/fmsg")"
finish

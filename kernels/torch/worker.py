"""kernels/torch/worker.py: a torch.compile worker for external command modes (issue 12).

    [[modes]]
    name = "max-autotune"
    command = ["python3", "torch/worker.py"]      # found in the kernel folder
    expects = ["compile", "benchmark"]
    options = { compile = "max-autotune" }

NEVER RUN ON A GPU OR WITH PYTORCH: written on a machine without PyTorch; only its pure parts
(mode -> Inductor configuration, option overrides, specification parsing, cell names, the
failure without PyTorch) are tested (tests/python/test_torch_worker.py).  See
docs/kernels.md, "The torch.compile worker", for what is and is not done.

Without PyTorch (or without a GPU) the unit fails at once with a 'done' record saying why
("PyTorch not importable: ..."); it never hangs.
"""

import hashlib
import os
import sys
import time

import harness_unit as hu

# The modes: what torch.compile gets and which Inductor config keys are set.  `threshold`
# is coordinate descent's improvement threshold (Inductor's CoordescTuner.has_improvement
# hard-codes 0.001; the seed study changed it to 0.05).
MODES = {
    "eager": {"compile": False, "torch_mode": None, "inductor": {}, "threshold": None},
    "default": {"compile": True, "torch_mode": "default", "inductor": {}, "threshold": None},
    "reduce-overhead": {"compile": True, "torch_mode": "reduce-overhead", "inductor": {},
                        "threshold": None},
    "max-autotune": {"compile": True, "torch_mode": "max-autotune", "inductor": {},
                     "threshold": None},
    "max-autotune-no-cudagraphs": {"compile": True, "torch_mode": "max-autotune-no-cudagraphs",
                                   "inductor": {}, "threshold": None},
    "coordinate-descent": {"compile": True, "torch_mode": "default",
                           "inductor": {"coordinate_descent_tuning": True}, "threshold": None},
    "coordinate-descent-0.05": {"compile": True, "torch_mode": "default",
                                "inductor": {"coordinate_descent_tuning": True},
                                "threshold": 0.05},
}
INDUCTOR_DEFAULT_THRESHOLD = 0.001
DTYPES = ("float32", "float16", "bfloat16")
KNOWN_OPTIONS = ("compile", "inductor", "threshold", "channels_last", "training",
                 "warmup_s", "per_op")


class SpecError(Exception):
    """The specification or the mode's options cannot be run (the unit fails with it)."""


def resolve_mode(spec):
    """The mode's configuration from the specification: a dict with compile (bool),
    torch_mode (str or None), inductor (dict of config key -> value: the mode's, then
    options.inductor over them), threshold (float or None) and name (the compile mode).
    options.compile names one of MODES; without it, the experiment's mode name must."""
    opts = spec.get("options") or {}
    for k in opts:
        if k not in KNOWN_OPTIONS:
            raise SpecError("unknown option '%s' (known: %s)" % (k, ", ".join(KNOWN_OPTIONS)))
    name = opts.get("compile", spec.get("mode"))
    if name not in MODES:
        raise SpecError("mode '%s': options.compile must be one of %s" %
                        (name, ", ".join(MODES)))
    m = MODES[name]
    cfg = {"name": name, "compile": m["compile"], "torch_mode": m["torch_mode"],
           "inductor": dict(m["inductor"]), "threshold": m["threshold"]}
    extra = opts.get("inductor", {})
    if not isinstance(extra, dict):
        raise SpecError("options.inductor must be a table of Inductor config keys")
    if extra and not cfg["compile"]:
        raise SpecError("mode '%s' does not compile: options.inductor has nothing to set" % name)
    cfg["inductor"].update(extra)
    if "threshold" in opts:
        t = opts["threshold"]
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 < t < 1:
            raise SpecError("options.threshold must be a number in (0, 1), not %r" % (t,))
        if not cfg["inductor"].get("coordinate_descent_tuning"):
            raise SpecError("options.threshold is coordinate descent's: the mode does not "
                            "turn coordinate_descent_tuning on")
        cfg["threshold"] = float(t)
    return cfg


def parse_workloads(spec):
    """The model workloads of the specification, as dicts: name, model, batch, resolution,
    dtype, channels_last.  Op workloads are refused (the per-op cells come from a model's
    graph)."""
    out = []
    opts = spec.get("options") or {}
    for w in spec.get("workloads", []):
        if w.get("kind") != "model":
            raise SpecError("workload '%s': the torch worker runs models (torchvision names), "
                            "not op workloads" % w.get("name"))
        if w.get("dtype", "float32") not in DTYPES:
            raise SpecError("workload '%s': dtype '%s' (%s)" % (w["name"], w.get("dtype"),
                                                               ", ".join(DTYPES)))
        out.append({"name": w["name"], "model": w["model"], "batch": int(w.get("batch", 1)),
                    "resolution": int(w.get("resolution", 224)),
                    "dtype": w.get("dtype", "float32"), "tf32": bool(w.get("tf32", False)),
                    "channels_last": bool(opts.get("channels_last", False))})
    if not out:
        raise SpecError("the specification names no workload")
    return out


def e2e_cell(w):
    """(name, shape) of a workload's end-to-end cell, as the harness's own e2e cells."""
    return ("%s/e2e" % w["name"],
            "batch=%d,resolution=%d" % (w["batch"], w["resolution"]))


def apply_threshold(threshold):
    """Coordinate descent's improvement threshold, for the installed Inductor: replaces
    CoordescTuner.has_improvement (torch._inductor.runtime.coordinate_descent_tuner) in this
    process with one comparing against `threshold` instead of the hard-coded 0.001.  Inductor
    runs coordinate descent in the process that runs the compiled kernel (at its first
    launch), so the unit's own process is where it applies.  Returns a description."""
    from torch._inductor.runtime import coordinate_descent_tuner as cdt  # noqa: E402

    def has_improvement(self, baseline, test):
        return test is not None and test < baseline * (1 - threshold)

    cdt.CoordescTuner.has_improvement = has_improvement
    return "CoordescTuner.has_improvement threshold %g (Inductor's own: %g)" % (
        threshold, INDUCTOR_DEFAULT_THRESHOLD)


def import_torch():
    """(torch, torchvision), or SpecError saying why not."""
    try:
        import torch  # noqa: F401
        import torchvision  # noqa: F401
    except Exception as e:  # ImportError, or a broken install
        raise SpecError("PyTorch not importable: %s: %s" % (type(e).__name__, e))
    if not torch.cuda.is_available():
        raise SpecError("no CUDA device: torch.cuda.is_available() is False")
    return torch, torchvision


def run(spec, u):  # pragma: no cover - needs PyTorch and a GPU; never run
    cfg = resolve_mode(spec)
    workloads = parse_workloads(spec)
    torch, torchvision = import_torch()
    import torch._dynamo.utils as dutils
    import torch._inductor.config as icfg

    ms = spec["measure"]
    torch.manual_seed(spec["seed"])
    notes = {}
    for k, v in cfg["inductor"].items():
        if not hasattr(icfg, k):
            raise SpecError("options.inductor: Inductor has no config key '%s'" % k)
        setattr(icfg, k, v)
    if cfg["threshold"] is not None:
        notes["coordinate_descent_threshold"] = apply_threshold(cfg["threshold"])
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    info = {"torch": torch.__version__, "torchvision": torchvision.__version__,
            "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
            "gpu": props.name, "compile_mode": cfg["name"]}
    try:
        import triton
        info["triton"] = triton.__version__
    except Exception as e:
        info["triton"] = "not importable: %s" % e
    info.update(notes)
    resolved = {k: getattr(icfg, k) for k in sorted(cfg["inductor"])}
    resolved.update({k: getattr(icfg, k, None) for k in ("max_autotune", "max_autotune_gemm",
                                                          "coordinate_descent_tuning")})
    info["inductor_config"] = repr(resolved)
    u.info(info)
    flush = torch.empty(int(256 * 2**20 / 4), dtype=torch.float32, device=dev)
    compile_ns = 0
    for w in workloads:
        dtype = getattr(torch, w["dtype"])
        torch.backends.cuda.matmul.allow_tf32 = w["tf32"]
        torch.backends.cudnn.allow_tf32 = w["tf32"]
        model = getattr(torchvision.models, w["model"])(weights=None).to(dev, dtype).eval()
        x = torch.randn(w["batch"], 3, w["resolution"], w["resolution"], device=dev,
                        dtype=dtype)
        if w["channels_last"]:
            model = model.to(memory_format=torch.channels_last)
            x = x.to(memory_format=torch.channels_last)
        fn = model
        if cfg["compile"]:
            fn = torch.compile(model, mode=cfg["torch_mode"])
        name, shape = e2e_cell(w)
        c = u.cell(name, kind="e2e", workload=w["name"], op="e2e", shape=shape)
        t0 = time.monotonic_ns()
        with torch.no_grad():
            fn(x)
            torch.cuda.synchronize()
            compile_ns += time.monotonic_ns() - t0
            # warm-up by time and by count
            n_w, w0 = 0, time.monotonic_ns()
            while n_w < ms["warmup_count"] or time.monotonic_ns() - w0 < ms["warmup_s"] * 1e9:
                fn(x)
                n_w += 1
            torch.cuda.synchronize()
            warm_ns = time.monotonic_ns() - w0
            ns, clocks = [], []
            s0 = time.monotonic_ns()
            while len(ns) < ms["max_samples"] and (len(ns) < ms["min_samples"] or
                                                     time.monotonic_ns() - s0 < ms["max_time_s"] * 1e9):
                if ms["flush"]:
                    flush.zero_()
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                fn(x)
                b.record()
                b.synchronize()
                ns.append(int(a.elapsed_time(b) * 1e6))
                try:
                    clocks.append(float(torch.cuda.clock_rate()))
                except Exception:
                    clocks.append(None)
        u.samples(c, ns, clock_mhz=clocks)
        u.measure(c, stop="max-samples" if len(ns) >= ms["max_samples"] else "max-time",
                  warmup_n=n_w, warmup_ns=warm_ns)
        u.choice(c, "torch.compile:%s" % cfg["name"], "tuned" if cfg["compile"] else "vendor")
    counters = dutils.counters
    inductor = dict(counters.get("inductor", {}))
    benchmarks = int(inductor.get("select_algorithm_autotune", 0)) + \
        int(inductor.get("coordesc_tuning_bench", 0))
    compiles = int(inductor.get("fxgraph_cache_miss", 0))
    hits = int(inductor.get("fxgraph_cache_hit", 0)) + int(inductor.get("autotune_local_cache_hit", 0))
    u.info({"counters": repr({k: dict(v) for k, v in counters.items()}),
            "cache_bytes": dir_size(spec["cache_dir"])})
    u.setup(compile_ns=compile_ns, compiles=compiles, cache_hits=hits, benchmarks=benchmarks)


def dir_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


def code_hash(text):
    """What the choice records of a generated kernel carry: sha256 of its source, 16 hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def main():
    spec = hu.read_spec()
    u = hu.Unit(spec, backend="torch")
    u.hello()
    try:
        run(spec, u)
    except SpecError as e:
        print("torch worker: %s" % e, file=sys.stderr)
        u.done("failed", str(e))
        return 0
    u.done("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

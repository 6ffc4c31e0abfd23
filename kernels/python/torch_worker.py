"""kernels/python/torch_worker.py: a torch.compile worker for external command modes (issue 12).

    [[modes]]
    name = "max-autotune"
    command = ["python3", "python/torch_worker.py"]      # found in the kernel folder
    expects = ["compile", "benchmark"]
    options = { compile = "max-autotune" }

One unit = one fresh process: for every model workload (a torchvision model by name, random
weights from the experiment's seed) it compiles the forward in the mode's configuration and
times it (the e2e cell), then captures the aten ops the eager forward dispatches and compiles
and times each distinct op and shape alone, in the same configuration (the op cells).  It
records per-kernel choices (extern calls, Triton kernels and their runtime configs, a hash of
the generated code), the setup split (Dynamo, Inductor, benchmarking), Inductor's counters and
the versions.  docs/torch-worker.md is the reference.

Without PyTorch (or without a GPU) the unit fails at once with a 'done' record saying why
("PyTorch not importable: ..."); it never hangs.  The pure parts (mode table, options,
specification parsing, cell names, choice strings, code hashing) need no PyTorch and are
tested by tests/python/test_torch_worker.py.
"""

import hashlib
import os
import re
import sys
import threading
import time

import harness_unit as hu

# The modes: what torch.compile gets and which Inductor config keys are set.  `threshold`
# is coordinate descent's improvement threshold (Inductor's CoordescTuner.has_improvement
# compares against 0.001; the seed study changed it to 0.05; see apply_threshold).
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
# The Inductor config keys recorded with every unit (besides the ones the mode sets).
RECORDED_CONFIG = ("max_autotune", "max_autotune_gemm", "max_autotune_pointwise",
                   "max_autotune_gemm_backends", "max_autotune_conv_backends",
                   "max_autotune_gemm_search_space", "coordinate_descent_tuning",
                   "coordinate_descent_check_all_directions",
                   "coordinate_descent_search_radius", "fx_graph_cache",
                   "autotune_local_cache", "autotune_remote_cache", "triton.cudagraphs",
                   "epilogue_fusion", "freezing", "force_disable_caches", "compile_threads")
MATMUL_OPS = ("mm", "addmm", "bmm", "baddbmm")
CONV_OPS = ("convolution", "_convolution", "cudnn_convolution")


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
    if opts.get("training"):
        raise SpecError("options.training: only inference (eval, no_grad) is implemented")
    return cfg


def parse_workloads(spec):
    """The model workloads of the specification, as dicts: name, model, batch, resolution,
    dtype, tf32, channels_last, per_op.  Op workloads are refused (the per-op cells come
    from a model's graph).  options.per_op: true (default), false, or a list of the
    workload names that get op cells.  A unit of one workload (the experiment's unit_scope =
    "workload": the specification names it in "workload") checks no list name against its
    one workload: the others are other units'."""
    out = []
    opts = spec.get("options") or {}
    per_op = opts.get("per_op", True)
    names = [w.get("name") for w in spec.get("workloads", [])]
    if isinstance(per_op, list):
        for n in per_op:
            if n not in names and not spec.get("workload"):
                raise SpecError("options.per_op names '%s', which is no workload (%s)" %
                                (n, ", ".join(str(x) for x in names)))
    elif not isinstance(per_op, bool):
        raise SpecError("options.per_op must be true, false or a list of workload names")
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
                    "channels_last": bool(opts.get("channels_last", False)),
                    "per_op": per_op if isinstance(per_op, bool) else w["name"] in per_op})
    if not out:
        raise SpecError("the specification names no workload")
    return out


def e2e_cell(w):
    """(name, shape) of a workload's end-to-end cell, as the harness's own e2e cells."""
    return ("%s/e2e" % w["name"],
            "batch=%d,resolution=%d" % (w["batch"], w["resolution"]))


# ---- op cells: names from a description of the captured call (pure) ----------------------
#
# A captured argument is described without PyTorch: a tensor as ("T", shape, stride, dtype)
# (shape and stride tuples of ints, dtype a string such as "float32"), a list or tuple as a
# list of descriptions, anything else as itself (int, float, bool, None, str).

def _dims(shape):
    return "x".join(str(int(d)) for d in shape) if len(shape) else "scalar"


def _contiguous_stride(shape):
    st, acc = [], 1
    for d in reversed(shape):
        st.append(acc)
        acc *= max(int(d), 1)
    return tuple(reversed(st))


def _layout(t):
    """'' for a contiguous tensor, ':cl' for channels-last 4-D, ':T' for a transposed 2-D,
    else ':s<strides>'."""
    _, shape, stride, _ = t
    shape, stride = tuple(shape), tuple(stride)
    if stride == _contiguous_stride(shape):
        return ""
    if len(shape) == 4:
        n, c, h, w = shape
        if stride == (h * w * c, 1, w * c, c):
            return ":cl"
    if len(shape) == 2 and stride == (1, shape[0]):
        return ":T"
    return ":s" + "x".join(str(s) for s in stride)


def describe_value(v, wdtype="float32"):
    """The text of one described argument in a cell's shape."""
    if isinstance(v, tuple) and len(v) == 4 and v[0] == "T":
        dt = "" if v[3] == wdtype else ":" + v[3]
        return _dims(v[1]) + _layout(v) + dt
    if isinstance(v, (list, tuple)):
        return "[" + ";".join(describe_value(x, wdtype) for x in v) + "]"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def op_cell(workload, op, args, kwargs=None, wdtype="float32"):
    """(name, shape) of an op cell: `op` the aten op's name ('convolution', 'addmm',
    'relu' with the overload as 'add.Tensor' when it is not 'default'), args and kwargs
    described as above.  Matrix products read m,n,k (b for batched); convolutions x, w,
    stride, padding, dilation, groups; anything else its arguments in order."""
    kwargs = kwargs or {}
    base = op.split(".")[0]
    tens = [a for a in args if isinstance(a, tuple) and len(a) == 4 and a[0] == "T"]

    def lay(t):
        return _layout(t)
    if base in ("mm", "addmm") and len(tens) >= 2:
        a, b = tens[-2], tens[-1]
        m, k = a[1]
        n = b[1][1]
        shape = "m=%d,n=%d,k=%d" % (m, n, k)
        if lay(a) or lay(b):
            shape += ",a=%s,b=%s" % (lay(a)[1:] or "N", lay(b)[1:] or "N")
        if base == "addmm":
            shape += ",bias=%s" % _dims(tens[0][1])
    elif base in ("bmm", "baddbmm") and len(tens) >= 2:
        a, b = tens[-2], tens[-1]
        bs, m, k = a[1]
        shape = "b=%d,m=%d,n=%d,k=%d" % (bs, m, b[1][2], k)
    elif base in CONV_OPS and len(args) >= 9:
        x, w, bias = args[0], args[1], args[2]
        stride, pad, dil, transposed, _, groups = args[3:9]
        shape = "x=%s,w=%s,stride=%s,pad=%s,dil=%s,groups=%s" % (
            describe_value(x, wdtype), describe_value(w, wdtype), _dims(stride), _dims(pad),
            _dims(dil), groups)
        if bias is not None:
            shape += ",bias"
        if transposed:
            shape += ",transposed"
    else:
        parts = [describe_value(a, wdtype) for a in args]
        parts += ["%s=%s" % (k, describe_value(kwargs[k], wdtype)) for k in sorted(kwargs)]
        shape = ",".join(parts)
    if tens and tens[0][3] != wdtype and base in MATMUL_OPS + CONV_OPS:
        shape += ",dtype=%s" % tens[0][3]
    return ("%s/%s:%s" % (workload, op, shape), shape)


def op_kind(op):
    """The seed study's families of an op cell: matmul, conv, pool, pointwise, other."""
    base = op.split(".")[0]
    if base in MATMUL_OPS:
        return "matmul"
    if base in CONV_OPS:
        return "conv"
    if "pool" in base:
        return "pool"
    return "pointwise" if base in POINTWISE_HINTS else "other"


POINTWISE_HINTS = ("relu", "add", "mul", "hardtanh", "clamp", "sigmoid", "silu", "gelu",
                   "cudnn_batch_norm", "_native_batch_norm_legit_no_training",
                   "native_batch_norm", "batch_norm", "cat", "div", "sub", "mean",
                   "dropout", "clone", "_to_copy", "copy")


# ---- choices: what a compiled graph is made of (pure) -----------------------------------

_COMMENT = re.compile(r"^\s*#")
_TRITON_DEF = re.compile(r"async_compile\.triton\(\s*'(\w+)'")
_EXTERN = re.compile(r"\bextern_kernels\.(\w+)\(")
_ATEN = re.compile(r"\b(?:torch\.ops\.)?aten\.(\w+)(?:\.(\w+))?\(")
_CONSTEXPR = re.compile(r"^\s*(\w+)\s*:\s*tl\.constexpr\s*=\s*(\S+)\s*$", re.M)


def normalize_code(text, cache_dir=None):
    """A generated module's source without what differs between identical compilations in
    two processes: comment lines (kernel paths, topologically sorted nodes) and the unit's
    cache directory."""
    lines = [ln for ln in text.splitlines() if not _COMMENT.match(ln)]
    out = "\n".join(lines)
    if cache_dir:
        out = out.replace(cache_dir, "<cache>")
    return out


def code_hash(text):
    """What the choice records of a generated kernel carry: sha256 of its source, 16 hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def summarize_wrapper(code):
    """What one Inductor output module calls: a dict with 'extern' (sorted extern kernel
    names: cuBLAS/cuDNN and other ATen calls), 'triton' (sorted Triton kernel names; the
    prefix says the kind: triton_tem_ a template, triton_poi_ pointwise, triton_red_ and
    triton_per_ reductions) and 'templates' (kernel name -> its tl.constexpr parameters,
    for templates whose source is inline)."""
    ext = sorted(set(_EXTERN.findall(code)) |
                 set("aten.%s" % m[0] for m in _ATEN.findall(code)))
    tri = sorted(set(_TRITON_DEF.findall(code)))
    templates = {}
    for name in tri:
        if not name.startswith("triton_tem_"):
            continue
        at = code.find("async_compile.triton('%s'" % name)
        at = code.find("'''", at) if at >= 0 else -1
        end = code.find("'''", at + 3) if at >= 0 else -1
        if at >= 0 and end > at:
            params = _CONSTEXPR.findall(code[at:end])
            templates[name] = ",".join("%s=%s" % p for p in params)
    return {"extern": ext, "triton": tri, "templates": templates}


def choice_config(compiled, wrappers, runtime_configs, cache_dir=None):
    """The `choice` config string of one cell: what was compiled and what it runs.
    compiled: False for eager; wrappers: the sources of the output modules the cell's
    compilation produced or loaded; runtime_configs: kernel name -> the config Triton's
    autotuner (or coordinate descent) left it with.  The string names the extern calls,
    counts Triton kernels per kind and template, and ends with code=<hash of the normalized
    sources> and rt=<hash of the runtime configs>, so two units that compiled the same
    thing (a silent fallback) have the same string and two that did not, differ."""
    if not compiled:
        return "eager"
    if not wrappers:
        return "compiled;code=unavailable"
    ext, tri, tem = set(), [], []
    for w in wrappers:
        s = summarize_wrapper(w)
        ext.update(s["extern"])
        tri.extend(s["triton"])
        tem.extend("%s{%s}" % (re.sub(r"_\d+$", "", k), v)
                   for k, v in sorted(s["templates"].items()))
    kinds = {}
    for t in tri:
        k = t.split("_")[1] if t.count("_") >= 2 else "other"
        kinds[k] = kinds.get(k, 0) + 1
    code = code_hash("\n\x00\n".join(sorted(normalize_code(w, cache_dir) for w in wrappers)))
    rt = code_hash(";".join("%s=%s" % kv for kv in sorted(runtime_configs.items())))
    parts = ["extern=" + ("+".join(sorted(ext)) or "none"),
             "triton=" + ("+".join("%s:%d" % kv for kv in sorted(kinds.items())) or "none")]
    if tem:
        parts.append("templates=" + "+".join(sorted(tem)))
    parts += ["code=" + code, "rt=" + rt]
    return ";".join(parts)


def choice_reason(config):
    """vendor when the cell runs only extern (cuBLAS/cuDNN/ATen) calls, tuned otherwise."""
    if config == "eager":
        return "vendor"
    return "vendor" if "triton=none" in config and "extern=none" not in config else "tuned"


def apply_threshold(threshold):
    """Coordinate descent's improvement threshold, for the installed Inductor: replaces
    CoordescTuner.has_improvement (torch._inductor.runtime.coordinate_descent_tuner) in this
    process with one comparing against `threshold` instead of 0.001 (the seed study's
    one-line change).  Inductor runs coordinate descent in the process that launches the
    compiled kernel (CachingAutotuner, at its first launch), so the unit's own process is
    where it applies; the replacement counts its calls (returned dict 'calls') so a unit
    can say whether it was used.  Returns (description, counter dict)."""
    from torch._inductor.runtime import coordinate_descent_tuner as cdt  # noqa: E402
    calls = {"calls": 0}

    def has_improvement(baseline, test):
        calls["calls"] += 1
        return test is not None and test < baseline * (1 - threshold)

    # torch 2.11: a staticmethod whose body sets `threshold = 0.001  # 0.1%` and returns
    # `test is not None and test < baseline * (1 - threshold)`; called as
    # self.has_improvement(best_timing, candidate_timing) from CoordescTuner.autotune
    cdt.CoordescTuner.has_improvement = staticmethod(has_improvement)
    return ("CoordescTuner.has_improvement replaced: test < baseline * (1 - %g) "
            "(Inductor's own: 1 - %g)" % (threshold, INDUCTOR_DEFAULT_THRESHOLD), calls)


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


# ---- everything below needs PyTorch and a GPU --------------------------------------------

class Clock:
    """The SM clock (MHz) and whether the GPU reports throttling, read after each sample:
    pynvml when importable, else NVML through ctypes (libnvidia-ml.so.1, the driver's),
    else torch.cuda.clock_rate(), else absent.  `source` says which."""

    def __init__(self, torch, dev):
        self.read = lambda: (None, -1, -1)  # (SM MHz, throttle, clock-event reasons mask)
        self.source = "absent"
        self.driver = None
        uuid = None
        try:
            uuid = "GPU-" + str(torch.cuda.get_device_properties(dev).uuid)
        except Exception:
            pass
        why = []
        try:
            import pynvml
            pynvml.nvmlInit()
            h = (pynvml.nvmlDeviceGetHandleByUUID(uuid) if uuid else
                 pynvml.nvmlDeviceGetHandleByIndex(dev.index or 0))
            self.driver = pynvml.nvmlSystemGetDriverVersion()
            reasons = getattr(pynvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
                pynvml.nvmlDeviceGetCurrentClocksThrottleReasons

            def rd():
                mhz = pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM)
                try:
                    r = int(reasons(h))
                    thr = 1 if (r & ~1) else 0
                except Exception:
                    r, thr = -1, -1
                return float(mhz), thr, r
            rd()
            self.read, self.source = rd, "pynvml"
            return
        except Exception as e:
            why.append("pynvml: %s" % e)
        try:
            import ctypes
            lib = ctypes.CDLL("libnvidia-ml.so.1")
            if lib.nvmlInit_v2() != 0:
                raise RuntimeError("nvmlInit_v2 failed")
            h = ctypes.c_void_p()
            rc = (lib.nvmlDeviceGetHandleByUUID(uuid.encode(), ctypes.byref(h)) if uuid else
                  lib.nvmlDeviceGetHandleByIndex_v2(dev.index or 0, ctypes.byref(h)))
            if rc != 0:
                raise RuntimeError("no NVML handle (%d)" % rc)
            buf = ctypes.create_string_buffer(96)
            if lib.nvmlSystemGetDriverVersion(buf, 96) == 0:
                self.driver = buf.value.decode()
            fn = getattr(lib, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
                lib.nvmlDeviceGetCurrentClocksThrottleReasons

            def rd():
                v = ctypes.c_uint()
                mhz = float(v.value) if lib.nvmlDeviceGetClockInfo(h, 1, ctypes.byref(v)) == 0 \
                    else None
                r = ctypes.c_ulonglong()
                if fn(h, ctypes.byref(r)) == 0:
                    return mhz, (1 if r.value & ~1 else 0), int(r.value)
                return mhz, -1, -1
            if rd()[0] is None:
                raise RuntimeError("nvmlDeviceGetClockInfo failed")
            self.read, self.source = rd, "nvml-ctypes"
            return
        except Exception as e:
            why.append("nvml-ctypes: %s" % e)
        try:
            torch.cuda.clock_rate(dev)

            def rd():
                return float(torch.cuda.clock_rate(dev)), -1, -1
            self.read, self.source = rd, "torch.cuda.clock_rate"
            return
        except Exception as e:
            why.append("torch.cuda.clock_rate: %s" % e)
        self.source = "absent (%s)" % "; ".join(why)


# The GPU's state at the unit's start and end, as the info keys the CUDA backend writes
# (docs/record-protocol.md, "GPU state"): the audit's gpu-* checks read them whatever the
# backend.  A field NVML cannot give is "unavailable", never left out.
GPU_STATE_FIELDS = ("gpu_name", "gpu_uuid", "driver", "sm_clock_mhz", "mem_clock_mhz",
                    "sm_clock_max_mhz", "temperature_c", "power_w", "power_limit_w",
                    "clock_event_reasons", "other_processes", "other_process_count")


def gpu_state_info(prefix, fields):
    """{prefix + field: value} for every field of GPU_STATE_FIELDS, from `fields` (a dict of
    what NVML gave, None for a read that failed); None for the whole: NVML unavailable,
    said once as prefix + "nvml" with the reason."""
    if isinstance(fields, str):
        return {prefix + "nvml": "unavailable (%s)" % fields}
    out = {}
    for k in GPU_STATE_FIELDS:
        v = fields.get(k)
        if v is None:
            v = "unavailable"
        elif k in ("power_w", "power_limit_w"):
            v = "%.3f" % v
        elif k == "clock_event_reasons":
            v = "0x%x" % v
        elif k == "other_processes":
            v = ",".join(str(p) for p in v)
        out[prefix + k] = v
    return out


def own_process(pid):
    """Whether pid is this unit's: this process or one in its process group (the harness
    starts each unit in a group of its own; Inductor's compile workers are in it)."""
    if pid == os.getpid():
        return True
    try:
        return os.getpgid(pid) == os.getpgrp()
    except OSError:
        return False


def read_gpu_state(uuid):
    """What NVML (libnvidia-ml.so.1 through ctypes) says of the GPU with this UUID
    ("GPU-..."): a dict for gpu_state_info, or a string saying why NVML cannot be read.
    Other processes: the GPU's compute processes that are not this unit's (own_process).
    Never raises: the state is provenance, and a unit does not fail for want of it."""
    try:
        return _read_gpu_state(uuid)
    except Exception as e:  # an NVML without a symbol, a ctypes error: say so, go on
        return "%s: %s" % (type(e).__name__, e)


def _read_gpu_state(uuid):  # pragma: no cover - the fields need a GPU driver
    import ctypes
    try:
        lib = ctypes.CDLL("libnvidia-ml.so.1")
        if lib.nvmlInit_v2() != 0:
            return "nvmlInit_v2 failed"
        h = ctypes.c_void_p()
        if lib.nvmlDeviceGetHandleByUUID(uuid.encode(), ctypes.byref(h)) != 0:
            return "NVML does not know %s" % uuid
    except (OSError, AttributeError) as e:
        return str(e)

    def text(fn, *args):
        buf = ctypes.create_string_buffer(256)
        return buf.value.decode() if fn(*args, buf, 256) == 0 else None

    def uint(fn, *args, kind=ctypes.c_uint):
        v = kind()
        return v.value if fn(h, *args, ctypes.byref(v)) == 0 else None

    class Proc(ctypes.Structure):  # nvmlProcessInfo_t (v2/v3)
        _fields_ = [("pid", ctypes.c_uint), ("used_memory", ctypes.c_ulonglong),
                    ("gpu_instance", ctypes.c_uint), ("compute_instance", ctypes.c_uint)]
    procs, n = None, ctypes.c_uint(64)
    arr = (Proc * 64)()
    fn = getattr(lib, "nvmlDeviceGetComputeRunningProcesses_v3", None)
    if fn is not None and fn(h, ctypes.byref(n), arr) == 0:
        procs = [arr[i].pid for i in range(min(n.value, 64)) if not own_process(arr[i].pid)]
    reasons = getattr(lib, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
        lib.nvmlDeviceGetCurrentClocksThrottleReasons
    mw = uint(lib.nvmlDeviceGetPowerUsage)
    lim = uint(lib.nvmlDeviceGetEnforcedPowerLimit)
    return {"gpu_name": text(lib.nvmlDeviceGetName, h), "gpu_uuid": text(lib.nvmlDeviceGetUUID, h),
            "driver": text(lib.nvmlSystemGetDriverVersion),
            "sm_clock_mhz": uint(lib.nvmlDeviceGetClockInfo, 1),
            "mem_clock_mhz": uint(lib.nvmlDeviceGetClockInfo, 2),
            "sm_clock_max_mhz": uint(lib.nvmlDeviceGetMaxClockInfo, 1),
            "temperature_c": uint(lib.nvmlDeviceGetTemperature, 0),
            "power_w": mw / 1000.0 if mw is not None else None,
            "power_limit_w": lim / 1000.0 if lim is not None else None,
            "clock_event_reasons": uint(reasons, kind=ctypes.c_ulonglong),
            "other_processes": procs,
            "other_process_count": len(procs) if procs is not None else None}


class BenchHook:
    """Counts and times Inductor's benchmarking: every outermost call of the benchmarking
    methods of torch._inductor.runtime.benchmarking's Benchmarker classes (used by
    select_algorithm's autotuning of extern/Triton choices, by CachingAutotuner when a
    kernel has several configs, and by coordinate descent)."""

    METHODS = ("benchmark", "benchmark_gpu", "benchmark_cpu", "benchmark_many_gpu")

    def __init__(self):
        self.calls = 0
        self.ns = 0
        self.hooked = []
        self._tls = threading.local()
        try:
            from torch._inductor.runtime import benchmarking as bm
        except Exception as e:
            self.hooked.append("none: %s" % e)
            return
        seen = set()
        classes = [c for c in vars(bm).values() if isinstance(c, type)]
        for cls in classes:
            for m in self.METHODS:
                f = cls.__dict__.get(m)
                if f is None or (cls, m) in seen or isinstance(f, (staticmethod, classmethod)):
                    continue
                seen.add((cls, m))
                setattr(cls, m, self._wrap(f))
                self.hooked.append("%s.%s" % (cls.__name__, m))

    def _wrap(self, f):
        hook = self

        def wrapped(*a, **k):
            depth = getattr(hook._tls, "depth", 0)
            hook._tls.depth = depth + 1
            t0 = time.monotonic_ns()
            try:
                return f(*a, **k)
            finally:
                hook._tls.depth = depth
                if depth == 0:
                    hook.calls += 1
                    hook.ns += time.monotonic_ns() - t0
        wrapped.__wrapped__ = f
        return wrapped


class CodeSink:
    """The output modules Inductor produces or loads from its cache: PyCodeCache's
    load_by_key_path is wrapped, so each compilation's wrapper module (the one with
    `def call(`) and its kernel modules are seen whether they were generated now or found
    in the FX graph cache.  `take()` returns and forgets what was seen since the last."""

    def __init__(self):
        self.items = []
        self.hooked = None
        try:
            from torch._inductor.codecache import PyCodeCache
            orig = PyCodeCache.load_by_key_path.__func__
            sink = self

            def load_by_key_path(cls, key, path, *a, **k):
                mod = orig(cls, key, path, *a, **k)
                sink.items.append((path, mod))
                return mod
            PyCodeCache.load_by_key_path = classmethod(load_by_key_path)
            self.hooked = "PyCodeCache.load_by_key_path"
        except Exception as e:
            self.hooked = "none: %s: %s" % (type(e).__name__, e)

    def take(self):
        items, self.items = self.items, []
        return items


def read_modules(items):
    """(wrapper sources, {kernel name: runtime config}) of the modules a compilation loaded.
    A kernel's runtime config is what its CachingAutotuner was left with after its first
    launches (one launcher after autotuning or coordinate descent)."""
    wrappers, rt = [], {}
    for path, mod in items:
        try:
            with open(path, encoding="utf-8") as f:
                src = f.read()
        except OSError:
            src = ""
        if "def call(" in src:
            wrappers.append(src)
        for k, v in list(vars(mod).items()):
            launchers = getattr(v, "launchers", None)
            if isinstance(launchers, list) and launchers:
                try:
                    rt[k] = "|".join(sorted(str(getattr(x, "config", x)) for x in launchers))
                except Exception:
                    pass
    return wrappers, rt


def resolved_config(icfg, cfg, torch):
    """The Inductor config the mode compiles with: the global config (with the mode's
    keys set) overlaid by torch.compile's options for the mode."""
    out = {}
    for k in sorted(set(RECORDED_CONFIG) | set(cfg["inductor"])):
        obj, leaf = icfg, k
        while "." in leaf:
            head, leaf = leaf.split(".", 1)
            obj = getattr(obj, head, None)
        out[k] = getattr(obj, leaf, "<absent>") if obj is not None else "<absent>"
    if cfg["compile"]:
        try:
            mo = torch._inductor.list_mode_options(cfg["torch_mode"])
        except Exception as e:
            mo = {"<list_mode_options failed>": str(e)}
        for k, v in mo.items():
            out[k] = v
        out["<mode_options>"] = sorted(mo)
    return out


def counters_snapshot(dutils):
    return {k: dict(v) for k, v in dutils.counters.items()}


def time_metrics(dutils):
    m = getattr(dutils, "compilation_time_metrics", {}) or {}
    return {k: float(sum(v)) for k, v in m.items()}


def make_data(torch, desc, gen):
    """A fresh argument like the captured one (tensors random in [0.5, 1.5) with the
    captured shape, strides and dtype: positive, so batch-norm variances stay valid)."""
    if isinstance(desc, tuple) and len(desc) == 4 and desc[0] == "T":
        _, shape, stride, dt = desc
        dtype = getattr(torch, dt)
        t = torch.empty_strided(shape, stride, dtype=dtype, device="cuda")
        if dtype.is_floating_point:
            t.uniform_(0.5, 1.5, generator=gen)
        elif dtype == torch.bool:
            t.fill_(True)
        else:
            t.fill_(1)
        return t
    if isinstance(desc, list):
        return [make_data(torch, d, gen) for d in desc]
    return desc


def capture_ops(torch, model, x):
    """The aten ops the eager forward dispatches, in order of first appearance, each with
    its count: a list of (op name, OpOverload to run, args description, kwargs description,
    count).  What counts as an op: every call that reaches TorchDispatchMode (below
    autograd and the CompositeImplicit decompositions), except views (an output that
    aliases an input without writing it) and calls without a tensor argument; an in-place
    op (relu_, add_) is recorded as its functional form (relu, add)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    def desc(v):
        if isinstance(v, torch.Tensor):
            return ("T", tuple(v.shape), tuple(v.stride()), str(v.dtype).replace("torch.", ""))
        if isinstance(v, (list, tuple)):
            return [desc(a) for a in v]
        if isinstance(v, (torch.dtype, torch.device, torch.layout, torch.memory_format)):
            return v
        return v

    seen = {}
    order = []

    class Rec(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            try:
                sch = func._schema
                rets = [r.alias_info for r in sch.returns]
                if any(a is not None and not a.is_write for a in rets):
                    return out  # a view
                if not any(isinstance(a, torch.Tensor) for a in
                           list(args) + [y for a in args if isinstance(a, (list, tuple))
                                         for y in a]):
                    return out
                name = sch.name.split("::")[-1]
                ovl = func._overloadname
                run = func
                if any(a is not None and a.is_write for a in rets) and name.endswith("_") \
                        and not name.endswith("__"):
                    fn = getattr(torch.ops.aten, name[:-1], None)
                    if fn is not None and hasattr(fn, ovl):
                        name, run = name[:-1], getattr(fn, ovl)
                op = name if ovl == "default" else "%s.%s" % (name, ovl)
                a, k = desc(list(args)), {kk: desc(vv) for kk, vv in kwargs.items()}
                key = repr((op, a, sorted(k.items())))
                if key in seen:
                    seen[key][4] += 1
                else:
                    seen[key] = [op, run, a, k, 1]
                    order.append(key)
            except Exception as e:  # never lose the forward over bookkeeping
                print("torch worker: capture: %s: %s" % (func, e), file=sys.stderr)
            return out

    with torch.no_grad(), Rec():
        model(x)
    torch.cuda.synchronize()
    return [tuple(seen[k]) for k in order]


_OP_FUNCTIONS = [0]


def op_function(run):
    """A function calling one op, with a code object (and file name) of its own: Dynamo
    caches compiled code per code object, and remembers which sizes changed per file name
    and line (automatic dynamic shapes), so sharing one would recompile with symbolic
    shapes, or hit the recompile limit and fall back to eager without a word."""
    _OP_FUNCTIONS[0] += 1
    ns = {"OP": run}
    exec(compile("def op_cell(args, kwargs):\n    return OP(*args, **kwargs)\n",
                 "<op %d %s>" % (_OP_FUNCTIONS[0], run), "exec"), ns)
    return ns["op_cell"]


BUSY_CYCLES = 200000  # the least spin before an op cell's sample: ~100 us at 1.98 GHz
BUSY_MAX_CYCLES = 40000000  # the most: ~20 ms at 1.98 GHz
BUSY_HOST_FACTOR = 3  # the spin: this many times the warm-up's 90th-percentile host call
BUSY_CLOCK_MHZ = 2000.0  # the SM clock assumed where none is read (above the H100's 1980)


def busy_cycles(host_ns, clock_mhz, least=BUSY_CYCLES, most=BUSY_MAX_CYCLES):
    """The GPU spin (torch.cuda._sleep cycles) before an op cell's sample: BUSY_HOST_FACTOR
    times the 90th percentile (nearest rank) of the warm-up's host calls (host_ns: each
    call's time from its start to its return, while the GPU runs ahead), in cycles of
    clock_mhz (BUSY_CLOCK_MHZ when None or not positive; a slower clock only lengthens the
    spin), within [least, most].  Long enough that the call's kernels are queued before the
    spin ends, in a process whose Python and launch path is slow too (docs/torch-worker.md,
    "Timing")."""
    if not clock_mhz or not clock_mhz > 0:
        clock_mhz = BUSY_CLOCK_MHZ
    if not host_ns:
        return least
    h = sorted(host_ns)
    p90 = h[min(len(h) - 1, max(0, -(-9 * len(h) // 10) - 1))]
    return int(max(least, min(most, BUSY_HOST_FACTOR * p90 * clock_mhz / 1e3)))


def measure(torch, fn, ms, flush, clock, busy=0):
    """Warm-up by count and time, then samples of one call each timed with CUDA events
    (the L2 flushed before each sample when `flush` is a buffer), the SM clock after each.
    busy > 0: the GPU spins before the start event (torch.cuda._sleep), so the call's
    kernels are queued while it spins and the events time the device's work rather than the
    Python and launch overhead between them (op cells; an e2e sample keeps that overhead: it
    is part of a forward's latency).  The spin is busy_cycles(the warm-up calls' host times,
    the SM clock), at least busy cycles; each sample's host time (from the spin's launch to
    the call's return) is kept, and a sample whose host time outlasts the spin is late (its
    events timed host work too).
    Returns (ns, clocks, throttles, clock_reasons, stop, warmup_n, warmup_ns, spin): spin
    None without busy, else {"cycles", "spin_ns", "host_ns": [per sample], "late"}."""
    n_w, w0 = 0, time.monotonic_ns()
    host = []
    while n_w < ms.get("warmup_count", 0) or \
            time.monotonic_ns() - w0 < ms.get("warmup_s", 0) * 1e9:
        h0 = time.perf_counter_ns()
        fn()
        host.append(time.perf_counter_ns() - h0)
        n_w += 1
        if n_w % 8 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    warm_ns = time.monotonic_ns() - w0
    spin = None
    if busy:
        mhz = clock.read()[0]
        cycles = busy_cycles(host[-64:], mhz, least=busy)
        spin = {"cycles": cycles, "host_ns": [], "late": 0,
                "spin_ns": int(cycles * 1e3 / (mhz if mhz and mhz > 0 else BUSY_CLOCK_MHZ))}
        busy = cycles
    ns, clocks, thr, reasons = [], [], [], []
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s0 = time.monotonic_ns()
    stop = "max-samples"
    while len(ns) < ms["max_samples"]:
        if len(ns) >= ms["min_samples"] and time.monotonic_ns() - s0 >= ms["max_time_s"] * 1e9:
            stop = "max-time"
            break
        if flush is not None:
            flush.add_(1)
        h0 = time.perf_counter_ns()
        if busy:
            torch.cuda._sleep(busy)
        a.record()
        fn()
        if spin is not None:
            h = time.perf_counter_ns() - h0
            spin["host_ns"].append(h)
            spin["late"] += h > spin["spin_ns"]
        b.record()
        b.synchronize()
        ns.append(max(0, int(round(a.elapsed_time(b) * 1e6))))
        c, t, r = clock.read()
        clocks.append(c)
        thr.append(t)
        reasons.append(r)
    return ns, clocks, thr, reasons, stop, n_w, warm_ns, spin


def spin_note(spin):
    """The `spin.<cell>` note of an op cell's samples (docs/torch-worker.md, "Timing")."""
    h = sorted(spin["host_ns"]) or [0]
    return "busy_cycles=%d spin_us=%.1f host_us_p50=%.1f host_us_max=%.1f late=%d of %d" % (
        spin["cycles"], spin["spin_ns"] / 1e3, h[(len(h) - 1) // 2] / 1e3, h[-1] / 1e3,
        spin["late"], len(spin["host_ns"]))


def run(spec, u):  # pragma: no cover - needs PyTorch and a GPU
    cfg = resolve_mode(spec)
    workloads = parse_workloads(spec)
    torch, torchvision = import_torch()
    import torch._dynamo
    import torch._dynamo.utils as dutils
    import torch._inductor.config as icfg

    ms = dict(spec["measure"])
    if "warmup_s" in (spec.get("options") or {}):
        ms["warmup_s"] = float(spec["options"]["warmup_s"])
    cache_dir = spec.get("cache_dir")
    for k, v in cfg["inductor"].items():
        obj, leaf = icfg, k
        while "." in leaf:
            head, leaf = leaf.split(".", 1)
            obj = getattr(obj, head, None)
        if obj is None or not hasattr(obj, leaf):
            raise SpecError("options.inductor: Inductor has no config key '%s'" % k)
        setattr(obj, leaf, v)
    # every graph compiled with static shapes (op cells would otherwise turn dynamic)
    torch._dynamo.config.automatic_dynamic_shapes = False
    for key in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit",
                "accumulated_cache_size_limit"):
        if hasattr(torch._dynamo.config, key):
            setattr(torch._dynamo.config, key, 256)
    thr_calls = None
    info = {}
    if cfg["threshold"] is not None:
        info["coordinate_descent_threshold"], thr_calls = apply_threshold(cfg["threshold"])
    bench = BenchHook()
    sink = CodeSink()
    dev = torch.device("cuda", torch.cuda.current_device())
    props = torch.cuda.get_device_properties(dev)
    clock = Clock(torch, dev)
    uuid = "GPU-" + str(getattr(props, "uuid", ""))
    u.info(gpu_state_info("gpu_open_", read_gpu_state(uuid)))
    info.update({"torch": torch.__version__, "torchvision": torchvision.__version__,
                 "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
                 "gpu": props.name, "gpu_capability": "%d.%d" % (props.major, props.minor),
                 "gpu_uuid": getattr(props, "uuid", ""), "driver": clock.driver,
                 "python": sys.version.split()[0], "compile_mode": cfg["name"],
                 "torch_compile_mode": cfg["torch_mode"], "clock_source": clock.source,
                 "benchmark_hooks": ",".join(bench.hooked), "code_hook": sink.hooked,
                 "warm": spec.get("warm", False),
                 "op_sample_busy_cycles_least": BUSY_CYCLES,
                 "op_sample_busy_host_factor": BUSY_HOST_FACTOR, "dynamic": False})
    try:
        import triton
        info["triton"] = triton.__version__
    except Exception as e:
        info["triton"] = "not importable: %s" % e
    info["inductor_config"] = repr(resolved_config(icfg, cfg, torch))
    u.info(info)
    l2 = int(getattr(props, "L2_cache_size", 50 * 2**20) or 50 * 2**20)
    flush = torch.zeros(2 * l2 // 4, dtype=torch.float32, device=dev) if ms.get("flush") \
        else None
    setup = {"first_ns": 0, "dynamo_ns": 0, "inductor_ns": 0}
    notes = {}
    gen = torch.Generator(device="cuda")

    def compiled(fn):
        if not cfg["compile"]:
            return fn
        return torch.compile(fn, mode=cfg["torch_mode"], dynamic=False)

    def run_cell(cid, fn, label, busy=0):
        """First call (compile), warm-up, samples; the choice and setup of the cell."""
        tm0 = time_metrics(dutils)
        b0n, b0 = bench.ns, bench.calls
        sink.take()
        t0 = time.monotonic_ns()
        with torch.no_grad():
            fn()
            torch.cuda.synchronize()
            first = time.monotonic_ns() - t0
            ns, clocks, thr, reasons, stop, n_w, warm_ns, spin = measure(torch, fn, ms, flush,
                                                                         clock, busy)
        tm1 = time_metrics(dutils)
        d = {k: tm1[k] - tm0.get(k, 0.0) for k in tm1 if tm1[k] - tm0.get(k, 0.0) > 0}
        total = d.get("_compile.compile_inner", 0.0)
        backend = d.get("OutputGraph.call_user_compiler", 0.0)
        setup["first_ns"] += first
        setup["dynamo_ns"] += int(max(total - backend, 0.0) * 1e9)
        setup["inductor_ns"] += int(backend * 1e9)
        wrappers, rt = read_modules(sink.take())
        conf = choice_config(cfg["compile"], wrappers, rt, cache_dir)
        u.samples(cid, ns, clock_mhz=clocks, throttle=thr, clock_reasons=reasons)
        u.measure(cid, stop=stop, warmup_n=n_w, warmup_ns=warm_ns)
        u.choice(cid, conf, choice_reason(conf))
        notes["cell.%s" % label] = "first_call_ms=%.1f bench_calls=%d bench_ms=%.1f %s" % (
            first / 1e6, bench.calls - b0, (bench.ns - b0n) / 1e6,
            " ".join("%s=%.3fs" % kv for kv in sorted(d.items())))
        if spin is not None:
            notes["spin.%s" % label] = spin_note(spin)
        if cfg["compile"] and rt:
            notes["runtime.%s" % label] = ";".join("%s=%s" % kv for kv in sorted(rt.items()))
        for i, wsrc in enumerate(wrappers):
            s = summarize_wrapper(wsrc)
            notes["kernels.%s.%d" % (label, i)] = "extern=%s triton=%s templates=%s hash=%s" % (
                ",".join(s["extern"]), ",".join(s["triton"]),
                ";".join("%s{%s}" % kv for kv in sorted(s["templates"].items())),
                code_hash(normalize_code(wsrc, cache_dir)))

    n_ops = 0
    for w in workloads:
        dtype = getattr(torch, w["dtype"])
        torch.backends.cuda.matmul.allow_tf32 = w["tf32"]
        torch.backends.cudnn.allow_tf32 = w["tf32"]
        torch.manual_seed(int(spec["seed"]))
        gen.manual_seed(int(spec["seed"]))
        ctor = getattr(torchvision.models, w["model"], None)
        if ctor is None:
            raise SpecError("workload '%s': torchvision.models has no '%s'" %
                            (w["name"], w["model"]))
        model = ctor(weights=None).to(dev, dtype).eval()
        x = torch.randn(w["batch"], 3, w["resolution"], w["resolution"], device=dev,
                        dtype=dtype, generator=gen)
        if w["channels_last"]:
            model = model.to(memory_format=torch.channels_last)
            x = x.to(memory_format=torch.channels_last)
        ops = capture_ops(torch, model, x) if w["per_op"] else []
        name, shape = e2e_cell(w)
        c = u.cell(name, kind="e2e", workload=w["name"], op="e2e", shape=shape)
        fm = compiled(model)
        run_cell(c, lambda: fm(x), name)
        del fm
        for op, fn_op, adesc, kdesc, count in ops:
            cname, cshape = op_cell(w["name"], op, adesc, kdesc, w["dtype"])
            args = make_data(torch, adesc, gen)
            kwargs = {k: make_data(torch, v, gen) for k, v in kdesc.items()}
            c = u.cell(cname, kind="op", workload=w["name"], op=op.split(".")[0],
                       shape=cshape, count=count)
            f = compiled(op_function(fn_op))
            run_cell(c, lambda f=f, args=args, kwargs=kwargs: f(args, kwargs), cname,
                     BUSY_CYCLES)
            n_ops += 1
            del f, args, kwargs
        del model, x
        torch.cuda.empty_cache()
    counters = counters_snapshot(dutils)
    ind = counters.get("inductor", {})
    compiles = int(ind.get("fxgraph_cache_miss", 0)) + int(ind.get("fxgraph_cache_bypass", 0))
    hits = int(ind.get("fxgraph_cache_hit", 0))
    notes.update({"counters": repr(counters), "cache_bytes": dir_size(cache_dir or "."),
                  "bench_calls": bench.calls, "bench_ns": bench.ns,
                  "dynamo_ns": setup["dynamo_ns"], "inductor_ns": setup["inductor_ns"],
                  "first_calls_ns": setup["first_ns"], "op_cells": n_ops,
                  "compiles_counted": "fxgraph_cache_miss+fxgraph_cache_bypass",
                  "cache_hits_counted": "fxgraph_cache_hit"})
    if thr_calls is not None:
        notes["threshold_calls"] = thr_calls["calls"]
    u.info(notes)
    u.info(gpu_state_info("gpu_close_", read_gpu_state(uuid)))
    u.setup(compile_ns=max(setup["first_ns"] - bench.ns, 0), tune_ns=bench.ns,
            compiles=compiles, cache_hits=hits, benchmarks=bench.calls)


def dir_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


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
    except Exception as e:  # PyTorch's own errors: the unit fails with them, traceback kept
        import traceback
        traceback.print_exc()
        u.done("failed", "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
        return 0
    u.done("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

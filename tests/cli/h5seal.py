"""h5seal.py: a results file's digests (docs/results-format.md, "Digests") computed with h5py
alone, no harness code: the reference the harness's own (harness/record/recorder-seal.c) is
tested against, and the forger that rewrites them (tests/cli/tamper.sh)."""
import hashlib
import struct

import numpy as np

# the per-unit tables a (unit, cell) part covers, in the order they are hashed
PART_TABLES = ["/trials", "/choices", "/measures", "/samples", "/trial_samples", "/spaces",
               "/space_values", "/space_vendors", "/space_invalid"]


def _i64(v):
    return struct.pack("<q", int(v))


def _str(b):
    if isinstance(b, str):
        b = b.encode()
    b = bytes(b).rstrip(b"\0")
    return _i64(len(b)) + b


def _value(v, kind):
    if kind == "S":
        return _str(v)
    if kind == "f":
        return struct.pack("<d", float(v))
    return _i64(v)


# fields added after files were sealed: a row's digest has one only when it is not this
# default, so files sealed before it verify as they did (recorder-int.h's FD)
SEALED_LATER = {("/space_invalid", "count"): 1}


def _row(name, arr, i, skip=(), trial=None):
    out = [_str(name)]
    for k in arr.dtype.names:
        if k in skip:
            continue
        if (name, k) in SEALED_LATER and int(arr[k][i]) == SEALED_LATER[(name, k)]:
            continue
        if k == "trial" and trial is not None:
            out.append(_i64(trial))
            continue
        out.append(_value(arr[k][i], arr.dtype[k].kind))
    return b"".join(out)


def parts(f):
    """{(unit, cell): sha256 hex}: cell -1 is the unit's row of /units."""
    h = {}
    units = f["units"][:]
    for u in range(len(units)):
        h[(u, -1)] = hashlib.sha256(_row("/units", units, u))
    trials = f["trials"][:]
    first = {}
    for i in range(len(trials)):
        first.setdefault(int(trials["unit"][i]), i)
    for name in PART_TABLES:
        if name[1:] not in f:
            continue
        arr = f[name[1:]][:]
        for i in range(len(arr)):
            u = int(arr["unit"][i])
            trial = None
            if name == "/trial_samples":
                t = int(arr["trial"][i])
                c, trial = int(trials["cell"][t]), t - first[u]
            else:
                c = int(arr["cell"][i])
            h.setdefault((u, c), hashlib.sha256()).update(
                _row(name, arr, i, skip=("unit", "cell"), trial=trial))
    return {k: h[k].hexdigest() for k in sorted(h)}


def record(f, p=None):
    """The record digest over /run, /run/files, /plan, /cells and the parts p."""
    p = parts(f) if p is None else p
    r = hashlib.sha256(_str("harness-record-digest 1"))
    run = f["run"]
    for k in run.attrs.keys():  # h5py keeps the group's tracked creation order
        r.update(_str("meta") + _str(k) + _str(run.attrs[k]))
    for name in sorted(f["run/files"].keys()):
        d = f["run/files"][name]
        a = d.attrs
        text = bytes(d[()])
        if text == b"":
            text = b""
        r.update(_str("file") + _str(a["role"]) + _str(a["path"]) + _str(a["sha256"]))
        r.update(_i64(len(text)) + text)
    for name in ("plan", "cells"):
        arr = f[name][:]
        for i in range(len(arr)):
            r.update(_row("/" + name, arr, i))
    for (u, c), hexd in p.items():
        r.update(_str("part") + _i64(u) + _i64(c) + bytes.fromhex(hexd))
    return r.hexdigest()


def forge(f):
    """Rewrite /digests and record_sha256 so that they match the content as it is."""
    p = parts(f)
    rows = np.array([(u, c, h.encode()) for (u, c), h in p.items()], dtype=f["digests"].dtype)
    del f["digests"]
    f.create_dataset("digests", data=rows, chunks=True, fletcher32=True, maxshape=(None,))
    f.attrs.modify("record_sha256", np.bytes_(record(f, p)))

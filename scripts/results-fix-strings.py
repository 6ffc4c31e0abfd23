#!/usr/bin/python3
"""results-fix-strings.py: rewrite a layout 2 results file written before layout 2 lost its
variable-length strings (harness before issue 9) into layout 2 as harness writes it now:
fixed-length UTF-8 strings as wide as the longest value, HDF5's latest format, every table
chunked with Fletcher32 (and /samples, /trial_samples and the space value tables deflated).
Row contents, field order, attributes and their order are kept.

usage: results-fix-strings.py IN.h5 OUT.h5"""
import sys
import h5py
import numpy as np

DEFLATE = {"samples", "trial_samples", "space_values", "space_vendors", "space_invalid"}


def fixed(v):
    if isinstance(v, str):
        v = v.encode("utf-8")
    return np.bytes_(v if v else b"\0")


def fix_dtype(dt, arr):
    fields = []
    for name in dt.names:
        sub = dt.fields[name][0]
        if h5py.check_string_dtype(sub) is not None and sub.kind == "O":
            width = max([len(x if isinstance(x, bytes) else x.encode()) for x in arr[name]] + [0]) + 1
            fields.append((name, h5py.string_dtype("utf-8", width)))
        else:
            fields.append((name, sub))
    return np.dtype(fields)


def copy_attrs(src, dst):
    for k in src.attrs.keys():  # creation order where tracked
        v = src.attrs[k]
        if isinstance(v, (str, bytes)):
            dst.attrs.create(k, fixed(v), dtype=h5py.string_dtype("utf-8", max(len(fixed(v)), 1)))
        else:
            dst.attrs[k] = v


def main(inp, out):
    with h5py.File(inp, "r") as f, h5py.File(out, "w", libver="latest", track_order=True) as g:
        copy_attrs(f, g)
        run = g.create_group("run", track_order=True)
        copy_attrs(f["run"], run)
        files = run.create_group("files", track_order=True)
        for k in f["run/files"]:
            d = f["run/files"][k]
            nd = files.create_dataset(k, data=d[()])
            copy_attrs(d, nd)
        for name, d in f.items():
            if name == "run":
                continue
            arr = d[:]
            dt = fix_dtype(d.dtype, arr)
            new = np.empty(len(arr), dtype=dt)
            for n in dt.names:
                col = arr[n]
                if dt.fields[n][0].kind == "S":
                    col = [x if isinstance(x, bytes) else x.encode() for x in col]
                new[n] = col
            g.create_dataset(name, data=new, maxshape=(None,), chunks=(max(1, min(len(new), 2048)),),
                             fletcher32=True, shuffle=name in DEFLATE,
                             compression="gzip" if name in DEFLATE else None,
                             compression_opts=1 if name in DEFLATE else None)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

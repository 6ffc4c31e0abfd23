"""h5util.py: read a harness results file with h5py alone (no harness code), for the CLI
tests.  Tables may be compound datasets or groups of equal-length columns."""
import h5py


def _dec(v):
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if hasattr(v, "item"):
        return v.item()
    return v


def _long(f, name):
    """The whole values of table name's strings cut in their rows (docs/results-format.md,
    "Long strings": 65,536 bytes or more, a unit's info), by (row, field)."""
    if "long_strings" not in f:
        return {}
    ls, lb = f["long_strings"][:], f["long_bytes"][:].tobytes()
    want = "/" + name.lstrip("/")
    return {(int(r["row"]), _dec(r["field"])): lb[r["first"]:r["first"] + r["bytes"]].decode()
            for r in ls if _dec(r["table"]) == want}


def table(f, name):
    obj = f[name]
    if isinstance(obj, h5py.Dataset):
        arr = obj[:]
        rows = [{k: _dec(r[k]) for k in arr.dtype.names} for r in arr]
    else:
        cols = {k: obj[k][:] for k in obj.keys() if isinstance(obj[k], h5py.Dataset)}
        if not cols:
            return []
        n = len(next(iter(cols.values())))
        rows = [{k: _dec(cols[k][i]) for k in cols} for i in range(n)]
    for (i, k), v in _long(f, name).items():
        rows[i][k] = v
    return rows


def infos(units):
    """Each unit's info records as a dict of their key=value lines."""
    return [dict(l.split("=", 1) for l in (u["info"] or "").splitlines() if "=" in l)
            for u in units]


def meta(f):
    return {k: _dec(v) for k, v in f["run"].attrs.items()}


class Checker:
    def __init__(self, name):
        self.name, self.fails = name, 0

    def check(self, cond, what):
        if cond:
            print("ok:", what)
        else:
            print("FAIL: %s: %s" % (self.name, what))
            self.fails += 1

    def exit(self):
        raise SystemExit(1 if self.fails else 0)

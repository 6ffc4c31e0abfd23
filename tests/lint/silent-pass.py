"""tests/lint/silent-pass.py: find CLI checks that cannot fail.

A check written `COND && pass "what"` with no `|| fail` passes when COND holds and says
nothing when it does not: the test goes on green.  Every `&& pass` must either follow only
helpers that record their own failure (expect_status, expect_grep, expect_*) or end in a
failing branch (`|| fail ...`).  tests/setup's `check DESC CMD` does both at once.  Prints
FILE:LINE: STATEMENT for each offender and exits 1 when there is one (tests/cli/lint.sh).
"""
import re
import sys


def statements(lines):
    """Logical shell statements: lines ending in &&, ||, | or \\ continue."""
    buf, start = "", 0
    for i, line in enumerate(lines, 1):
        if not buf:
            start = i
        buf += line.rstrip("\n") + "\n"
        if line.rstrip().endswith(("&&", "||", "|", "\\")):
            continue
        yield start, buf
        buf = ""
    if buf:
        yield start, buf


def without_heredocs(lines):
    out, tag = [], None
    for line in lines:
        if tag:
            out.append("\n")
            if line.strip() == tag:
                tag = None
            continue
        m = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", line)
        if m and not line.lstrip().startswith("#"):
            tag = m.group(1)
        out.append(line)
    return out


def main(paths):
    bad = 0
    for path in sorted(paths):
        for no, st in statements(without_heredocs(open(path).readlines())):
            if st.lstrip().startswith("#"):
                continue
            code = re.sub(r"#[^\n]*", "", st)
            i = code.rfind("&& pass")
            if i < 0 or "||" in code[i:]:
                continue
            flat = re.sub(r"'[^']*'", "''", re.sub(r"\\\s*\n", " ", code[:i]))
            conj = [c.strip() for c in flat.split("&&") if c.strip()]
            if all(re.match(r"expect_\w+\b", c) for c in conj):
                continue
            bad += 1
            print("%s:%d: %s" % (path, no, " ".join(st.split())[:160]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

# tests/cli/plot.sh: `harness plot` (png, svg, pdf) and `harness report --format html` on the
# synthetic data with known effects (tests/data/report/synthetic.csv): every documented
# figure is written and valid (docs/plots.md), the results file is left as it was, the HTML
# report is self-contained and, rendered by headless Chromium, holds every figure and the
# verdict table; and the error paths.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
command -v gnuplot >/dev/null 2>&1 || skip "gnuplot is needed (Debian: gnuplot-nox)"
$PY -c 'import xml.etree.ElementTree' 2>/dev/null || skip "/usr/bin/python3 is needed"
export HARNESS_PLOT_DIR="$top_srcdir/plots"
SYN="$DATA/report/synthetic.csv"
expect_status 0 h import --csv "$SYN" -o syn.h5 && pass "import the synthetic raw timings"
sum_before=$(sha256sum syn.h5)

# the figures every run of this data must give (docs/plots.md: file names): the default set
# (at most a dozen, and index.md), and with --all every cell's figures and the forest plot's
# pages of every comparison
FIGS="forest cell-net_e2e pareto-net_e2e drift op-e2e composition cdf-net_e2e"
ALLFIGS="$FIGS cell-net_sgemm_m_64 cell-net_conv2d_c_8 pareto-net_sgemm_m_64 pareto-net_conv2d_c_8
forest-all-1"

# check_figs DIR EXT [all]: every expected figure is in DIR, listed on stdout, valid for its
# format; DIR/index.md lists each
check_figs() {
	dir=$1 ext=$2 figs=$FIGS want=8
	[ "${3:-}" = all ] && figs=$ALLFIGS want=13
	for f in $figs; do
		[ -s "$dir/$f.$ext" ] || { fail "$ext: $dir/$f.$ext missing or empty"; continue; }
		grep -qx "$dir/$f.$ext" "$SCRATCH/out" || fail "$ext: '$dir/$f.$ext' not listed on stdout"
		grep -q "^- \[$f.$ext\]($f.$ext): ." "$dir/index.md" || fail "$ext: $dir/index.md does not list $f.$ext"
	done
	grep -qx "$dir/index.md" "$SCRATCH/out" || fail "$ext: index.md not listed on stdout"
	n=$(ls "$dir" | wc -l)
	[ "$n" -eq $want ] || fail "$ext: $n files in $dir, wanted $want: $(ls "$dir")"
	$PY - "$dir" "$ext" <<'PYEOF' || fail "$ext: a figure is not a valid $ext file"
import os, struct, sys
import xml.etree.ElementTree as ET
d, ext = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(d)):
    if name == "index.md":
        continue
    p = os.path.join(d, name)
    b = open(p, "rb").read()
    if ext == "png":
        assert b[:8] == b"\x89PNG\r\n\x1a\n", (name, "not a PNG")
        assert b[12:16] == b"IHDR", (name, "no IHDR")
        w, h = struct.unpack(">II", b[16:24])
        assert (w, h) == (1200, 800), (name, w, h)
    elif ext == "svg":
        root = ET.fromstring(b)
        assert root.tag == "{http://www.w3.org/2000/svg}svg", (name, root.tag)
        assert root.get("width") == "1200" and root.get("height") == "800", (name, root.attrib)
        assert len(list(root.iter("{http://www.w3.org/2000/svg}path"))) > 5, (name, "no drawing")
    else:
        assert b[:5] == b"%PDF-" and b"%%EOF" in b[-1024:], (name, "not a PDF")
PYEOF
}

expect_status 0 h plot --baseline base -o png syn.h5 && pass "plot png"
check_figs png png
expect_grep "not drawn: trace" "$SCRATCH/err"
expect_status 0 h plot --baseline base --format svg -o svg syn.h5 && pass "plot svg"
check_figs svg svg
grep -q "the cell and Pareto figures of 2 more cells" svg/index.md &&
	grep -q "not drawn\|Not drawn" svg/index.md && pass "index.md: what the default set left out, what was not drawn" ||
	fail "index.md lacks what was left out: $(cat svg/index.md)"
expect_status 0 h plot --baseline base --all -f svg -o svgall syn.h5 && pass "plot --all"
check_figs svgall svg all
expect_status 0 h plot --baseline base -f pdf -o pdf syn.h5 && pass "plot pdf"
check_figs pdf pdf
# default folder: the results file's name without .h5, plus -plots
expect_status 0 h plot --baseline base syn.h5 && [ -s syn-plots/forest.png ] &&
	pass "default folder syn-plots/" || fail "no syn-plots/forest.png"
# --cell picks the distribution figure's cell
expect_status 0 h plot --baseline base --cell 'net/sgemm:m=64' -o cellopt syn.h5 &&
	[ -s cellopt/cdf-net_sgemm_m_64.png ] && [ ! -e cellopt/cdf-net_e2e.png ] &&
	pass "--cell chooses the CDF's cell" || fail "--cell did not choose the CDF's cell"
[ "$(sha256sum syn.h5)" = "$sum_before" ] && pass "the results file is unchanged" ||
	fail "plotting modified the results file"
# the forest plot shows the baseline's name and every verdict present in the data
grep -q "Ratio to the baseline 'base'" svg/forest.svg && grep -q "INCONCLUSIVE" svg/forest.svg &&
	pass "forest: title and verdict legend" || fail "forest.svg lacks its title or legend"
grep -q "7 of 9 comparisons: 2 INCONCLUSIVE left out" svg/forest.svg && grep -q "noisy" svgall/forest-all-1.svg &&
	pass "forest: the default leaves the undecided out and says so; --all's page has them" ||
	fail "forest: the left-out count or the page of every comparison"

# errors: nothing drawn, a message naming the problem
expect_status 2 h plot missing.h5 && expect_grep "missing.h5" "$SCRATCH/err" && pass "missing file"
expect_status 2 h plot --format gif syn.h5 && expect_grep "format must be png, svg or pdf, not 'gif'" "$SCRATCH/err" &&
	pass "bad --format"
expect_status 2 h plot --cell nosuch syn.h5 &&
	expect_grep "no cell 'nosuch' \(cells: 'net/sgemm:m=64', 'net/conv2d:c=8', 'net/e2e'\)" "$SCRATCH/err" &&
	pass "unknown --cell lists the cells"
expect_status 2 h plot --baseline nosuch syn.h5 && expect_grep "nosuch" "$SCRATCH/err" && pass "unknown --baseline"
expect_status 1 env HARNESS_GNUPLOT=/nonexistent/gnuplot $HARNESS_CMD plot -o nognuplot syn.h5 &&
	expect_grep "gnuplot not found.*Debian package gnuplot-nox" "$SCRATCH/err" && pass "gnuplot missing"
expect_status 1 env HARNESS_PLOT_DIR=/nonexistent $HARNESS_CMD plot -o notemplates syn.h5 &&
	expect_grep "cannot read the plot template '/nonexistent/forest.gp'" "$SCRATCH/err" && pass "templates missing"
expect_status 2 h plot && expect_grep "usage: harness plot" "$SCRATCH/err"

# ---- drawn aside, renamed in whole, never through a symlink (issue 9, item 12) ---------
# no_private DIR: plot left no private folder (DIR/.plot.XXXXXX) behind
no_private() {
	set -- "$1"/.plot.*
	[ ! -e "$1" ] || fail "a private folder is left: $1"
}
# A symlink planted under a figure's name is replaced itself; its target is untouched.
mkdir planted
echo precious >target.txt
ln -s ../target.txt planted/forest.svg
ln -s ../no-such-file planted/drift.svg
if expect_status 0 h plot --baseline base -f svg -o planted syn.h5; then
	[ "$(cat target.txt)" = precious ] && [ ! -e no-such-file ] &&
		pass "plot: a planted symlink's target is untouched" ||
		fail "plot wrote through a planted symlink"
	[ -f planted/forest.svg ] && [ -s planted/forest.svg ] && [ ! -L planted/forest.svg ] &&
		[ -f planted/drift.svg ] && [ ! -L planted/drift.svg ] &&
		pass "plot: the symlinks were replaced by the figures" || fail "planted/forest.svg is not a figure"
	no_private planted
fi

# gnuplot failing part way leaves the folder as it was: killed inside a write (a file size
# limit, SIGXFSZ), its writes failing while it exits 0 (the limit with SIGXFSZ ignored, as
# on a full disk: gnuplot does not notice, the figure is cut short), a figure emptied or cut
# after it exits 0.  HARNESS_GNUPLOT runs it through a wrapper (gnuplot gets no PATH).
GNUPLOT=$(command -v gnuplot)
wrap() { printf '#!/bin/sh\n%s\n' "$2" >"$SCRATCH/gp-$1.sh" && chmod +x "$SCRATCH/gp-$1.sh"; }
wrap kill "ulimit -f 16
exec $GNUPLOT \"\$@\""
wrap efbig "trap '' XFSZ
ulimit -f 16
exec $GNUPLOT \"\$@\""
wrap empty "$GNUPLOT \"\$@\" || exit
: >forest.svg"
wrap cut "$GNUPLOT \"\$@\" || exit
/usr/bin/truncate -s 3000 drift.svg"
cp -R svg svg-before
for w in kill efbig empty cut; do
	if expect_status 1 env HARNESS_GNUPLOT="$SCRATCH/gp-$w.sh" $HARNESS_CMD plot --baseline base -f svg -o svg syn.h5; then
		case $w in
		kill) expect_grep "gnuplot .* failed \(signal 25\)" "$SCRATCH/err" ;;
		empty) expect_grep "gnuplot did not write 'svg/forest.svg' whole" "$SCRATCH/err" ;;
		cut) expect_grep "gnuplot did not write 'svg/drift.svg' whole" "$SCRATCH/err" ;;
		*) expect_grep "gnuplot did not write 'svg/[a-z0-9_-]+\.svg' whole" "$SCRATCH/err" ;;
		esac
		diff -r svg-before svg >/dev/null && pass "plot: gnuplot failing ($w) leaves the folder as it was" ||
			fail "plot: gnuplot failing ($w) changed svg/"
		no_private svg
	fi
	rm -rf fresh
	expect_status 1 env HARNESS_GNUPLOT="$SCRATCH/gp-$w.sh" $HARNESS_CMD plot --baseline base -f svg -o fresh syn.h5
	[ -z "$(ls -A fresh 2>/dev/null)" ] || fail "plot: gnuplot failing ($w) left $(ls -A fresh) in a new folder"
done
expect_status 1 env HARNESS_GNUPLOT="$SCRATCH/gp-cut.sh" $HARNESS_CMD report --baseline base -f html syn.h5 &&
	[ ! -s "$SCRATCH/out" ] && pass "report -f html: a figure cut short is an error, no page" ||
	fail "report -f html with a figure cut short"
# a folder in the way of a figure: an error before anything is renamed
mkdir -p inway svg-inway && cp -R svg/. svg-inway/ && rm svg-inway/drift.svg && mkdir svg-inway/drift.svg
touch svg-inway/drift.svg/keep && cp -R svg-inway inway-before
expect_status 1 h plot --baseline base -f svg -o svg-inway syn.h5 &&
	expect_grep "a folder has its name" "$SCRATCH/err" &&
	diff -r inway-before svg-inway >/dev/null && pass "plot: a folder in a figure's way changes nothing" ||
	fail "plot: a folder in a figure's way"

# A real full disk: a small tmpfs, when this process may mount one (root, not in a
# restricted container); else skipped with the reason.
mkdir full
if mount -t tmpfs -o size=1m tmpfs full 2>/dev/null; then
	trap 'umount "$SCRATCH/full" 2>/dev/null; rm -rf "$SCRATCH"' EXIT
	if expect_status 0 h plot --baseline base -f svg -o full/figs syn.h5; then
		cp -R full/figs full-before
		# nearly full (the data files fit, the figures do not), then full
		for left in 96 0; do
			rm -f full/filler
			free=$(df -k --output=avail full | tail -1)
			dd if=/dev/zero of=full/filler bs=1k count=$((free - left)) 2>/dev/null
			if expect_status 1 h plot --baseline base -f svg -o full/figs syn.h5; then
				sed "s/^/  ($left KiB left) /" "$SCRATCH/err" | tail -2
				diff -r full-before full/figs >/dev/null && pass "a full tmpfs ($left KiB left) leaves the figures as they were" ||
					fail "a full tmpfs ($left KiB left) changed full/figs: $(ls -A full/figs)"
				no_private full/figs
			fi
		done
	fi
	umount full || fail "cannot unmount the tmpfs"
else
	echo "note: cannot mount a tmpfs here (not root, or not allowed): the real full-disk check is skipped"
fi

# Cell names become file names and gnuplot strings: a name longer than NAME_MAX gives a
# short file name (two that differ only at the end, two names); a name with quotes, line
# breaks, backquotes and a gnuplot command runs nothing and draws as text.
$PY - "$SCRATCH" odd.csv <<'PYEOF' || fail "cannot write odd.csv"
import csv, sys
scratch, out = sys.argv[1], sys.argv[2]
long1 = "net/conv2d:" + ",".join("k%03d=%d" % (i, i) for i in range(40))
inj = "x'\nsystem(\"touch %s/pwned\")\n`touch %s/pwned2` \"q\" @m #'" % (scratch, scratch)
w = csv.writer(open(out, "w", newline=""))
w.writerow(["mode", "block", "cell", "unit", "value", "setup", "baseline"])
for mode, f in (("base", 1.0), ("fast", 0.8)):
    for b in range(4):
        for c, cell in enumerate((long1, long1 + "x", inj, "net/e2e")):
            for k in range(5):
                w.writerow([mode, b, cell, "us", "%.3f" % (f * (40 + c) * (1 + 0.013 * ((7 * b + 3 * k) % 5))), "1.5", str(mode == "base").lower()])
PYEOF
expect_status 0 h import --csv odd.csv -o odd.h5
if expect_status 0 h plot --all -f svg -o oddfigs odd.h5; then
	[ ! -e pwned ] && [ ! -e pwned2 ] && pass "plot: a cell name runs no gnuplot command" ||
		fail "plot: a cell name ran a command"
	n=$(ls oddfigs/*.svg | wc -l) longest=$(ls oddfigs | awk '{ if (length($0) > m) m = length($0) } END { print m }')
	[ "$n" -eq 13 ] && [ "$longest" -le 80 ] && pass "plot: long cell names give distinct short file names ($n figures, longest $longest bytes)" ||
		fail "plot: $n figures (wanted 13), longest name $longest bytes: $(ls oddfigs)"
	$PY - oddfigs <<'PYEOF' && pass "plot: every figure with odd names is valid SVG" || fail "plot: an SVG with odd names does not parse"
import os, sys
import xml.etree.ElementTree as ET
for n in os.listdir(sys.argv[1]):
    if n.endswith(".svg"):
        ET.parse(os.path.join(sys.argv[1], n))
PYEOF
fi
expect_status 0 h report -f html odd.h5 && [ ! -e pwned ] && [ ! -e pwned2 ] &&
	pass "report -f html: a cell name runs no gnuplot command" || fail "report -f html with odd names"
# a cell where some modes have no unit, the baseline among them (a part-run, a failed unit):
# gnuplot's boxplot fails on a data block with no defined point, so the cell figure draws
# boxes for the modes with units only (plots/cell.gp's box_modes)
$PY - part.csv <<'PYEOF' || fail "cannot write part.csv"
import csv, sys
w = csv.writer(open(sys.argv[1], "w", newline=""))
w.writerow(["mode", "block", "cell", "unit", "value", "baseline"])
for mode, f in (("base", 1.0), ("mid", 0.9), ("fast", 0.8)):
    for b in range(4):
        for cell in ("net/a", "net/b", "net/e2e"):
            if cell == "net/b" and mode != "fast":
                continue
            for k in range(5):
                w.writerow([mode, b, cell, "us", "%.3f" % (f * 40 * (1 + 0.01 * ((3 * b + k) % 5))), str(mode == "base").lower()])
PYEOF
expect_status 0 h import --csv part.csv -o part.h5 && expect_status 0 h plot --all -f svg -o partfigs part.h5 &&
	[ -s partfigs/cell-net_b.svg ] && expect_status 0 h report -f html part.h5 &&
	pass "plot, report -f html: a cell with no unit of the baseline (or of another mode) draws" ||
	fail "a cell without the baseline's units: $(ls partfigs 2>/dev/null)"
# invalid UTF-8 in a cell name (a file an older or damaged build wrote): U+FFFD in the figures
if $PY -c 'import h5py' 2>/dev/null; then
	cp odd.h5 oddbad.h5
	$PY - oddbad.h5 <<'PYEOF' || fail "cannot damage oddbad.h5"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    c = f["cells"][...]
    c["name"][3] = b"net/e\xff2e"
    f["cells"][...] = c
PYEOF
	if expect_status 0 h plot -f svg -o oddbad oddbad.h5; then
		$PY - oddbad <<'PYEOF' && pass "plot: invalid UTF-8 in a cell name is drawn as U+FFFD in valid SVG" || fail "plot: invalid UTF-8 in a cell name"
import os, sys
import xml.etree.ElementTree as ET
texts = []
for n in [n for n in os.listdir(sys.argv[1]) if n.endswith(".svg")]:
    texts += [t.text or "" for t in ET.parse(os.path.join(sys.argv[1], n)).iter("{http://www.w3.org/2000/svg}text")]
assert any("net/e\ufffd2e" in t for t in texts), "no U+FFFD"
PYEOF
	fi
else
	echo "note: no h5py: the invalid UTF-8 figure check is skipped"
fi

# the HTML report: one self-contained file
expect_status 0 h report --baseline base --format html syn.h5 && pass "report --format html"
cp "$SCRATCH/out" r.html
grep -q 'id="audit-table"' r.html && grep -q 'class="audit-WARN"' r.html && pass "the HTML holds the audit's findings" || fail "no audit table in the HTML report"
$PY - r.html <<'PYEOF' && pass "the HTML holds 10 figures as inline SVG, the verdict table, nothing external" || fail "html report content"
import re, sys
from html.parser import HTMLParser
s = open(sys.argv[1], encoding="utf-8").read()
assert s.startswith("<!DOCTYPE html>"), "no doctype"
# nothing external: no link, no src, no url() but to the document's own ids
assert not re.search(r"<link\b|<script\b|\bsrc\s*=|@import|url\((?!#)", s, re.I), "external reference"
assert not re.search(r"https?://(?!www\.w3\.org/)", s), "a URL other than the SVG namespaces"
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.ids = []; self.figs = []; self.svg_in_fig = 0; self.stack = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a: self.ids.append(a["id"])
        if tag == "figure": self.figs.append(a.get("id")); self.stack.append(1)
        if tag == "svg" and self.stack: self.svg_in_fig += 1
    def handle_endtag(self, tag):
        if tag == "figure": self.stack.pop()
p = P(); p.feed(s)
dups = {i for i in p.ids if p.ids.count(i) > 1}
assert not dups, ("duplicate ids", sorted(dups)[:5])
want = {"fig-forest", "fig-drift", "fig-op-e2e", "fig-composition", "fig-cdf-net_e2e"} | {"fig-%s-%s" % (k, c) for k in ("cell", "pareto") for c in ("net_sgemm_m_64", "net_conv2d_c_8", "net_e2e")}
assert set(p.figs) == want, set(p.figs) ^ want
assert p.svg_in_fig == 11, p.svg_in_fig
assert "verdict-table" in p.ids and "warnings" in p.ids
assert s.count('<tr class="verdict-') == 9 and s.count('<tr class="verdict-FASTER"') == 3, "verdict rows"
PYEOF

# rendered by a browser, offline: every figure and the verdict table are in the DOM
CHROMIUM=/usr/bin/chromium
if [ ! -x "$CHROMIUM" ]; then
	if [ "${CI:-}" = true ]; then
		fail "$CHROMIUM is missing (scripts/setup-debian.sh installs chromium)"
	else
		echo "SKIP (part): $TESTNAME: $CHROMIUM is not installed: the HTML is not rendered"
	fi
else
	prof=$(mktemp -d "$SCRATCH/chromium.XXXXXX")
	if timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$prof" --dump-dom "file://$SCRATCH/r.html" >dom.html 2>chromium.err; then
		$PY - dom.html <<'PYEOF' && pass "Chromium renders every figure and the verdict table" || fail "rendered DOM"
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.figs = {}; self.cur = None; self.rows = 0; self.in_table = False
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure": self.cur = a.get("id"); self.figs[self.cur] = 0
        if tag == "svg" and self.cur: self.figs[self.cur] += 1
        if tag == "table" and a.get("id") == "verdict-table": self.in_table = True
        if tag == "tr" and self.in_table and (a.get("class") or "").startswith("verdict-"): self.rows += 1
    def handle_endtag(self, tag):
        if tag == "figure": self.cur = None
        if tag == "table": self.in_table = False
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read())
assert len(p.figs) == 11 and all(n == 1 for n in p.figs.values()), p.figs
assert p.rows == 9, p.rows
PYEOF
	else
		fail "chromium could not render r.html"; tail -5 chromium.err >&2
	fi
	# the page answers first (issue 8): rendered at 1280 px, the summary (the answer per
	# mode, the audit's status, the forest plot) comes before every long table, each long
	# table is folded in a <details>, and with every <details> opened nothing is wider than
	# the viewport.  The width is measured by the browser itself: a copy of the page gets a
	# test-only script that writes the widths into the DOM (the report has no script).
	sed -e 's/<details\([ >]\)/<details open\1/g' -e 's|</body>|<script>(function(){var w=innerWidth,d=document.documentElement,o=[];document.querySelectorAll("table,figure,section,pre").forEach(function(t){var r=t.getBoundingClientRect();if(r.right>w+0.5\|\|t.scrollWidth>t.clientWidth+1)o.push((t.id\|\|t.tagName)+":"+Math.round(r.right)+"/"+t.scrollWidth+"/"+t.clientWidth)});document.body.setAttribute("data-viewport",w);document.body.setAttribute("data-page-width",d.scrollWidth);document.body.setAttribute("data-overflow",o.join(" "))})();</script></body>|' \
		r.html > open.html
	if timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--hide-scrollbars --user-data-dir="$prof" --window-size=1280,2000 \
		--dump-dom "file://$SCRATCH/open.html" >open-dom.html 2>chromium.err &&
	   timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--hide-scrollbars --user-data-dir="$prof" --window-size=1280,2000 \
		--screenshot="$SCRATCH/shot.png" "file://$SCRATCH/r.html" >/dev/null 2>>chromium.err; then
		$PY - dom.html open-dom.html shot.png <<'PYEOF' && pass "at 1280 px: the answer first, long tables folded, nothing wider than the page" || fail "HTML layout"
import re, struct, sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.order = []; self.stack = []; self.folded = {}; self.body = {}
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body": self.body = a
        if tag in ("details", "section", "table", "figure", "p", "ul"):
            self.stack.append(tag)
        if a.get("id"):
            self.order.append(a["id"])
            if tag == "table": self.folded[a["id"]] = "details" in self.stack
    def handle_endtag(self, tag):
        if tag in ("details", "section", "table", "figure", "p", "ul") and tag in self.stack:
            while self.stack and self.stack.pop() != tag: pass
dom = P(); dom.feed(open(sys.argv[1], encoding="utf-8").read())
o = dom.order
for i in ("summary", "answer-table", "audit-status", "fig-forest", "verdict-table", "aggregate-table", "summary-table", "audit-table"):
    assert i in o, ("missing", i)
first = min(o.index(i) for i in ("verdict-table", "aggregate-table", "summary-table", "audit-table", "run"))
for i in ("summary", "answer-table", "audit-status", "fig-forest"):
    assert o.index(i) < first, (i, "after a long table")
assert o.index("fig-forest") < o.index("verdict-table")
for t in ("verdict-table", "aggregate-table", "summary-table", "audit-table"):
    assert dom.folded[t], (t, "not inside <details>")
assert not dom.folded["answer-table"], "the answer is folded"
s = open(sys.argv[1], encoding="utf-8").read()
rows = re.findall(r'<tr class="answer-row" data-mode="([^"]+)"', s)
assert sorted(set(rows)) == ["fast", "noisy", "same"], rows
assert "WARN" in re.search(r'<p id="audit-status">.*?</p>', s, re.S).group(0)
opened = P(); opened.feed(open(sys.argv[2], encoding="utf-8").read())
b = opened.body
assert b.get("data-viewport") == "1280", b
assert int(b["data-page-width"]) <= 1280, ("the page is wider than the viewport", b)
assert b.get("data-overflow", "x") == "", ("wider than the page", b.get("data-overflow"))
png = open(sys.argv[3], "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR", "the screenshot is not a PNG"
assert struct.unpack(">II", png[16:24]) == (1280, 2000), struct.unpack(">II", png[16:24])
PYEOF
	else
		fail "chromium could not render open.html or take the screenshot"; tail -5 chromium.err >&2
	fi
fi

# without gnuplot the HTML report still comes, without figures, saying why
expect_status 0 env HARNESS_GNUPLOT=/nonexistent/gnuplot $HARNESS_CMD report --baseline base -f html syn.h5 &&
	expect_grep "gnuplot-nox" "$SCRATCH/err" && expect_grep 'class="note"' "$SCRATCH/out" &&
	! grep -q "<svg" "$SCRATCH/out" && pass "html without gnuplot: tables and a note" ||
	fail "html without gnuplot"
# a real run whose exhaustive tuner benchmarked candidates: the tuning trace is drawn
h run -q -o tiny.h5 "$DATA/run/tiny.toml" >/dev/null 2>&1
expect_status 0 h plot -o tinyplots --format svg tiny.h5 && pass "plot a real run"
set -- tinyplots/trace-*.svg
[ -s "$1" ] && $PY -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$1" &&
	grep -q "exhaustive" "$1" && pass "the tuning trace is drawn for the exhaustive tuner" ||
	fail "no tuning trace in tinyplots/"
# compare has no HTML form
expect_status 2 h compare -f html syn.h5 syn.h5 && expect_grep "format must be md, json or csv" "$SCRATCH/err"
finish

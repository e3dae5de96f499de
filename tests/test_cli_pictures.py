"""The pictures and the HTML report, checked for what a reader must see, not only for
being files: the plan marks the device's RAM, TFLM's tail and the recommended arena, its
labels never overprint and stay inside their buffers, small buffers show, the legend is
off the data, identical plans are one panel with a note; the roofline shows the latency
budget, only meaningful batches, "estimated" (never "achieved") points and one tick
format; files are written in the format their name asks for; the HTML report with the
per-operator table renders in headless Chromium at 1280 and 390 pixels with no two text
boxes overlapping."""
import base64
import html
import json
import os
import re
import shutil
import subprocess

import pytest
from PIL import Image

import memcore
from cli_helpers import memcore_cli, model, png_size
from memcore.graph import Model, Operator, Tensor
from memcore.plots import plan_figure, roofline_figure
from memcore.profiles import profile, profiles
from memcore.report import check


def _drawn(fig):
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def _overlap(a, b, slack=0.5):
    return a.x0 + slack < b.x1 and b.x0 + slack < a.x1 and a.y0 + slack < b.y1 and b.y0 + slack < a.y1


def _texts(ax):
    return [t for t in ax.texts if t.get_visible() and t.get_text()]


def _no_two_overlap(extents):
    for i, a in enumerate(extents):
        for b in extents[i + 1:]:
            assert not _overlap(a, b), (a, b)


# the teaching places' workstation as a device file: the board profiles are microcontrollers
SERVER_FILE = os.path.join(os.path.dirname(__file__), "devices", "server.toml")
SERVER = profiles(SERVER_FILE)["server"]


def _plan(name, device="esp32"):
    data = check(model(name), device=device, device_file=SERVER_FILE if device == "server" else None).to_json()
    return memcore.load(model(name)), data, plan_figure(memcore.load(model(name)), data)


def two_plans_model():
    """A small graph where TFLM's greedy plan (224 B) is worse than memcore's (208 B):
    tensor i is written by operator `first` and last read by operator `last`."""
    spec = [(64, 0, 3), (16, 3, 4), (64, 4, 5), (96, 4, 5), (32, 2, 5), (16, 0, 3), (96, 0, 1)]
    n_ops = 6
    tensors = [Tensor(0, "in", (16,), "int8", 16, False)]
    writes = {k: [] for k in range(n_ops)}
    reads = {k: ([0] if k == 0 else []) for k in range(n_ops)}
    for i, (size, first, last) in enumerate(spec, 1):
        tensors.append(Tensor(i, "t%d" % i, (size,), "int8", size, False))
        writes[first].append(i)
        reads[last].append(i)
    out = len(tensors)
    tensors.append(Tensor(out, "out", (16,), "int8", 16, False))
    writes[n_ops - 1].append(out)
    # Every operator writes something: those that write none of the spec's tensors get an
    # empty one, which nothing plans (TFLM skips zero-sized tensors).
    for k in range(n_ops):
        if not writes[k]:
            writes[k].append(len(tensors))
            tensors.append(Tensor(len(tensors), "empty%d" % k, (0,), "int8", 0, False))
    ops = tuple(Operator(k, "ADD", tuple(reads[k]), tuple(writes[k])) for k in range(n_ops))
    return Model("two_plans.tflite", "tflite", tuple(tensors), ops, (0,), (out,))


# ---- the plan picture -------------------------------------------------------------

def test_identical_plans_are_one_panel_with_a_note():
    m, data, fig = _plan("resnet8_int8.tflite")
    assert m.plan("tflm").offsets == m.plan("best").offsets
    (ax,) = fig.axes
    assert "identical" in ax.get_title() and "48.0 KiB" in ax.get_title()


def test_different_plans_are_two_panels():
    m = two_plans_model()
    assert (m.plan("tflm").arena_bytes, m.plan("best").arena_bytes) == (224, 208)
    fig = plan_figure(m)
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["TFLM's planner: 224 B", "memcore's planner: 208 B"]


def test_plan_marks_the_arena_tail_recommended_arena_and_device_ram():
    m, data, fig = _plan("resnet8_int8.tflite")
    (ax,) = fig.axes
    divisor = 1024    # the axis is in KiB
    heights = sorted(round(line.get_ydata()[0] * divisor) for line in ax.lines)
    # head 49,152 B (TFLM's measured head), lower bound = head here, recommended arena, and the
    # ESP32's 49,943 B (the largest block of its MicroPython heap)
    assert heights == sorted([49152, 49152, data["recommended_arena_bytes"], 49_943])
    tail = [p for p in ax.patches if p.get_hatch() == "///"]
    assert len(tail) == 1
    legend = " | ".join(t.get_text() for t in fig.legends[0].get_texts())
    for words in ("planned arena (TFLM's head) 48.0 KiB", "lower bound 48.0 KiB", "TFLM's tail (persistent)",
                  "recommended arena", "esp32 RAM for the model 48.8 KiB"):
        assert words in legend


def test_device_ram_far_above_the_arena_is_named_not_drawn():
    m, data, fig = _plan("kws_dscnn_int8.tflite", device="server")
    legend = " | ".join(t.get_text() for t in fig.legends[0].get_texts())
    assert "above the chart" in legend
    (ax,) = fig.axes
    assert ax.get_ylim()[1] * 1024 < 10 * data["recommended_arena_bytes"]


@pytest.mark.parametrize("name", ["resnet8_int8.tflite", "kws_dscnn_int8.tflite", "mnist_cnn_int8.tflite"])
def test_plan_labels_never_overprint_and_stay_inside_their_buffer(name):
    m, data, fig = _plan(name)
    renderer = _drawn(fig)
    for ax in fig.axes:
        rects = {p.get_gid(): p for p in ax.patches if (p.get_gid() or "").startswith("buffer-")}
        labels = [t for t in _texts(ax) if (t.get_gid() or "").startswith("label-")]
        assert labels, "no buffer is labelled at all"
        extents = [t.get_window_extent(renderer) for t in labels]
        _no_two_overlap(extents)
        for t, e in zip(labels, extents):
            box = rects["buffer-" + t.get_gid().split("-")[1]].get_window_extent(renderer)
            assert box.x0 <= e.x0 and e.x1 <= box.x1 and box.y0 <= e.y0 and e.y1 <= box.y1, t.get_text()
        ticks = [t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
        _no_two_overlap(ticks)


def test_small_buffers_are_visible():
    m, data, fig = _plan("resnet8_int8.tflite")
    renderer = _drawn(fig)
    (ax,) = fig.axes
    buffers = [p for p in ax.patches if (p.get_gid() or "").startswith("buffer-")]
    assert len(buffers) == len(m.planned_tensors)
    sizes = {t: m.tensors[t].bytes for t in m.planned_tensors}
    assert min(sizes.values()) < 0.01 * m.plan("tflm").arena_bytes    # 16 bytes next to a 48 KiB arena
    for p in buffers:
        assert p.get_window_extent(renderer).height >= 2.0, p.get_gid()


def test_the_legend_is_off_the_data():
    for fig in (_plan("resnet8_int8.tflite")[2], roofline_figure(memcore.load(model("mnist_cnn_float32.tflite")),
                                                                 SERVER)):
        renderer = _drawn(fig)
        legend = fig.legends[0].get_window_extent(renderer)
        for ax in fig.axes:
            assert not _overlap(legend, ax.get_window_extent(renderer))


# ---- the roofline -----------------------------------------------------------------

def test_roofline_on_a_microcontroller_is_batch_1_with_the_latency_budget():
    m = memcore.load(model("kws_dscnn_int8.tflite"))
    unbudgeted = roofline_figure(m, profile("esp32"))   # no budget given: none drawn
    assert not [t for t in unbudgeted.legends[0].get_texts() if "budget" in t.get_text()]
    fig = roofline_figure(m, profile("esp32"), budget_seconds=0.1)
    (ax,) = fig.axes
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    budget = [t for t in legend if "budget" in t and "needed" in t]
    # 5,321,228 operations in 100 ms: 53.2 M operations per second
    assert budget == ["needed to answer within the 100 ms budget: 53.2 Mops/s"]
    points = [c for c in ax.collections if len(c.get_offsets())]
    assert sum(len(c.get_offsets()) for c in points) == 1
    assert "batch 1: a microcontroller serves one stream" in ax.get_title()
    assert [t.get_text() for t in _texts(ax)] == ["batch 1: 141 ms"]   # the per-class rates (data/devices.toml)


def test_roofline_points_are_estimated_not_achieved():
    for board, name in ((profile("esp32"), "kws_dscnn_int8.tflite"), (SERVER, "mnist_cnn_float32.tflite")):
        fig = roofline_figure(memcore.load(model(name)), board)
        words = " ".join(t.get_text() for t in fig.legends[0].get_texts()) + fig.axes[0].get_title()
        assert "achieved" not in words and "estimated" in words


def test_roofline_sweeps_only_batches_that_fit_and_labels_do_not_overprint():
    fig = roofline_figure(memcore.load(model("mnist_cnn_float32.tflite")), SERVER)
    renderer = _drawn(fig)
    (ax,) = fig.axes
    assert "batch 1, 2, 4, 8, 16, 32, 64" in ax.get_title()
    labels = _texts(ax)
    assert labels[0].get_text().startswith("batch 1:")       # the first batch is always labelled
    _no_two_overlap([t.get_window_extent(renderer) for t in labels])


def test_roofline_ticks_have_one_format():
    fig = roofline_figure(memcore.load(model("mnist_cnn_float32.tflite")), SERVER)
    _drawn(fig)
    ax = fig.axes[0]
    for axis in (ax.xaxis, ax.yaxis):
        major = [t.get_text() for t in axis.get_ticklabels() if t.get_text()]
        minor = [t.get_text() for t in axis.get_ticklabels(minor=True) if t.get_text()]
        assert major and not minor
        for text in major:
            assert re.fullmatch(r"(0\.)?[0-9]+( [kMGT])?", text), text   # '10', '100 G', '1 T', never '10.0 T'


# ---- files ------------------------------------------------------------------------

@pytest.mark.parametrize("name, magic", [("arena.png", b"\x89PNG"), ("arena.jpg", b"\xff\xd8\xff"),
                                         ("arena.jpeg", b"\xff\xd8\xff"), ("arena.pdf", b"%PDF"),
                                         ("arena.svg", b"<?xml")])
def test_picture_format_follows_the_file_name(tmp_path, name, magic):
    path = tmp_path / name
    code, out, err = memcore_cli("plan", model("kws_dscnn_int8.tflite"), "--png", path)
    assert code == 0, err
    assert path.read_bytes().startswith(magic)
    if name.endswith((".png", ".jpg", ".jpeg")):
        with Image.open(path) as im:
            assert im.format == {"png": "PNG"}.get(name.rsplit(".", 1)[1], "JPEG")
            assert 700 <= im.size[0] <= 1600 and 400 <= im.size[1] <= 1000


def test_an_unknown_picture_format_is_refused_before_anything_is_written(tmp_path):
    for command, extra in (("plan", []), ("roofline", ["--device", "esp32"])):
        path = tmp_path / "arena.bmp"
        code, out, err = memcore_cli(command, model("kws_dscnn_int8.tflite"), *extra, "--png", path)
        assert code == 2 and "not a picture format" in err and ".png, .jpg, .svg or .pdf" in err
        assert not path.exists()


def test_roofline_has_a_text_mode():
    code, out, err = memcore_cli("roofline", model("mnist_cnn_float32.tflite"), "--device", "server",
                                 "--device-file", SERVER_FILE)
    assert code == 0, err
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("batch"))
    assert [line.split()[0] for line in lines[header + 1:header + 8]] == ["1", "2", "4", "8", "16", "32", "64"]
    assert "memory-bound at every batch" in out


def test_plan_without_a_picture_prints_the_buffer_list():
    m = memcore.load(model("kws_dscnn_int8.tflite"))
    code, out, err = memcore_cli("plan", model("kws_dscnn_int8.tflite"), "--map")
    assert code == 0, err
    rows = [line.split() for line in out.splitlines() if re.match(r"^\s*\d+\s", line) and "|" not in line]
    assert [int(r[0]) for r in rows] == list(m.planned_tensors)
    tflm = m.plan("tflm")
    for r in rows:
        assert int(r[-2].replace(",", "")) == tflm.offsets[int(r[0])]
    assert "TFLM's plan:        15.6 KiB (16,000 bytes)" in out
    # --map: one line per step, as TFLM's PrintMemoryPlan prints
    steps = [line for line in out.splitlines() if "|" in line]
    assert len(steps) == len(m.operators) + 1 and "(memcore's plan is the same)" in out


# ---- the HTML report --------------------------------------------------------------

@pytest.fixture(scope="module")
def report_page(tmp_path_factory):
    page = tmp_path_factory.mktemp("report") / "report.html"
    code, out, err = memcore_cli("report", model("resnet8_float32.tflite"), "-o", page, "--device", "esp32",
                                 "--max-latency", "100ms")
    assert code == 1, err    # the exit status is the verdict on --device, as check's
    return page


def test_report_is_self_contained_with_both_plots_and_the_layer_table(report_page):
    text = report_page.read_text(encoding="utf-8")
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text)
    assert len(images) == 2
    for encoded in images:
        png_size(base64.b64decode(encoded))
    assert "http://" not in text and "https://" not in text.replace("https://memcore", "")
    assert "Does not fit on esp32" in text
    m = memcore.load(model("resnet8_float32.tflite"))
    rows = re.findall(r'<tr( class="mc-peak")? data-operator="(\d+)">', text)
    assert [int(i) for _, i in rows] == [op.index for op in m.operators]
    assert [i for peak, i in rows if peak] == ["2"]       # resnet8's first residual block: 192 KiB alive


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

# Headless Chromium lays a page out at least 500 pixels wide whatever the window, so the
# report is shown in an iframe of the width under test.  Once it has loaded, the script
# measures every text box the browser laid out in it and writes what overlaps into the
# outer page, which --dump-dom then prints.  A box scrolled out of its container is
# clipped to it first.
FRAME = """<!DOCTYPE html><html><body style="margin:0">
<iframe id="report" style="border:0;width:{width}px;height:{height}px" srcdoc="{page}"></iframe>
{script}</body></html>"""

MEASURE = """<script>
document.getElementById('report').onload = function () {
  var doc = this.contentDocument, win = this.contentWindow, boxes = [];
  var all = doc.body.getElementsByTagName('*');
  for (var i = 0; i < all.length; i++) {
    var el = all[i];
    if (el.tagName === 'SCRIPT' || el.tagName === 'STYLE') continue;
    var clip = null;
    for (var up = el; up && up !== doc.body; up = up.parentElement) {
      var style = win.getComputedStyle(up);
      if (style.overflowX !== 'visible' || style.overflowY !== 'visible') { clip = up.getBoundingClientRect(); break; }
    }
    for (var c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType !== 3 || !c.textContent.trim()) continue;
      var range = doc.createRange();
      range.selectNodeContents(c);
      var rects = range.getClientRects();
      for (var k = 0; k < rects.length; k++) {
        var r = {l: rects[k].left, t: rects[k].top, r: rects[k].right, b: rects[k].bottom};
        if (clip) { r.l = Math.max(r.l, clip.left); r.r = Math.min(r.r, clip.right);
                    r.t = Math.max(r.t, clip.top); r.b = Math.min(r.b, clip.bottom); }
        if (r.r - r.l > 0.5 && r.b - r.t > 0.5) boxes.push({el: i, text: c.textContent.trim().slice(0, 40), r: r});
      }
    }
  }
  var overlaps = [];
  for (var a = 0; a < boxes.length; a++) for (var b = a + 1; b < boxes.length; b++) {
    if (boxes[a].el === boxes[b].el) continue;
    var p = boxes[a].r, q = boxes[b].r;
    var w = Math.min(p.r, q.r) - Math.max(p.l, q.l), h = Math.min(p.b, q.b) - Math.max(p.t, q.t);
    if (w > 1 && h > 1) overlaps.push([boxes[a].text, boxes[b].text]);
  }
  var out = document.createElement('pre');
  out.id = 'measured';
  out.textContent = JSON.stringify({boxes: boxes.length, overlaps: overlaps,
                                    page_width: doc.documentElement.scrollWidth, window_width: win.innerWidth});
  document.body.appendChild(out);
};
</script>"""


def framed(page, width, height, script=""):
    import html
    return FRAME.format(width=width, height=height, page=html.escape(page, quote=True), script=script)


def _chromium(tmp_path, *argv):
    base = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--user-data-dir=%s" % (tmp_path / "profile")]
    return subprocess.run(base + list(argv), capture_output=True, text=True, timeout=120)


# Chromium is a Debian package, not a pip one: a developer's machine may lack it, but CI
# installs it (.ci/apt-packages.txt), so there a missing browser fails instead of skipping.
needs_chromium = pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CI"),
                                    reason="Debian package chromium not installed (.ci/apt-packages.txt)")


@needs_chromium
def test_report_renders_in_headless_chromium(report_page, tmp_path):
    dom = _chromium(tmp_path, "--dump-dom", report_page.as_uri()).stdout
    assert "Does not fit on esp32" in dom
    cards = dict(re.findall(r'data-device="([^"]+)" data-status="([^"]+)"', dom))
    assert cards["esp32"] == "will_not_fit" and cards["esp32-psram"] == "too_slow"
    assert "will not fit: RAM runs out first: needs 510 KiB of the 48.8 KiB available (461 KiB short)" in dom
    assert 'id="layers"' in dom and 'class="mc-peak"' in dom


@needs_chromium
@pytest.mark.parametrize("width", [1280, 390])
def test_report_text_never_overlaps_at_desktop_and_phone_widths(report_page, tmp_path, width):
    page = report_page.read_text(encoding="utf-8")
    measured = tmp_path / "measured.html"
    measured.write_text(framed(page, width, 2400, MEASURE), encoding="utf-8")
    dom = _chromium(tmp_path, "--window-size=%d,2400" % max(width, 500), "--dump-dom", measured.as_uri()).stdout
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    result = json.loads(html.unescape(found.group(1)))
    assert result["window_width"] == width
    assert result["boxes"] > 150                      # the tables and cards were laid out
    assert result["overlaps"] == []
    assert result["page_width"] <= width              # wide tables scroll in their box, not the page
    shown = tmp_path / "shown.html"
    shown.write_text(framed(page, width, 2400), encoding="utf-8")
    shot = tmp_path / ("report-%d.png" % width)
    _chromium(tmp_path, "--window-size=%d,2400" % width, "--screenshot=%s" % shot, shown.as_uri())
    with Image.open(shot) as im:
        assert im.size == (width, 2400)
        rgb = im.convert("RGB")
        colours = rgb.resize((32, 64)).getcolors(32 * 64)
        assert colours is not None and len(colours) > 8           # drawn, not blank
        # the verdict box's red border (#b3261e) is on screen, left of the middle
        border = [rgb.getpixel((x, y)) for x in range(0, width // 2) for y in range(80, 400, 4)]
        assert any(abs(r - 0xb3) < 40 and g < 80 and b < 80 for r, g, b in border)


@needs_chromium
def test_the_overlap_check_catches_overprinting_text(tmp_path):
    page = ('<html><body><p style="position:absolute;top:10px">the verdict</p>'
            '<p style="position:absolute;top:16px">a table cell on top of it</p></body></html>')
    measured = tmp_path / "bad.html"
    measured.write_text(framed(page, 390, 400, MEASURE), encoding="utf-8")
    dom = _chromium(tmp_path, "--window-size=500,400", "--dump-dom", measured.as_uri()).stdout
    result = json.loads(html.unescape(re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S).group(1)))
    assert result["overlaps"] == [["the verdict", "a table cell on top of it"]]

"""`memcore plan --png`, `memcore roofline --png` and `memcore report`: the files exist,
are valid PNGs of a readable size, and the HTML page shows the verdicts in Chromium."""
import base64
import os
import re
import shutil
import subprocess

import pytest

from cli_helpers import memcore_cli, model, png_size


def test_plan_png(tmp_path):
    out_png = tmp_path / "plan.png"
    code, out, err = memcore_cli("plan", model("kws_dscnn_int8.tflite"), "--png", out_png)
    assert code == 0, err
    assert "TFLM's plan" in out and "lower bound" in out
    width, height = png_size(out_png.read_bytes())
    assert 1000 <= width <= 2500 and 400 <= height <= 1200
    assert out_png.stat().st_size > 20_000      # drawn, not blank


def test_roofline_png(tmp_path):
    out_png = tmp_path / "roofline.png"
    code, out, err = memcore_cli("roofline", model("mnist_cnn_float32.tflite"), "--device", "server",
                                 "--png", out_png)
    assert code == 0, err
    assert "bound" in out
    width, height = png_size(out_png.read_bytes())
    assert 600 <= width <= 1600 and 400 <= height <= 1000


def test_png_into_a_missing_folder_exits_2(tmp_path):
    code, out, err = memcore_cli("plan", model("tiny_mlp_int8.tflite"), "--png", tmp_path / "no" / "x.png")
    assert code == 2 and "error" in err


def test_roofline_needs_png():
    code, out, err = memcore_cli("roofline", model("tiny_mlp_int8.tflite"))
    assert code == 2 and "--png" in err


@pytest.fixture(scope="module")
def report_page(tmp_path_factory):
    page = tmp_path_factory.mktemp("report") / "report.html"
    code, out, err = memcore_cli("report", model("resnet8_float32.tflite"), "-o", page, "--device", "esp32")
    assert code == 0, err
    return page


def test_report_is_self_contained_with_both_plots(report_page):
    text = report_page.read_text(encoding="utf-8")
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text)
    assert len(images) == 2
    for encoded in images:
        png_size(base64.b64decode(encoded))
    assert "http://" not in text and "https://" not in text.replace("https://memcore", "")
    assert "Does not fit on esp32" in text


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


# Chromium is a Debian package, not a pip one: a developer's machine may lack it, but CI
# installs it (.ci/apt-packages.txt), so there a missing browser fails instead of skipping.
@pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CI"),
                    reason="Debian package chromium not installed (.ci/apt-packages.txt)")
def test_report_renders_in_headless_chromium(report_page, tmp_path):
    base = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=%s" % (tmp_path / "profile")]
    dom = subprocess.run(base + ["--dump-dom", report_page.as_uri()], capture_output=True, text=True,
                         timeout=120).stdout
    assert "Does not fit on esp32" in dom
    cards = dict(re.findall(r'data-device="([^"]+)" data-status="([^"]+)"', dom))
    assert cards["esp32"] == "will_not_fit" and cards["server"] == "runs" and cards["esp32-psram"] == "too_slow"
    # resnet8 float32 on the esp32 profile: TFLM's head 196,608 B + the esp32 tail 5,224 B,
    # recommended 201,840 B against 110,000 B available.
    assert "will not fit: 1.83 times bigger than the memory available" in dom
    shot = tmp_path / "report.png"
    subprocess.run(base + ["--window-size=1200,1600", "--screenshot=%s" % shot, report_page.as_uri()],
                   capture_output=True, timeout=120)
    width, height = png_size(shot.read_bytes())
    assert (width, height) == (1200, 1600)

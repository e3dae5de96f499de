"""The C unit tests (tests/c/, built by CMake and run by ctest) as part of `pytest`, so
the README's one test command runs every test there is (cmake is a test dependency)."""
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_c_unit_tests_pass(tmp_path):
    build = tmp_path / "build"
    subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"],
                   check=True, capture_output=True)
    subprocess.run(["cmake", "--build", str(build), "-j2"], check=True, capture_output=True)
    run = subprocess.run(["ctest", "--test-dir", str(build), "--output-on-failure"], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "100% tests passed" in run.stdout

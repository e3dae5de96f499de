"""Options several `memcore` subcommands share, declared once so they read the same
everywhere: --device, --device-file, --si, --batch, --kernels, --weights-in, --json;
and the shape of every subcommand's help (summary, description, examples)."""
import argparse

from memcore.profiles import profile


def add_command(sub, name, summary, description, examples):
    """A subcommand's parser with its one-line summary (in `memcore --help`), a
    description and examples (in `memcore NAME --help`)."""
    return sub.add_parser(name, help=summary, description=description,
                          epilog="examples:\n" + "\n".join("  " + e for e in examples))


def add_json(parser, what):
    parser.add_argument("--json", action="store_true",
                        help="print %s as JSON on stdout; errors too, as a memcore.error/1 object "
                             "(docs/json-output.md)" % what)


def add_picture(parser, what):
    parser.add_argument("--png", "--picture", dest="png", metavar="FILE",
                        help="draw %s into FILE: .png, .jpg, .svg or .pdf, by its extension" % what)


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


def _device_names(**_):
    """Tab completion of --device: the built-in profiles' names."""
    from memcore.profiles import builtin_profiles
    return list(builtin_profiles())


def add_device(parser, default="esp32"):
    action = parser.add_argument("--device", "-d", default=default,
                                 help="device profile name (default: %(default)s; list them with `memcore devices`)")
    action.completer = _device_names
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

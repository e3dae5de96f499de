"""Options several `memcore` subcommands share, declared once so they read the same
everywhere: --device, --device-file, --si, --batch, --kernels, --weights-in, the budgets
(--max-latency, --per-hour, --battery, --battery-life), --input-shape, --json; and the
shape of every subcommand's help (summary, description, examples)."""
import argparse

from memcore import exit_status as exit_status_table
from memcore.profiles import profile
from memcore.units import parse_battery, parse_duration


def add_command(sub, name, summary, description, examples, exit_status=None):
    """A subcommand's parser with its one-line summary (in `memcore --help`), a
    description, examples and the exit-status table (in `memcore NAME --help`);
    `exit_status` says what this command's verdict is (default: it has none, 0 or 2)."""
    applies = exit_status or "`memcore %s` gives no verdict: 0 done, 2 bad input." % name
    return sub.add_parser(name, help=summary, description=description,
                          epilog="examples:\n" + "\n".join("  " + e for e in examples) + "\n\n"
                          + exit_status_table.help_text(applies))


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


WEIGHTS_HELP = ("where the weights live: ram (the model file is read into the heap, with the arena) or flash "
                "(read in place: frozen into the firmware or a memory-mapped partition); default: the device "
                "profile's weights_region, ram on the MicroPython boards, flash on the bare-metal ones "
                "(`memcore devices` shows it)")


def add_weights_in(parser):
    parser.add_argument("--weights-in", choices=("flash", "ram"), default=None, help=WEIGHTS_HELP)


def add_deployment(parser):
    """How the model runs on the device: batch, kernels, where weights live."""
    add_batch_and_kernels(parser)
    add_weights_in(parser)


def seconds_or_none(text):
    if text.strip().lower() in ("none", "no"):
        return 0.0
    return _units(parse_duration, text, "a time")


def _units(parse, text, what):
    try:
        value = parse(text, what) if parse is parse_duration else parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def per_hour(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a number of inferences per hour, got %r" % text) from None
    if not (value > 0 and value <= 3.6e9):
        raise argparse.ArgumentTypeError("must be above 0 and at most 3.6e9 (a million a second), got %r" % text)
    return value


def battery(text):
    return _units(parse_battery, text, "a battery")


def duration(text):
    value = _units(parse_duration, text, "a battery life")
    if value <= 0:
        raise argparse.ArgumentTypeError("must be above 0, got %r" % text)
    return value


def add_budgets(parser):
    """The budgets besides memory: time per request, a duty cycle, a battery."""
    group = parser.add_argument_group("budgets (a missed one is exit status 3)")
    group.add_argument("--max-latency", type=seconds_or_none, default=None, metavar="TIME",
                       help="the most one request may take, with its unit: 50ms, 0.05s, 2s (default: none, or "
                            "the budget your --device-file gives; none: no budget)")
    group.add_argument("--per-hour", type=per_hour, default=0.0, metavar="N",
                       help="the duty cycle: N inferences per hour, asleep in between (each must also finish "
                            "before the next; default: back to back, for energy)")
    group.add_argument("--battery", type=battery, default=None, metavar="CAPACITY",
                       help="the battery it runs from: 2000mAh@3.7V, 7.4Wh or 26640J (battery life is "
                            "reported for the duty cycle)")
    group.add_argument("--battery-life", type=duration, default=None, metavar="TIME",
                       help="how long the battery must last: 30d, 12h, 1y (needs --battery)")


def budgets(args):
    from memcore.check import Budgets
    return Budgets(args.max_latency, args.per_hour, args.battery or 0.0, args.battery_life or 0.0, "command line")


def input_shape(text):
    name, sep, dims = text.rpartition("=")
    try:
        shape = tuple(int(d) for d in dims.split(","))
    except ValueError:
        shape = ()
    if not sep or not name or not shape or any(d < 1 for d in shape):
        raise argparse.ArgumentTypeError("must be NAME=D1,D2,... with whole dimensions of at least 1, e.g. "
                                         "input=1,3,96,96; got %r" % text)
    return name, shape


def add_input_shape(parser):
    parser.add_argument("--input-shape", type=input_shape, action="append", default=[], metavar="NAME=1,3,96,96",
                        help="an ONNX graph input's shape, for its dynamic dimensions (repeat for several "
                             "inputs)")


def load_model(args):
    """The model of `args.model`, with `--input-shape` applied."""
    from memcore.graph import load
    shapes = dict(getattr(args, "input_shape", None) or [])
    return load(args.model, input_shapes=shapes or None)


def device_profile(args):
    return profile(args.device, getattr(args, "device_file", None))

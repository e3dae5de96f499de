"""Shell completion (argcomplete, declared in setup.py): the commands, their options and
the device names complete in bash and zsh, through the script argcomplete generates."""
import os
import subprocess
import sys

import pytest

from cli_helpers import child_env


def complete(line):
    """What the shell would offer after `line`, asking memcore as bash does."""
    import tempfile
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as answer:
        env = child_env(_ARGCOMPLETE="1", _ARGCOMPLETE_IFS="\n", COMP_LINE=line, COMP_POINT=str(len(line)),
                   _ARGCOMPLETE_STDOUT_FILENAME=answer.name, _ARGCOMPLETE_SUPPRESS_SPACE="1")
        run = subprocess.run([sys.executable, "-m", "memcore"], env=env, capture_output=True, timeout=60)
        assert run.returncode == 0, run.stderr
        return [word.strip() for word in answer.read().split("\n") if word.strip()]


def test_commands_complete():
    assert set(complete("memcore c")) == {"check", "compare"}
    assert "roofline" in complete("memcore r")


def test_options_and_device_names_complete():
    assert "--layers" in complete("memcore check model.tflite --la")
    assert set(complete("memcore check model.tflite --device esp32")) == {"esp32", "esp32-psram", "esp32s3"}


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_the_completion_script_registers_memcore(shell):
    tool = os.path.join(os.path.dirname(sys.executable), "register-python-argcomplete")
    script = subprocess.run([tool, "--shell", shell, "memcore"], capture_output=True, env=child_env(),
                            text=True, timeout=60)
    assert script.returncode == 0, script.stderr
    assert "memcore" in script.stdout and ("complete " in script.stdout or "compdef" in script.stdout)

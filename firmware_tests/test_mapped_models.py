"""Models whose weights stay in flash, checked by the board's C module from a ROMFS, the
filesystem MicroPython maps from flash (vfs.VfsRom): a file the module can map (the
buffer protocol) is read in place, its operand lists and shapes left where they are as
TFLM reads them, so the check holds no copy of them.  The board's report agrees with
the host's `memcore check --weights-in flash`, check_scratch_bytes included: a PACK of
2,000 copies of one value, whose list a board reading the file in pieces holds at 4 B
an entry (about 10 KB), is checked in a few KB.

On the unix and QEMU ports the ROMFS image sits in the heap, where a board maps it from
flash; it is built on the host with mpremote's ROMFS writer."""
import re
import sys

import pytest
from mpremote.romfs import VfsRomWriter

import memcore
from boardkit import REPO, scratch_agrees
from memcore import descriptor
from memcore.check import check
from memcore.hil import lines
from memcore.hil.deploy import deploy
from memcore.hil.parity import board_files
from memcore.profiles import profile

sys.path.insert(0, str(REPO / "tests"))
import scaling_models  # noqa: E402

AVAILABLE = 90_000
AGREED = ("tensors", "operators", "buffers", "arena_tflm_bytes", "arena_best_bytes", "recommended_arena_bytes",
          "loaded_model_bytes", "required_bytes", "headroom_bytes", "verdict", "weights_placement")
# small enough that the image and the check both fit the simulated board's heap
MODELS = {"packed-2000": lambda: scaling_models.packed_copies(2000),
          "intermediates-2000": lambda: scaling_models.intermediates(2000),
          "rank8-constants-60": lambda: scaling_models.constant_tensors(60, (1, 1, 1, 1, 1, 1, 2, 2)),
          "unused-60": lambda: scaling_models.unused_tensors(60),
          "chain-60": lambda: scaling_models.relu_chain(60)}


@pytest.fixture(scope="module")
def on_board(board):
    deploy(board.repl, {n: p for n, p in board_files().items() if not n.startswith("memcore_vectors_data/")})
    board.reset()
    if not board.repl.exec("import memcore_boot\n"
                           "print(memcore_boot.reads_models(memcore_boot.memcore))").strip().endswith("True"):
        pytest.skip("stock firmware: this board has no C module to read a model file with")
    if not board.repl.exec("import vfs\nprint(hasattr(vfs, 'VfsRom'))\n").strip().endswith("True"):
        pytest.skip("this firmware has no ROMFS (MICROPY_VFS_ROM) to map a model from")
    return board


def romfs(stem, data, described):
    """A ROMFS image of the model and its descriptor, the descriptor first and padded
    with spaces so that the model's bytes start 4-byte aligned in the image, as TFLM
    needs a model it reads in place (the image itself is aligned)."""
    for pad in range(4):
        writer = VfsRomWriter()
        writer.mkfile(stem + ".json", described + b" " * pad)
        writer.mkfile(stem + ".tflite", data)
        image = writer.finalise()
        if image.index(data) % 4 == 0:
            return image
    raise AssertionError("no padding aligns the model")


def board_check_mapped(board, stem, image):
    """The board's report line for /rom/<stem>.tflite, the image mounted as a ROMFS."""
    deploy(board.repl, {"model.romfs": image})
    board.reset()
    out = board.repl.exec("import vfs, memcore_boot\nimage = bytearray(%d)\nf = open('model.romfs', 'rb')\n"
                          "f.readinto(image)\nf.close()\n"
                          "vfs.mount(vfs.VfsRom(image), '/rom')\ntry:\n"
                          "    memcore_boot.check('/rom/%s.tflite', available=%d)\nexcept Exception as e:\n"
                          "    print(memcore_boot.error_line(e))\nvfs.umount('/rom')\n" % (len(image), stem, AVAILABLE),
                          timeout_s=120)
    board.repl.exec("import os\nos.remove('model.romfs')\n")
    objects, _, bad = lines.parse(out)
    assert bad == [] and len(objects) == 1, out[-2000:]
    return objects[0][1]


@pytest.mark.parametrize("stem", sorted(MODELS))
def test_a_model_mapped_from_flash_is_checked_with_its_lists_in_place(on_board, tmp_path, stem):
    data = MODELS[stem]()
    path = tmp_path / (stem + ".tflite")
    path.write_bytes(data)
    model = memcore.load(str(path))
    esp32 = profile("esp32")
    described = descriptor.dumps(descriptor.describe(model, esp32, "flash")).encode()
    host = check(model, esp32, weights_placement="flash", available_bytes=AVAILABLE, suggest=False).to_json()
    read_in_pieces = check(model, esp32, available_bytes=AVAILABLE, suggest=False).to_json()
    got = board_check_mapped(on_board, stem, romfs(stem, data, described))
    assert got["schema"] == lines.REPORT, got
    assert {k: got[k] for k in AGREED} == {k: host[k] for k in AGREED}
    assert scratch_agrees(on_board, host, got)
    # the lists and shapes the check no longer copies
    assert host["check_scratch_bytes"] < read_in_pieces["check_scratch_bytes"]
    if stem in ("packed-2000", "intermediates-2000"):
        assert host["check_scratch_bytes"] < 4096 < 8000 < read_in_pieces["check_scratch_bytes"]


def test_a_heap_in_4_kb_pieces_checks_the_mapped_file_and_not_the_one_read_in_pieces(on_board, tmp_path):
    """The same PACK of 2,000 copies, its weights in flash, with the heap cut into free
    pieces of about 4 KB: mapped from the ROMFS the check takes one piece (its lists
    stay in the file); read from the filesystem a window at a time it must copy them,
    and the board says it lacks the block (the graph's, or the check's)."""
    data = scaling_models.packed_copies(2000)
    path = tmp_path / "packed.tflite"
    path.write_bytes(data)
    model = memcore.load(str(path))
    described = descriptor.dumps(descriptor.describe(model, profile("esp32"), "flash")).encode()
    image = romfs("packed", data, described)
    deploy(on_board.repl, {"model.romfs": image, "packed.tflite": data, "packed.json": described})
    on_board.reset()
    out = on_board.repl.exec(
        "import gc, vfs, memcore_boot\nimage = bytearray(%d)\nf = open('model.romfs', 'rb')\nf.readinto(image)\n"
        "f.close()\nvfs.mount(vfs.VfsRom(image), '/rom')\nheld = []\ntry:\n    while True:\n"
        "        held.append(bytearray(4096))\nexcept MemoryError:\n    pass\nfor i in range(0, len(held), 2):\n    held[i] = None\ngc.collect()\n"
        "for model in ('/rom/packed.tflite', 'packed.tflite'):\n    try:\n"
        "        memcore_boot.check(model, available=%d)\n    except Exception as e:\n"
        "        print(memcore_boot.error_line(e))\nheld = None\nvfs.umount('/rom')\n" % (len(image), AVAILABLE),
        timeout_s=120)
    on_board.repl.exec("import os\nfor f in ('model.romfs', 'packed.tflite', 'packed.json'):\n    os.remove(f)\n")
    objects, _, bad = lines.parse(out)
    assert bad == [] and len(objects) == 2, out[-2000:]
    mapped, in_pieces = objects[0][1], objects[1][1]
    assert mapped["schema"] == lines.REPORT and mapped["check_scratch_bytes"] < 4096, mapped
    assert in_pieces["schema"] == lines.REPORT_ERROR, in_pieces
    found = re.fullmatch(r"MemoryError: packed\.tflite: the check needs a free block of (\d+) bytes.*",
                         in_pieces["error"])
    assert found and int(found.group(1)) > 8000, in_pieces

"""mc_check_file, the check a board runs on a model file: the graph and the planners'
work take turns in one block of check_scratch_bytes, the figure every report gives.

For every model memcore checks (the examples, the conformance corpus, the size-scaling
generators): the file's check in exactly check_scratch_bytes gives the report the host's
check of the same graph gives, field for field, and writes nothing past that block; 8
bytes less is refused (MC_E_SCRATCH), never overrun.  And the block is smaller than the
two the board took before (the graph's arrays, then the check's own scratch beside
them), so the board checks larger models than it did.  Both ways a board gives the
check the file: a window at a time before it loads the weights into RAM, or mapped
where the weights stay in flash, whose operand lists the check then reads in place, as
TFLM does."""
import pathlib
import sys

import pytest

import memcore
from memcore import _lowlevel as ll
from memcore._memcore import ffi, lib
from memcore.cgraph import read_tflite, tensor_shape
from memcore.check import c_config
from memcore.profiles import profile

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
import scaling_models  # noqa: E402

CANARY = 0x5A
MODELS = sorted((REPO / "tests" / "models").glob("*.tflite")) + sorted((REPO / "tests" / "corpus").rglob("*.tflite"))
GENERATED = {"chain-150": lambda: scaling_models.relu_chain(150), "fan-120": lambda: scaling_models.fan_out(120),
             "unused-300": lambda: scaling_models.unused_tensors(300),
             "packed-3000": lambda: scaling_models.packed_copies(3000),
             "intermediates-3000": lambda: scaling_models.intermediates(3000)}


def board_and_config(model, device="esp32", placement=None):
    p = profile(device)
    return p.board(), c_config(model, p, placement or p.default_weights_placement())


def source(data, mapped):
    """The file as a board gives it to the check: in memory (mapped, as flash holds a
    model TFLM reads in place), or through the read callback a window at a time (a
    file the board reads before loading it).  (mc_source_t, what must stay alive)."""
    keep = ffi.from_buffer(data)
    src = ffi.new("mc_source_t *")
    src.file_bytes = len(data)
    if mapped:
        src.data = ffi.cast("const uint8_t *", keep)
        return src, keep

    @ffi.callback("mc_status_t(void *, int64_t, uint8_t *, int32_t)")
    def read(context, offset, buffer, count):
        ffi.memmove(buffer, data[offset:offset + count], count)
        return lib.MC_OK
    src.read = read
    return src, (keep, read)


def check_file(data, board_values, config_values, scratch_bytes, mapped=True):
    """(status, mc_check_t, whether a byte past scratch_bytes was written)."""
    src, keep = source(data, mapped)
    words = (scratch_bytes + 7) // 8 + 8
    scratch = ffi.new("int64_t[]", words)
    ffi.memmove(ffi.cast("uint8_t *", scratch) + scratch_bytes, bytes([CANARY]) * (words * 8 - scratch_bytes),
                words * 8 - scratch_bytes)
    out, graph, problem = ffi.new("mc_check_t *"), ffi.new("mc_graph_t *"), ffi.new("mc_problem_t *")
    rc = lib.mc_check_file(src, ll.board(board_values), ll.check_config(config_values), scratch, scratch_bytes, out,
                           graph, problem)
    tail = ffi.buffer(ffi.cast("uint8_t *", scratch) + scratch_bytes, words * 8 - scratch_bytes)[:]
    return rc, out, tail != bytes([CANARY]) * len(tail)


def read_scratch_bytes(data, mapped=False):
    """The scratch the reader asks for to read the file (mc_tflite_size)."""
    src, keep = source(data, mapped)
    size = ffi.new("mc_tflite_size_t *")
    assert lib.mc_tflite_size(src, size, ffi.NULL) == lib.MC_OK
    return size.scratch_bytes


def same_report(a, b):
    return ll.check_fields(a) == ll.check_fields(b)


CASES = [pytest.param(path.read_bytes, path, id=path.relative_to(REPO / "tests").as_posix()) for path in MODELS] + \
    [pytest.param(make, None, id=name) for name, make in GENERATED.items()]


@pytest.mark.parametrize("placement", ["ram", "flash"])
@pytest.mark.parametrize("make, path", CASES)
def test_the_file_check_runs_in_check_scratch_bytes_as_the_host_check(tmp_path, make, path, placement):
    """As the deployment gives the board the file: read a window at a time before the
    weights are loaded into RAM, mapped where the weights stay in flash."""
    data = make()
    if path is None:
        path = tmp_path / "model.tflite"
        path.write_bytes(data)
    try:
        model = memcore.load(str(path))
        board_values, config_values = board_and_config(model, placement=placement)
        host, _ = ll.check_graph(model.c_graph(), board_values, config_values, str(path))
    except memcore.MemcoreError:
        return  # refused on the host: tests/test_named_errors.py and the board's own tests say how
    need, mapped = host.check_scratch_bytes, placement == "flash"
    rc, got, overran = check_file(data, board_values, config_values, need, mapped)
    assert rc == lib.MC_OK and not overran
    assert same_report(got, host)
    rc, _, overran = check_file(data, board_values, config_values, need - 8, mapped)
    assert rc == lib.MC_E_SCRATCH and not overran


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_one_block_is_smaller_than_the_graph_and_the_work_beside_it(tmp_path, name):
    """What the board took before: the reader's scratch (mc_tflite_size), then
    mc_check_scratch_bytes beside it."""
    path = tmp_path / (name + ".tflite")
    path.write_bytes(GENERATED[name]())
    model = memcore.load(str(path))
    board_values, config_values = board_and_config(model)
    host, _ = ll.check_graph(model.c_graph(), board_values, config_values, str(path))
    g = model.c_graph().graph
    beside = ffi.new("int64_t *")
    assert lib.mc_check_scratch_bytes(g, ll.board(board_values), ll.check_config(config_values), beside,
                                      ffi.NULL) == lib.MC_OK
    # Taking turns saves the planners' work where it is as large as the graph; the
    # planners never see tensors no operator touches (the check stacks them apart), and
    # long operand lists are the graph's alone, so for those the graph's turn decides,
    # and one block is still the smaller.
    saved = 0.9 if name in ("chain-150", "fan-120") else 1.0
    assert host.check_scratch_bytes < saved * (read_scratch_bytes(GENERATED[name]()) + beside[0])


def test_a_file_refused_part_way_leaves_the_scratch_after_it_unread():
    """mnist_cnn_int8 whose second operator names an operator code past the file's: the
    reader stops there, and nothing reads the operators after it, which are whatever the
    board's scratch held (here every word 142, VAR_HANDLE's code, and options pointing
    nowhere: the pass naming resource variables once ran over them and crashed)."""
    model = scaling_models.model_of("mnist_cnn_int8.tflite")
    model.subgraphs[0].operators[1].opcodeIndex = 99
    data = scaling_models.to_bytes(model)
    src, keep = source(data, mapped=False)
    need = read_scratch_bytes(data)
    scratch = ffi.new("int32_t[]", [142] * ((need + 7) // 8 * 2))
    graph, problem = ffi.new("mc_graph_t *"), ffi.new("mc_problem_t *")
    assert lib.mc_tflite_read(src, scratch, need, graph, problem) == lib.MC_E_MODEL
    assert problem.kind == lib.MC_PROBLEM_BAD_OPCODE and problem.op == 1 and problem.value == 99


def lists_of(data, offset=0):
    """(the graph's flags, every operator's three lists, every tensor's shape) as the
    reader reads `data` from memory placed `offset` bytes past an aligned address."""
    buffer = bytearray(offset + len(data))
    buffer[offset:] = data
    graph = read_tflite(memoryview(buffer)[offset:], "model.tflite")
    g = graph.graph
    lists = [tuple(tuple(g.op_tensors[first + i] for i in range(n))
                   for first, n in ((op.first_input, op.n_inputs), (op.first_output, op.n_outputs),
                                    (op.first_intermediate, op.n_intermediates)))
             for op in (g.ops[k] for k in range(g.n_ops))]
    return g.flags, lists, [tensor_shape(g.tensors[i]) for i in range(g.n_tensors)]


def test_lists_and_shapes_stay_in_a_file_in_memory_where_tflm_could_read_them_there():
    """A file in memory at an aligned address keeps its operand lists where they are, as
    TFLM reads them; at an address TFLM could not read an int32 at (on the ESP32's
    Xtensa a misaligned load faults), and from a file of several subgraphs (whose
    indices are the subgraph's, not the graph's), the reader copies them.  The lists are
    the same either way, and so are the shapes, which stay in the file too."""
    data = scaling_models.packed_copies(300)
    flags, lists, shapes = lists_of(data)
    assert flags & lib.MC_GRAPH_IN_FILE and flags & lib.MC_GRAPH_MAPPABLE
    assert [len(set(op[0])) for op in lists if len(op[0]) == 300] == [1]  # the PACK: 300 copies of one value
    flags_off, lists_off, shapes_off = lists_of(data, offset=1)
    assert not flags_off & lib.MC_GRAPH_IN_FILE and flags_off & lib.MC_GRAPH_MAPPABLE
    assert (lists_off, shapes_off) == (lists, shapes)
    # the lists' 4 B an entry less, and the shapes' (the arrays' total rounded to 8 bytes)
    saved = read_scratch_bytes(data) - read_scratch_bytes(data, mapped=True)
    assert 4 * sum(map(len, sum(lists, ()))) - 8 < saved
    flags, _, _ = lists_of((REPO / "tests" / "corpus" / "models" / "control_if_f32.tflite").read_bytes())
    assert not flags & (lib.MC_GRAPH_IN_FILE | lib.MC_GRAPH_MAPPABLE)


@pytest.mark.parametrize("name", ["control_if_f32", "control_while_f32"])
def test_several_subgraphs_need_the_same_check_with_the_weights_in_flash(name):
    """Their lists are copied from a mapped file too: the check's figure is the one it has
    when the file is read a window at a time."""
    model = memcore.load(str(REPO / "tests" / "corpus" / "models" / (name + ".tflite")))
    figures = set()
    for placement in ("ram", "flash"):
        board_values, config_values = board_and_config(model, placement=placement)
        figures.add(ll.check_graph(model.c_graph(), board_values, config_values, name)[0].check_scratch_bytes)
    assert len(figures) == 1

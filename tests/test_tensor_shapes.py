"""A shape read from a .tflite file is the file's, whatever width the reader keeps it at
(a byte a dimension when every dim is below 256, two below 65,536, else four: a board's
check holds every shape), and the check of the file's graph is the check of the same
model rebuilt with plain int32 shapes (as the ONNX importer builds a graph): the same
report, or the same refusal."""
import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memcore
from memcore.check import check
from memcore.errors import MemcoreError
from memcore.profiles import profile

import scaling_models

# the widths' edges, and anything else a 32-bit dim can hold; now and then a negative
# (dynamic) dim, which the reader keeps at four bytes and the check refuses
DIMS = st.one_of(st.sampled_from([0, 1, 2, 3, 255, 256, 257, 65535, 65536, 65537, 2**24, 2**31 - 1]),
                 st.integers(0, 2**31 - 1), st.sampled_from([-1, -256, -2**31]))
SHAPES = st.lists(st.lists(DIMS, min_size=0, max_size=8), min_size=1, max_size=5)


def sized(shape):
    """Whether an int8 tensor of this shape has a byte size: no dim negative (dynamic),
    and the product, taken left to right as TFLM does, within 64 bits at every step."""
    product = 1
    for d in shape:
        if d < 0:
            return False
        product *= d
        if product >= 2**63:
            return False
    return True


def outcome(model):
    try:
        return check(model, profile("esp32"), suggest=False).to_json()
    except MemcoreError as e:
        return "refused: %s" % e


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shapes=SHAPES)
def test_a_shape_reads_back_as_written_and_checks_as_int32_dims_do(tmp_path, shapes):
    path = tmp_path / "shapes.tflite"
    path.write_bytes(scaling_models.untouched_tensors(shapes))
    try:
        model = memcore.load(str(path))
    except MemcoreError as e:  # refused naming the first tensor with no size, and its shape
        assert "of shape %s" % next(s for s in shapes if not sized(s)) in str(e)
        return
    assert all(sized(s) for s in shapes)
    assert [t.shape for t in model.tensors[-len(shapes):]] == [tuple(s) for s in shapes]
    from_file = outcome(model)
    rebuilt = outcome(dataclasses.replace(model, _cgraph=None))
    assert from_file == rebuilt


def test_a_constants_shape_costs_the_check_a_byte_a_dimension_below_256(tmp_path):
    """1,000 constants (each a tensor record, its shape and no buffer of the planners'):
    a shape's dims below 256 take a byte each, in whole 4-byte words, so rank 4 costs
    what rank 2 does and rank 8 a word more; a dim of 256 takes the rank-8 shape to two
    bytes a dimension (four words)."""
    def scratch(shape):
        path = tmp_path / "t.tflite"
        path.write_bytes(scaling_models.constant_tensors(1000, shape))
        return check(memcore.load(str(path)), profile("esp32"), suggest=False).to_json()["check_scratch_bytes"]
    rank2 = scratch((1, 4))
    assert scratch((1, 1, 1, 4)) == rank2
    assert scratch((1, 1, 1, 1, 1, 1, 2, 2)) == rank2 + 4 * 1000
    assert scratch((256, 1, 1, 1, 1, 1, 1, 1)) == rank2 + 12 * 1000

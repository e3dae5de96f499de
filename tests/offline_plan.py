"""Writes an offline memory plan into a TFLite model: TFLM's OfflineMemoryAllocation
metadata (micro_allocation_info.cc, GetOfflinePlannedOffsets), through the flatbuffers
library and TFLM's own schema (the `tflite-micro` package's schema_py_generated), never
by hand.

The plan is a buffer of int32 words: version (1), subgraph (0), the number of offsets,
then one offset per tensor of every subgraph, in bytes from the arena's start, -1 where
TFLM's planner places the tensor itself.  `version`, `subgraph`, `count` and `truncate`
exist to write the broken plans the tests and the corpus need.
"""
import struct

import flatbuffers
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

NAME = b"OfflineMemoryAllocation"


def tensor_count(data):
    m = schema.Model.GetRootAsModel(data, 0)
    return sum(m.Subgraphs(g).TensorsLength() for g in range(m.SubgraphsLength()))


def with_plan(data, offsets, version=1, subgraph=0, count=None, truncate=0):
    """`data` (a .tflite file's bytes) with an offline plan of `offsets` (a list, one per
    tensor) added; any plan it had is replaced."""
    model = schema.ModelT.InitFromPackedBuf(bytearray(data), 0)
    words = [version, subgraph, len(offsets) if count is None else count] + list(offsets)
    blob = struct.pack("<%di" % len(words), *words)
    buffer = schema.BufferT()
    buffer.data = list(blob[:len(blob) - truncate] if truncate else blob)
    model.buffers.append(buffer)
    entry = schema.MetadataT()
    entry.name = NAME
    entry.buffer = len(model.buffers) - 1
    model.metadata = [m for m in (model.metadata or []) if m.name != NAME] + [entry]
    builder = flatbuffers.Builder(len(data) + 1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def plan_of(data):
    """(version, subgraph, count, offsets) of the file's plan, or None."""
    m = schema.Model.GetRootAsModel(data, 0)
    for i in range(m.MetadataLength()):
        entry = m.Metadata(i)
        if entry.Name() == NAME:
            blob = bytes(m.Buffers(entry.Buffer()).DataAsNumpy())
            words = struct.unpack("<%di" % (len(blob) // 4), blob[:len(blob) // 4 * 4])
            return words[0], words[1], words[2], list(words[3:])
    return None

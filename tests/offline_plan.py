"""Offline memory plans for the tests and the corpus, written by memcore's own writer
(memcore.tflite_write: the original file kept whole behind a new root table), including
the broken plans the tests and the corpus need: TFLM's OfflineMemoryAllocation metadata
(micro_allocation_info.cc, GetOfflinePlannedOffsets).

The plan is a buffer of int32 words: version (1), subgraph (0), the number of offsets,
then one offset per tensor of every subgraph, in bytes from the arena's start, -1 where
TFLM's planner places the tensor itself.  `version`, `subgraph`, `count` and `truncate`
write plans in other formats.  plan_of reads a plan back through TFLM's own schema (the
`tflite-micro` package), not memcore's reader.
"""
import struct

from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

from memcore.tflite_write import OFFLINE_PLAN, with_metadata

NAME = OFFLINE_PLAN.encode()


def tensor_count(data):
    m = schema.Model.GetRootAsModel(data, 0)
    return sum(m.Subgraphs(g).TensorsLength() for g in range(m.SubgraphsLength()))


def with_plan(data, offsets, version=1, subgraph=0, count=None, truncate=0):
    """`data` (a .tflite file's bytes) with an offline plan of `offsets` (a list, one per
    tensor) added; any plan it had is replaced."""
    words = [version, subgraph, len(offsets) if count is None else count] + list(offsets)
    blob = struct.pack("<%di" % len(words), *words)
    return with_metadata(data, OFFLINE_PLAN, blob[:len(blob) - truncate] if truncate else blob)


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

"""Writes metadata into a TFLite flatbuffer and keeps every other byte of the file.

A flatbuffer's references (uoffset_t) only point forward, so the original file is kept
whole, as one block, behind a new prefix: a new root Model table whose fields point into
the block (operator codes, subgraphs, description, signature defs: the original tables,
byte for byte), new `buffers` and `metadata` vectors (the original entries, with one
metadata entry and its buffer added or replaced) and the new entry's tables.  The block
starts at a multiple of 16 bytes, so every buffer keeps the alignment the converter gave
it (the schema asks for 16).  The original's old root table stays in the block, unread:
the written file is the original plus a prefix of a few hundred bytes and the new data.
Operators are reordered the same way: a new root and SubGraph table, and a new
operators vector listing the original operator tables in the new order.

Pure Python, no schema library: only the Model, Buffer, Metadata, SubGraph and Tensor
fields named below are read.  The model has been read by the C core's reader before it
gets here (memcore.load); this module checks again every offset it follows.
"""
import struct

from memcore.errors import MemcoreError

#: TFLM's offline memory plan (micro_allocation_info.cc, GetOfflinePlannedOffsets)
OFFLINE_PLAN = "OfflineMemoryAllocation"
OFFLINE_PLAN_VERSION = 1

# Field numbers in TFLite's schema (schema.fbs, table Model and the tables under it).
_MODEL_VERSION, _MODEL_OPCODES, _MODEL_SUBGRAPHS, _MODEL_DESCRIPTION, _MODEL_BUFFERS, _MODEL_METADATA_BUFFER, \
    _MODEL_METADATA, _MODEL_SIGNATURES = range(8)
_MODEL_FIELDS = 8
_BUFFER_DATA, _BUFFER_OFFSET = 0, 1
_METADATA_NAME, _METADATA_BUFFER = 0, 1
_SUBGRAPH_TENSORS, _SUBGRAPH_INPUTS, _SUBGRAPH_OUTPUTS, _SUBGRAPH_OPERATORS, _SUBGRAPH_NAME, \
    _SUBGRAPH_DEBUG_METADATA = range(6)
_SUBGRAPH_FIELDS = 6
_TENSOR_BUFFER = 2
_ALIGNMENT = 16


class _Reader:
    """Bounds-checked reads of a flatbuffer's tables, vectors and strings."""

    def __init__(self, data, source):
        self.data, self.source = data, source

    def fail(self, what):
        return MemcoreError("%s: %s" % (self.source, what))

    def _unpack(self, fmt, at):
        size = struct.calcsize(fmt)
        if at < 0 or at + size > len(self.data):
            raise self.fail("a flatbuffer offset (%d) points outside the file's %d bytes" % (at, len(self.data)))
        return struct.unpack_from(fmt, self.data, at)[0]

    def u32(self, at):
        return self._unpack("<I", at)

    def field_at(self, table, index):
        """The position of a table's field, or None when the field is absent."""
        vtable = table - self._unpack("<i", table)
        vtable_bytes = self._unpack("<H", vtable)
        if 4 + 2 * index + 2 > vtable_bytes:
            return None
        at = self._unpack("<H", vtable + 4 + 2 * index)
        return table + at if at else None

    def present(self, table):
        """Numbers of the fields a table holds."""
        vtable = table - self._unpack("<i", table)
        count = (self._unpack("<H", vtable) - 4) // 2
        return [i for i in range(count) if self._unpack("<H", vtable + 4 + 2 * i)]

    def inside(self, at):
        if at >= len(self.data):
            raise self.fail("a flatbuffer offset (%d) points outside the file's %d bytes" % (at, len(self.data)))
        return at

    def ref(self, table, index):
        """Where a table's offset field points, or None."""
        at = self.field_at(table, index)
        return None if at is None else self.inside(at + self.u32(at))

    def scalar(self, table, index, fmt, default=0):
        at = self.field_at(table, index)
        return default if at is None else self._unpack(fmt, at)

    def vector(self, at):
        """The positions of a vector of tables' elements (each where it points)."""
        if at is None:
            return []
        n = self.u32(at)
        if n > (len(self.data) - at) // 4:
            raise self.fail("a flatbuffer vector of %d entries runs past the end of the file" % n)
        return [self.inside(at + 4 + 4 * i + self.u32(at + 4 + 4 * i)) for i in range(n)]

    def scalars(self, at, fmt):
        if at is None:
            return []
        n, size = self.u32(at), struct.calcsize(fmt)
        if n > (len(self.data) - at - 4) // size:
            raise self.fail("a flatbuffer vector of %d entries runs past the end of the file" % n)
        return list(struct.unpack_from("<%d%s" % (n, fmt[-1]), self.data, at + 4))

    def bytes_at(self, at):
        if at is None:
            return b""
        n = self.u32(at)
        if n > len(self.data) - at - 4:
            raise self.fail("a flatbuffer vector of %d bytes runs past the end of the file" % n)
        return bytes(self.data[at + 4:at + 4 + n])


def _root(data, source):
    r = _Reader(data, source)
    if len(data) < 8 or data[4:8] != b"TFL3":
        raise r.fail("not a TFLite flatbuffer (no TFL3 identifier at byte 4)")
    return r, r.inside(r.u32(0))


def _known_fields(r, table, known, what, rewritten):
    """The fields `table` has, refused if any is past the `known` this writer copies:
    rewriting the table could lose it."""
    present = r.present(table)
    unknown = [i for i in present if i >= known]
    if unknown:
        raise r.fail("the %s has fields this writer does not know (%s field %s): rewriting %s could lose them"
                     % (what.lower(), what, ", ".join(map(str, unknown)), rewritten))
    return present


def metadata(data, source="model"):
    """The file's metadata entries: [(name, buffer index, the buffer's bytes)]."""
    r, model = _root(data, source)
    buffers = r.vector(r.ref(model, _MODEL_BUFFERS))
    out = []
    for entry in r.vector(r.ref(model, _MODEL_METADATA)):
        name = r.bytes_at(r.ref(entry, _METADATA_NAME)).decode("utf-8", "replace")
        index = r.scalar(entry, _METADATA_BUFFER, "<I")
        blob = r.bytes_at(r.ref(buffers[index], _BUFFER_DATA)) if index < len(buffers) else None
        out.append((name, index, blob))
    return out


def offline_plan_blob(offsets):
    """TFLM's offline plan for one subgraph: version 1, subgraph 0, the number of
    offsets, then one int32 offset per tensor (-1: TFLM's planner places it)."""
    words = [OFFLINE_PLAN_VERSION, 0, len(offsets)] + [int(o) for o in offsets]
    return struct.pack("<%di" % len(words), *words)


def _buffers_in_use(r, model):
    """Buffer indices the tensors and the deprecated metadata_buffer list refer to."""
    used = set(r.scalars(r.ref(model, _MODEL_METADATA_BUFFER), "<i"))
    for subgraph in r.vector(r.ref(model, _MODEL_SUBGRAPHS)):
        for tensor in r.vector(r.ref(subgraph, _SUBGRAPH_TENSORS)):
            used.add(r.scalar(tensor, _TENSOR_BUFFER, "<I"))
    return used


class _Prefix:
    """The new bytes in front of the original block, written front to back.  A
    reference is a 4-byte slot filled in at the end: to a position in the prefix
    ("new") or in the original block ("old"), whose place is known only then."""

    def __init__(self):
        self.out = bytearray(struct.pack("<I", 0) + b"TFL3")
        self.targets = {}   # slot position -> ("new" or "old", position)

    def align(self, n, ahead=0):
        while (len(self.out) + ahead) % n:
            self.out.append(0)

    def here(self):
        return len(self.out)

    def u32(self, value):
        self.out += struct.pack("<I", value)

    def slot(self, kind=None, target=None):
        """A reference; without a target, one to fill in with point()."""
        at = self.here()
        self.out += bytes(4)
        if kind is not None:
            self.targets[at] = (kind, target)
        return at

    def point(self, slot, target):
        self.targets[slot] = ("new", target)

    def table_start(self, field_count, present):
        """A vtable for fields 0..field_count-1, of which `present` (in order) are held
        as consecutive 4-byte fields; then the table's own first word.  Returns where
        the table starts; the caller writes the fields."""
        self.align(2)
        vtable = self.here()
        slots = [4 + 4 * present.index(i) if i in present else 0 for i in range(field_count)]
        self.out += struct.pack("<%dH" % (2 + field_count), 4 + 2 * field_count, 4 + 4 * len(present), *slots)
        self.align(4)
        table = self.here()
        self.out += struct.pack("<i", table - vtable)
        return table

    def vector_of_refs(self, refs):
        """A vector of references [(kind, target)]; returns (where it starts, its slots)."""
        self.align(4)
        at = self.here()
        self.u32(len(refs))
        return at, [self.slot(kind, target) for kind, target in refs]

    def finish(self, original, root):
        self.align(_ALIGNMENT)
        block = self.here()
        struct.pack_into("<I", self.out, 0, root)
        for at, (kind, target) in self.targets.items():
            struct.pack_into("<I", self.out, at, (target + block if kind == "old" else target) - at)
        return bytes(self.out) + bytes(original)


def with_metadata(data, name, blob, source="model"):
    """`data` (a .tflite file's bytes) with metadata entry `name` holding `blob`: added,
    or replacing the entries of that name (their buffer is reused when nothing else
    refers to it); with `blob` None, the entries of that name removed.  Every byte of
    `data` is kept, as one block at the end of the result."""
    r, model = _root(data, source)
    present = _known_fields(r, model, _MODEL_FIELDS, "Model", "its root")
    buffers = r.vector(r.ref(model, _MODEL_BUFFERS))
    for i, buffer in enumerate(buffers):
        if r.scalar(buffer, _BUFFER_OFFSET, "<Q") > 1:
            raise r.fail("buffer %d keeps its data outside the flatbuffer (at a file offset), which a "
                         "prefix would move" % i)
    entries = r.vector(r.ref(model, _MODEL_METADATA))
    replaced = [i for i, e in enumerate(entries) if r.bytes_at(r.ref(e, _METADATA_NAME)) == name.encode()]
    kept = [e for i, e in enumerate(entries) if i not in replaced]
    index = len(buffers)           # the new entry's buffer: a new one at the end, or the old one's
    if replaced:
        old = r.scalar(entries[replaced[0]], _METADATA_BUFFER, "<I")
        others = {r.scalar(e, _METADATA_BUFFER, "<I") for e in kept}
        if old < len(buffers) and old not in others and old not in _buffers_in_use(r, model):
            index = old

    p = _Prefix()
    fields = sorted(set(present) | {_MODEL_BUFFERS, _MODEL_METADATA})
    root = p.table_start(_MODEL_FIELDS, fields)
    new_vectors = {}
    for f in fields:    # scalars copied, tables and vectors pointing into the block
        if f == _MODEL_VERSION:
            p.u32(r.scalar(model, f, "<I"))
        elif f in (_MODEL_BUFFERS, _MODEL_METADATA):
            new_vectors[f] = p.slot()
        else:
            p.slot("old", r.ref(model, f))

    if blob is None:
        index = None
    buffer_refs = [("old", b) for b in buffers] + ([("old", None)] if index == len(buffers) else [])
    at, buffer_slots = p.vector_of_refs(buffer_refs)
    p.point(new_vectors[_MODEL_BUFFERS], at)
    first = min(replaced) if replaced else len(kept)   # where the entry was, else last
    metadata_refs = [("old", e) for e in kept]
    if blob is not None:
        metadata_refs.insert(first, ("old", None))
    at, metadata_slots = p.vector_of_refs(metadata_refs)
    p.point(new_vectors[_MODEL_METADATA], at)
    if blob is None:
        return p.finish(data, root)

    entry = p.table_start(2, [_METADATA_NAME, _METADATA_BUFFER])
    p.point(metadata_slots[first], entry)
    name_slot = p.slot()
    p.u32(index)
    p.align(4)
    p.point(name_slot, p.here())
    p.u32(len(name.encode()))
    p.out += name.encode() + b"\0"

    buffer = p.table_start(1, [_BUFFER_DATA])
    p.point(buffer_slots[index], buffer)
    data_slot = p.slot()
    p.align(_ALIGNMENT, ahead=4)      # the bytes themselves 16-aligned, as the schema asks
    p.point(data_slot, p.here())
    p.u32(len(blob))
    p.out += bytes(blob)
    return p.finish(data, root)


def with_operator_order(data, order, source="model"):
    """`data` (a single-subgraph .tflite file's bytes) with its operators listed in
    `order` (order[k]: the index in `data` of the operator to run k-th).  A new root, a
    new subgraphs vector and a new SubGraph table point to the original's tables, the
    operators vector is new and lists the original operator tables in the new order;
    every byte of `data` is kept, as one block at the end."""
    r, model = _root(data, source)
    present = _known_fields(r, model, _MODEL_FIELDS, "Model", "its root")
    subgraphs = r.vector(r.ref(model, _MODEL_SUBGRAPHS))
    if len(subgraphs) != 1:
        raise r.fail("the model has %d subgraphs; operators are reordered in single-subgraph models only"
                     % len(subgraphs))
    subgraph = subgraphs[0]
    sg_present = _known_fields(r, subgraph, _SUBGRAPH_FIELDS, "SubGraph", "it")
    operators = r.vector(r.ref(subgraph, _SUBGRAPH_OPERATORS))
    if sorted(order) != list(range(len(operators))):
        raise r.fail("an operator order must list each of the %d operators once" % len(operators))
    if list(order) == list(range(len(operators))):
        return data

    p = _Prefix()
    root = p.table_start(_MODEL_FIELDS, present)
    subgraphs_slot = None
    for f in present:
        if f == _MODEL_VERSION:
            p.u32(r.scalar(model, f, "<I"))
        elif f == _MODEL_SUBGRAPHS:
            subgraphs_slot = p.slot()
        else:
            p.slot("old", r.ref(model, f))
    at, [subgraph_slot] = p.vector_of_refs([("old", None)])
    p.point(subgraphs_slot, at)
    table = p.table_start(_SUBGRAPH_FIELDS, sg_present)
    p.point(subgraph_slot, table)
    operators_slot = None
    for f in sg_present:
        if f == _SUBGRAPH_DEBUG_METADATA:
            p.out += struct.pack("<i", r.scalar(subgraph, f, "<i"))
        elif f == _SUBGRAPH_OPERATORS:
            operators_slot = p.slot()
        else:
            p.slot("old", r.ref(subgraph, f))
    at, _ = p.vector_of_refs([("old", operators[i]) for i in order])
    p.point(operators_slot, at)
    return p.finish(data, root)


def with_offline_plan(data, offsets, source="model"):
    """`data` with TFLM's offline memory plan `offsets` (one per tensor, -1: TFLM plans
    it), any plan it had replaced."""
    return with_metadata(data, OFFLINE_PLAN, offline_plan_blob(offsets), source)


__all__ = ["OFFLINE_PLAN", "metadata", "offline_plan_blob", "with_metadata", "with_offline_plan",
           "with_operator_order"]

"""The clause registry: every rule of ../shared/spec/CLAUSES.md as data, plus the findings the oracle added.

Numbering of ranges: `SI-EX-1..6` becomes SI-EX-1 .. SI-EX-6 in the order the
document shows them (empty slice, full slice, mixed, negative, ellipsis,
single element); the same row also names the scatter-form example, which gets
SI-EX-7 (added: the range says six, the row lists seven).  `SC-EX-1..3`
becomes SC-EX-1 .. SC-EX-3 in document order; comma lists are split.

`added=True` marks ids that are not in CLAUSES.md: open points the oracle had
to decide while encoding the documents (all `gap` findings, which the report
lists as spec findings).  Every added id should go into CLAUSES.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

SEEDS = {"setitem": "pypto.Tensor.setitem.txt", "clip": "pypto.clip.txt",
         "scatter": "torch.Tensor.scatter_.txt", "scatter_nd_add": "mindspore.ops.scatter_nd_add.txt",
         "set_": "mindspore.Tensor.set_.txt"}
KINDS = ("sem", "err", "uns", "ex", "gap")


@dataclass(frozen=True)
class Clause:
    id: str
    op: str
    kind: str
    statement: str
    added: bool = False          # not in CLAUSES.md: decided while encoding the documents

    @property
    def source(self) -> str:
        return SEEDS[self.op]

    @property
    def finding(self) -> bool:
        """A gap: the document leaves this open or contradicts itself (listed as a spec finding)."""
        return self.kind == "gap"


_ROWS = {
    "setitem": [
        ("SI-KEY", "sem", "key is an int (or symbolic int), a slice, or a tuple of ints, slices and at most one "
                          "Ellipsis"),
        ("SI-VAL-T", "sem", "for slice and mixed keys the value is a tensor whose shape matches the region the key "
                            "selects"),
        ("SI-VAL-S", "sem", "a scalar value (int or symbolic int) assigns one element; the target must be DT_INT32"),
        ("SI-INPLACE", "sem", "returns nothing; modifies the target in place; elements outside the region keep their "
                              "values"),
        ("SI-EMPTY", "sem", "c[:] = v replaces the whole tensor (a move); with equal shapes it equals a full assemble"),
        ("SI-ASSEMBLE", "sem", "a slice key places the value at the slice starts like assemble(value, starts, target); "
                               "open slices take their extent from the value"),
        ("SI-MIXED", "sem", "int and slice mixed: the int axes are dropped; the value has as many dims as the key has "
                            "slices"),
        ("SI-NEG", "sem", "negative ints and slice bounds count from the end: a[-1, -3:-1] is a[3, 1:3]"),
        ("SI-ELLIPSIS", "sem", "Ellipsis stands for the axes not named: a[..., 2:4] = b (b 2x2) is a[0:2, 2:4]"),
        ("SI-SCATTER", "sem", "a key start:stop whose stop is an int tensor means scatter(a, start, indices, values)"),
        ("SI-STEP", "uns", "a slice step other than 1 is not supported"),
        ("SI-BOOL", "uns", "bool indices are not supported"),
        ("SI-TINDEX", "uns", "tensor indices are not supported"),
        ("SI-MIXED-N", "err", "with a mixed key, the number of slices must equal the value's ndim (no exception class "
                              "named)"),
        ("SI-FLOATSCALAR", "uns", "a float scalar value is not supported"),
        ("SI-EX-1", "ex", "empty slice: c[:] = a + b in the add kernel"),
        ("SI-EX-2", "ex", "full slice: a[0:, 0:] = b writes b into the top-left 2x2"),
        ("SI-EX-3", "ex", "mixed: a[0, 1:3] = b"),
        ("SI-EX-4", "ex", "negative: a[-1, -3:-1] = b"),
        ("SI-EX-5", "ex", "ellipsis: a[..., 2:4] = b"),
        ("SI-EX-6", "ex", "single element: a[2, 3] = 5 on DT_INT32"),
        ("SI-EX-7", "ex", "scatter form: a[0:indices] = values", True),
        ("SI-GAP-REGION", "gap", "an explicit stop that disagrees with the value's shape is not covered"),
        ("SI-GAP-RANGE", "gap", "ints or slice bounds outside the axis, a region running past the target, or more "
                                "indices than dims: not stated", True),
        ("SI-GAP-DTYPE", "gap", "a value whose dtype differs from the target's (or an int scalar outside int32): not "
                                "stated", True),
        ("SI-GAP-MOVE", "gap", "c[:] = v with v's shape different from c's: 'move' and the assemble rule "
                               "disagree", True),
    ],
    "clip": [
        ("CL-FORMULA", "sem", "y = min(max(x, lo), hi) elementwise; returns a new tensor; the input is not modified"),
        ("CL-DTYPE", "sem", "input dtypes FP32, FP16, BF16, INT32, INT16; output dtype equals input dtype"),
        ("CL-RANK", "uns", "only 1-4 dims; no empty tensors; at most INT32_MAX elements"),
        ("CL-BOUND-TYPES", "sem", "a bound is int, float, Element or Tensor; scalars become an Element of the input "
                                  "dtype"),
        ("CL-BOUND-DTYPE", "err", "a Tensor/Element bound must have the input's dtype (FP32, FP16, INT32, INT16)"),
        ("CL-SAME-KIND", "err", "lo and hi must be of the same kind: both Element or both Tensor"),
        ("CL-BROADCAST", "sem", "a Tensor bound must broadcast to the input's shape"),
        ("CL-DEFAULTS", "sem", "lo defaults to -inf, hi to +inf; for integer inputs the default comparison is skipped"),
        ("CL-NONE", "sem", "both bounds omitted: the values are returned unchanged"),
        ("CL-NAN-BOUND", "sem", "a NaN bound gives NaN output"),
        ("CL-MIN-GT-MAX", "sem", "where lo > hi the output is hi"),
        ("CL-NONFLOAT-SPECIAL", "sem", "NaN and infinities only mean something for float dtypes"),
        ("CL-EX-1", "ex", "the tensor-bound example"),
        ("CL-EX-2", "ex", "the scalar-bound example"),
        ("CL-GAP-NAN-X", "gap", "what NaN in x gives is not stated"),
        ("CL-GAP-BF16", "gap", "BF16 is listed for the input but not for Tensor/Element bounds"),
        ("CL-GAP-CAST", "gap", "a scalar bound the input dtype cannot hold (1.5 for INT32, 40000 for INT16): "
                               "its conversion is not stated", True),
    ],
    "scatter": [
        ("SC-RULE", "sem", "for every position p of index: self[p with p[dim] = index[p]] = src[p]"),
        ("SC-VALUE", "sem", "a float value may replace src: every indexed position gets the value"),
        ("SC-NDIM", "err", "self, index and src have the same number of dims"),
        ("SC-RANGE", "err", "every index value is in [0, self.size(dim) - 1] (RuntimeError 'Invalid index in "
                            "scatter')"),
        ("SC-SIZE-SRC", "err", "index.size(d) <= src.size(d) for every d"),
        ("SC-SIZE-SELF", "err", "index.size(d) <= self.size(d) for every d != dim"),
        ("SC-DUP", "uns", "index values along dim must not repeat; the winner of a collision is not defined"),
        ("SC-INPLACE", "sem", "scatter_ writes into self; scatter returns a new tensor"),
        ("SC-EX-1", "ex", "the dim-0 example"),
        ("SC-EX-2", "ex", "the scalar 1.23 example"),
        ("SC-EX-3", "ex", "the dim-1 [[0,1,2],[2,0,1]] example"),
        ("SC-GAP-DUP-ERR", "gap", "the source shows an old torch raising for a dim-1 case with repeats; current torch "
                                  "does not"),
        ("SC-GAP-DTYPE", "gap", "index dtype (the source shows int64 only), a src dtype other than self's, "
                                "bool/float index: not stated", True),
        ("SC-GAP-DIM", "gap", "a negative or out-of-range dim, and 0-d tensors: not stated", True),
        ("SC-GAP-VALUE-CAST", "gap", "a value self's dtype cannot hold (1.23 into an int tensor): not stated", True),
    ],
    "scatter_nd_add": [
        ("SNA-RULE", "sem", "for every leading position i of indices: x[indices[i]] += updates[i]"),
        ("SNA-SHAPES", "sem", "x rank P; indices rank Q >= 2, last dim N <= P; updates shape indices.shape[:-1] + "
                              "x.shape[N:]"),
        ("SNA-DUP", "sem", "repeated indices accumulate"),
        ("SNA-RETURN", "sem", "returns x after the update, same shape and dtype; x itself is updated"),
        ("SNA-IDX-DTYPE", "err", "indices dtype other than int32/int64: TypeError"),
        ("SNA-DTYPE", "err", "x and updates of different dtypes: TypeError"),
        ("SNA-LOCK", "err", "use_locking not a bool: TypeError"),
        ("SNA-UPD-SHAPE", "err", "updates shape not equal to indices.shape[:-1] + x.shape[N:]: ValueError"),
        ("SNA-CONVERT", "err", "an impossible implicit conversion of updates: RuntimeError"),
        ("SNA-EX-1", "ex", "the 1-D float32 example"),
        ("SNA-EX-2", "ex", "the 3-D int32 example"),
        ("SNA-GAP-RANGE", "gap", "out-of-range and negative indices are not mentioned"),
        ("SNA-GAP-CONVERT", "gap", "SNA-DTYPE raises TypeError for any dtype difference, SNA-CONVERT implies an "
                                   "implicit "
                                   "conversion that fails with RuntimeError only when impossible", True),
        ("SNA-GAP-DTYPE", "gap", "x's dtypes are not listed; bool has no addition", True),
        ("SNA-GAP-OVERFLOW", "gap", "an integer sum outside the dtype's range is not mentioned", True),
    ],
    "set_": [
        ("ST-EMPTY", "sem", "set_() makes self an empty tensor"),
        ("ST-STORAGE", "sem", "set_(storage) makes self use that storage"),
        ("ST-STORAGE-VIEW", "sem", "set_(storage, offset, size, stride) also sets offset, size and stride"),
        ("ST-TENSOR", "sem", "set_(tensor) shares the tensor's storage with its offset, size and stride"),
        ("ST-TENSOR-VIEW", "sem", "set_(tensor, offset, size, stride) shares storage with the given view"),
        ("ST-STRIDE-DEFAULT", "sem", "stride None means row-major contiguous strides for size"),
        ("ST-ALIAS", "sem", "after set_, a write through either tensor is visible through the other"),
        ("ST-E-TYPE", "err", "wrong argument types or count: TypeError"),
        ("ST-E-BOUNDS", "err", "size equal to self's current size and the view needs storage beyond the source's: "
                               "RuntimeError"),
        ("ST-GAP-BOUNDS", "gap", "a view beyond the source's storage with a size different from self's is not covered"),
        ("ST-E-OFFSET", "err", "storage_offset < 0: RuntimeError"),
        ("ST-E-NEGSIZE", "err", "a negative size entry: RuntimeError"),
        ("ST-E-NEGSTRIDE", "err", "a negative stride entry: RuntimeError"),
        ("ST-E-RANK", "err", "len(size) != len(stride): RuntimeError"),
        ("ST-E-MAXDIM", "err", "more than 8 dims: RuntimeError"),
        ("ST-E-NONCONTIG", "err", "a non-contiguous source tensor together with size/stride: RuntimeError"),
        ("ST-E-DTYPE", "err", "set_(tensor) alone with a different dtype, or a Storage of another dtype: RuntimeError"),
        ("ST-E-DEVICE", "err", "source on another device: RuntimeError"),
        ("ST-EX-1", "ex", "the float64-target / float32-source example printing [10, 20, 30]"),
        ("ST-GAP-EXAMPLE", "gap", "ST-EX-1 contradicts ST-E-DTYPE (the example's dtypes differ)"),
        ("ST-GAP-DTYPE-VIEW", "gap", "set_(tensor, offset, size, stride) with a dtype other than self's is not "
                                     "covered", True),
        ("ST-GAP-BOOLINT", "gap", "a bool where an int is required (Python's bool is an int): not stated", True),
        ("ST-GAP-DEFAULT-ARG", "gap", "set_(source, storage_offset=0) without size: excluded by the list of "
                                      "legal signatures, admitted by the prototype's default", True),
    ],
}


def _build():
    out = {}
    for op, rows in _ROWS.items():
        for row in rows:
            cid, kind, statement, *added = row
            assert kind in KINDS and cid not in out, cid
            out[cid] = Clause(cid, op, kind, statement, bool(added and added[0]))
    return MappingProxyType(out)


CLAUSES = _build()


def findings():
    """The gap clauses: what the report lists as spec findings."""
    return [c for c in CLAUSES.values() if c.finding]

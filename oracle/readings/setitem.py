"""The second reading of pypto.Tensor.setitem.txt (pypto Tensor.__setitem__), sentence by sentence."""
from ..reading import Conflict, Reading, Sentence, RULE, EXAMPLE, NOTE

_P = "Parameters"
_C = "Constraints"
_X = "Call examples"

READING = Reading(
    document="pypto.Tensor.setitem.txt",
    sentences=(
        Sentence("setitem.support.1", "Product support", NOTE,
                 "Listed as available on Ascend 950PR/950DT, Atlas A3 and Atlas A2.",
                 untestable="a product-support list: no case can say which chip runs it"),
        Sentence("setitem.desc.1", "Description", RULE,
                 "Values are written into chosen positions of a tensor through an index or a slice.",
                 ("SI-KEY", "SI-INPLACE")),
        Sentence("setitem.proto.1", "Prototype", RULE,
                 "The method is __setitem__(self, key, value).", ("SI-KEY",)),
        Sentence("setitem.params.1", f"{_P}: key", RULE,
                 "key locates the positions to write. It may be an int or a SymbolicScalar (one integer index), a "
                 "slice, or a tuple mixing ints/SymbolicScalars, slices and Ellipsis. Indices outside the axis and "
                 "keys longer than the rank are not covered.", ("SI-KEY", "SI-GAP-RANGE")),
        Sentence("setitem.params.2", f"{_P}: value", RULE,
                 "A Tensor value is for slice or mixed keys, and its shape has to match the region the key covers "
                 "(no consequence is named).", ("SI-VAL-T", "SI-GAP-REGION", "SI-GAP-DTYPE")),
        Sentence("setitem.params.3", f"{_P}: value", RULE,
                 "A scalar value (int or SymbolicScalar) is for single-element assignment, and the target has to "
                 "be DT_INT32 (no consequence is named).", ("SI-VAL-S", "SI-GAP-DTYPE")),
        Sentence("setitem.ret.1", "Return value", RULE,
                 "Nothing is returned; the target is modified in place. Nothing is said of a value that is a view of the "
                 "target (the region it reads overlapping the one written).", ("SI-INPLACE", "SI-GAP-ALIAS")),
        Sentence("setitem.cons.1", f"{_C}: slice step", RULE,
                 "A slice written start:end:step may not set a step for now; the step is fixed at 1.",
                 ("SI-STEP",)),
        Sentence("setitem.cons.2", f"{_C}: slice step", EXAMPLE,
                 "Unsupported example: a[1:2:2, :].", ("SI-STEP",)),
        Sentence("setitem.cons.3", f"{_C}: bool index", RULE,
                 "bool indices are not supported for now.", ("SI-BOOL",)),
        Sentence("setitem.cons.4", f"{_C}: bool index", EXAMPLE,
                 "Unsupported example: a[True, False, True, False].", ("SI-BOOL",)),
        Sentence("setitem.cons.5", f"{_C}: tensor index", RULE,
                 "Tensor indices are not supported for now.", ("SI-TINDEX",)),
        Sentence("setitem.cons.6", f"{_C}: tensor index", EXAMPLE,
                 "Unsupported example: a[b] with b = pypto.Tensor([2], DT_INT32).", ("SI-TINDEX",)),
        Sentence("setitem.cons.7", f"{_C}: mixed index", RULE,
                 "For a mixed key (ints/SymbolicScalars with slices) the number of slices in the key has to equal "
                 "the value's number of dims (no consequence is named). Read as written: the slices the key "
                 "holds (an Ellipsis counts the axes it stands for); a trailing axis the key leaves out is not "
                 "a slice in the key, so a[0, 1:3] = v on a 2x4x4 target with a 2-d v breaks the rule.",
                 ("SI-MIXED-N",)),
        Sentence("setitem.cons.8", f"{_C}: single-element value", RULE,
                 "Single-element assignment takes only an int or SymbolicScalar value; a float is not supported "
                 "for now.", ("SI-FLOATSCALAR",)),
        Sentence("setitem.ex.1", f"{_X}: empty slice", RULE,
                 "c[:] = v writes the whole tensor and amounts to moving v into the target, the usual way to hand a "
                 "result to an output tensor; with v's shape equal to the target's, the data equal a full assemble "
                 "(a different shape is not covered).", ("SI-EMPTY", "SI-GAP-MOVE")),
        Sentence("setitem.ex.2", f"{_X}: empty slice", NOTE,
                 "The kernel sets its vector tile shape to (32, 32) before the assignment.",
                 untestable="hardware tiling setup with no effect on the value"),
        Sentence("setitem.ex.3", f"{_X}: empty slice", EXAMPLE,
                 "In an INT32 add kernel, c[:] = a + b with a = 1..16 as a 4x4 and b all ones gives c = 2..17.",
                 ("SI-EX-1", "SI-EMPTY")),
        Sentence("setitem.ex.4", f"{_X}: full slice", RULE,
                 "A slice key places a small tensor into a larger one at the given position.",
                 ("SI-ASSEMBLE",)),
        Sentence("setitem.ex.5", f"{_X}: full slice", EXAMPLE,
                 "With a 4x4 FP32 zero a and a 2x2 b of tens, a[0:, 0:] = b (the same as assemble(b, (0, 0), a)) "
                 "makes the top-left 2x2 ten and leaves the rest zero: the open stops take b's extent.",
                 ("SI-EX-2", "SI-ASSEMBLE")),
        Sentence("setitem.ex.6", f"{_X}: mixed index and slice", RULE,
                 "Ints combined with slices address particular rows or columns.", ("SI-MIXED",)),
        Sentence("setitem.ex.7", f"{_X}: mixed index and slice", EXAMPLE,
                 "a[0, 1:3] = b with b = [10, 10] (b taken as shape (1, 2), like assemble(b, (0, 1), a)) sets "
                 "row 0, columns 1 and 2, to ten.", ("SI-EX-3", "SI-MIXED")),
        Sentence("setitem.ex.8", f"{_X}: negative index", RULE,
                 "Negative indices count from the end, as in Python.", ("SI-NEG",)),
        Sentence("setitem.ex.9", f"{_X}: negative index", EXAMPLE,
                 "a[-1, -3:-1] = b (the same as a[3, 1:3]) with b = [10, 10] sets row 3, columns 1 and 2.",
                 ("SI-EX-4", "SI-NEG")),
        Sentence("setitem.ex.10", f"{_X}: ellipsis", RULE,
                 "An Ellipsis fills in the axes the key does not name.", ("SI-ELLIPSIS",)),
        Sentence("setitem.ex.11", f"{_X}: ellipsis", EXAMPLE,
                 "a[..., 2:4] = b with b a 2x2 of tens, said to equal a[0:2, 2:4], sets rows 0-1, columns 2-3: the "
                 "Ellipsis axis takes b's extent, not the whole axis.", ("SI-EX-5", "SI-ELLIPSIS")),
        Sentence("setitem.ex.12", f"{_X}: single-element assignment", RULE,
                 "An all-int key assigns one element; only DT_INT32 targets.", ("SI-VAL-S",)),
        Sentence("setitem.ex.13", f"{_X}: single-element assignment", EXAMPLE,
                 "a[2, 3] = 5 on a 4x4 DT_INT32 zero tensor sets that one element to 5 (the comment names the "
                 "internal SetTensorData call).", ("SI-EX-6", "SI-VAL-S")),
        Sentence("setitem.ex.14", f"{_X}: scatter", RULE,
                 "A slice key whose start is an int and whose stop is a Tensor, a[start:stop], performs a scatter; "
                 "the start serves as the dim. Its rules (ranges, repeats) are those of pypto.scatter, which this "
                 "page does not give.", ("SI-SCATTER",)),
        Sentence("setitem.ex.15", f"{_X}: scatter", EXAMPLE,
                 "With a 4x4 FP32 zero a, DT_INT32 indices [[0, 1, 2, 3]] and FP32 values [[10, 10, 10, 10]], "
                 "a[0:indices] = values (pypto.scatter(a, 0, indices, values)) sets the diagonal to ten.",
                 ("SI-EX-7", "SI-SCATTER")),
    ),
    conflicts=(
        Conflict("setitem.conflict.1", ("setitem.params.2", "setitem.ex.1"),
                 ("'Move': c[:] = v makes the target v, taking v's shape and values (target = v exactly).",
                  "Assemble / region match: with a shape different from the target's the value does not match the "
                  "region; the call raises (no class named), or, as a full-slice assemble (setitem.ex.4), v is "
                  "placed at the origin and the rest of the target kept (target = assemble(v, (0, ...), c), where "
                  "v fits)."),
                 "SI-GAP-MOVE", "c[:] = v with v's shape different from c's"),
        Conflict("setitem.conflict.2", ("setitem.params.2", "setitem.ex.5", "setitem.ex.11"),
                 ("The value's shape has to match the region the key covers (a must with no named class): a slice "
                  "with an explicit stop that disagrees with the value's extent is refused (any class).",
                  "Slice assignment is assemble at the slice starts (the examples take extents from the value, even "
                  "for a[0:, 0:] and a[..., 2:4] whose Python regions are larger): the value is placed at the starts "
                  "and the call returns target = assemble(value, starts, target) where it fits."),
                 "SI-GAP-REGION", "a slice key with an explicit stop whose extent (stop - start) differs from the "
                                  "value's size on that axis"),
    ),
)

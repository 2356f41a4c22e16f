"""The second reading of pypto.clip.txt (pypto clip), sentence by sentence."""
from ..reading import Conflict, Reading, Sentence, RULE, EXAMPLE, NOTE

_P = "Parameters: min"
_Q = "Parameters: max"

READING = Reading(
    document="pypto.clip.txt",
    sentences=(
        Sentence("clip.support.1", "Product support", NOTE,
                 "The op is listed as available on the Ascend 950PR/950DT, Atlas A3 and Atlas A2 product lines.",
                 untestable="a product-support list: no case can say which chip runs it"),
        Sentence("clip.desc.1", "Description", RULE,
                 "Each element of the input is limited to the range [min, max]: below min it becomes min, above "
                 "max it becomes max, otherwise it is kept.", ("CL-FORMULA",)),
        Sentence("clip.desc.2", "Description", RULE,
                 "The call is not in place: the input is left as it was and a fresh tensor is returned (so a "
                 "bound tensor that is a view of the input is only read: nothing is written, the formula fixes "
                 "the value; no aliasing gap).", ("CL-FORMULA",)),
        Sentence("clip.proto.1", "Prototype", RULE,
                 "clip takes input (a Tensor), then min and max, each optional, each a Tensor, an Element, a float "
                 "or an int, each defaulting to None; it returns a Tensor.",
                 ("CL-BOUND-TYPES", "CL-DEFAULTS", "CL-NONE")),
        Sentence("clip.input.1", "Parameters: input", RULE,
                 "The input is a source operand and must be a Tensor.", ("CL-FORMULA",)),
        Sentence("clip.input.2", "Parameters: input", RULE,
                 "Input dtypes supported: FP32, FP16, BF16, INT32, INT16.", ("CL-DTYPE",)),
        Sentence("clip.input.3", "Parameters: input", RULE,
                 "An empty input is not supported; only 1 to 4 dims are supported; the element count may not "
                 "exceed INT32_MAX.", ("CL-RANK",)),
        Sentence("clip.min.1", _P, RULE,
                 "min may be an int, a float, an Element or a Tensor.", ("CL-BOUND-TYPES",)),
        Sentence("clip.min.2", _P, RULE,
                 "min's dtype has to equal the input's dtype (no consequence is named).",
                 ("CL-BOUND-DTYPE",)),
        Sentence("clip.min.3", _P, RULE,
                 "A Python int or float given for min is turned into an Element carrying the input's dtype.",
                 ("CL-BOUND-TYPES", "CL-GAP-CAST")),
        Sentence("clip.min.4", _P, RULE,
                 "Should a different dtype be wanted for min, the user may build it as an Element.",
                 ("CL-BOUND-DTYPE", "CL-BOUND-TYPES")),
        Sentence("clip.min.5", _P, RULE,
                 "A Tensor or Element min may be FP32, FP16, INT32 or INT16 (BF16 is absent from this list).",
                 ("CL-BOUND-DTYPE", "CL-GAP-BF16")),
        Sentence("clip.min.6", _P, RULE,
                 "A Tensor min may not be empty, must have 1 to 4 dims and at most INT32_MAX elements.",
                 ("CL-RANK",)),
        Sentence("clip.min.7", _P, RULE,
                 "min may be left out; it then defaults to minus infinity.", ("CL-DEFAULTS",)),
        Sentence("clip.min.8", _P, RULE,
                 "NaN and the infinities are meaningful only in float arithmetic, that is for FP16 and FP32; for "
                 "INT16 and INT32 the comparison against the default is not performed.",
                 ("CL-NONFLOAT-SPECIAL", "CL-DEFAULTS", "CL-GAP-BF16")),
        Sentence("clip.max.1", _Q, RULE,
                 "max may be an int, a float, an Element or a Tensor.", ("CL-BOUND-TYPES",)),
        Sentence("clip.max.2", _Q, RULE,
                 "max's dtype has to equal the input's dtype (no consequence is named).",
                 ("CL-BOUND-DTYPE",)),
        Sentence("clip.max.3", _Q, RULE,
                 "A Python int or float given for max is turned into an Element carrying the input's dtype.",
                 ("CL-BOUND-TYPES", "CL-GAP-CAST")),
        Sentence("clip.max.4", _Q, RULE,
                 "Should a different dtype be wanted for max, the user may build it as an Element.",
                 ("CL-BOUND-DTYPE", "CL-BOUND-TYPES")),
        Sentence("clip.max.5", _Q, RULE,
                 "A Tensor or Element max may be FP32, FP16, INT32 or INT16 (BF16 is absent from this list).",
                 ("CL-BOUND-DTYPE", "CL-GAP-BF16")),
        Sentence("clip.max.6", _Q, RULE,
                 "A Tensor max may not be empty, must have 1 to 4 dims and at most INT32_MAX elements.",
                 ("CL-RANK",)),
        Sentence("clip.max.7", _Q, RULE,
                 "max may be left out; it then defaults to plus infinity.", ("CL-DEFAULTS",)),
        Sentence("clip.max.8", _Q, RULE,
                 "As for min: NaN and infinities only act for FP16/FP32; for INT16/INT32 the default comparison "
                 "is skipped.", ("CL-NONFLOAT-SPECIAL", "CL-DEFAULTS", "CL-GAP-BF16")),
        Sentence("clip.ret.1", "Return value", RULE,
                 "With scalar bounds, output element i is the smaller of (the larger of x_i and min) and max.",
                 ("CL-FORMULA",)),
        Sentence("clip.ret.2", "Return value", RULE,
                 "With tensor bounds the same formula holds element by element, using min_i and max_i (after "
                 "broadcasting).", ("CL-FORMULA", "CL-BROADCAST")),
        Sentence("clip.ret.3", "Return value", RULE,
                 "The output has the input's dtype.", ("CL-DTYPE",)),
        Sentence("clip.ret.4", "Return value", RULE,
                 "If either bound is NaN the output is NaN (where that bound is NaN). Nothing is said about NaN "
                 "inside x.", ("CL-NAN-BOUND", "CL-GAP-NAN-X")),
        Sentence("clip.ret.5", "Return value", RULE,
                 "Where min exceeds max, the output takes max's value.", ("CL-MIN-GT-MAX",)),
        Sentence("clip.cons.1", "Constraints, item 1", RULE,
                 "min and max have to be of one kind: both Element or both Tensor (no consequence is named; an "
                 "omitted bound's default is of neither kind).", ("CL-SAME-KIND",)),
        Sentence("clip.cons.2", "Constraints, item 2", RULE,
                 "A Tensor bound has to have a shape that broadcasts to the input's shape (no consequence is "
                 "named).", ("CL-BROADCAST",)),
        Sentence("clip.cons.3", "Constraints, item 3", RULE,
                 "Both bounds may be omitted together; the values then come back unchanged.", ("CL-NONE",)),
        Sentence("clip.cons.4", "Constraints, item 4", NOTE,
                 "Tensor inputs in the TILEOP_NZ layout are not supported.",
                 untestable="the NZ tile layout has no counterpart in a case (plain N-d arrays only)"),
        Sentence("clip.tile.1", "Call examples: TileShape", NOTE,
                 "Before calling, the user is to set a TileShape with set_vec_tile_shapes.",
                 untestable="hardware tiling setup; no effect on the value a case can observe"),
        Sentence("clip.tile.2", "Call examples: TileShape", NOTE,
                 "The TileShape has as many dims as the output.",
                 untestable="hardware tile-shape rule"),
        Sentence("clip.tile.3", "Call examples: TileShape", NOTE,
                 "Without broadcasting (input, min, max all [m, n]) a tile [m1, n1] splits the m and n axes.",
                 untestable="hardware tile-shape rule"),
        Sentence("clip.tile.4", "Call examples: TileShape", NOTE,
                 "With broadcasting (min and max [m, 1] against an [m, n] input) a tile [m1, n1] likewise splits "
                 "m and n.", untestable="hardware tile-shape rule (the broadcast itself is CL-BROADCAST)"),
        Sentence("clip.tile.5", "Call examples: TileShape", EXAMPLE,
                 "The tile is set with set_vec_tile_shapes(4, 16).",
                 untestable="hardware tiling call with no printed result"),
        Sentence("clip.ex.1", "Call examples: the first (tensor bounds)", EXAMPLE,
                 "INT32 x [[-2,1,2],[3,4,5]] with INT32 tensor bounds min [[-1,0,2],[0,3,5]] and max "
                 "[[1,2,1],[4,4,4]] gives [[-1,1,1],[3,4,4]] (two elements have min above max and take max).",
                 ("CL-EX-1", "CL-MIN-GT-MAX")),
        Sentence("clip.ex.2", "Call examples: example 2 (scalar bounds)", EXAMPLE,
                 "INT32 x [[0,2,4],[3,4,6]] with int bounds 1 and 3 gives [[1,2,3],[3,3,3]].",
                 ("CL-EX-2",)),
    ),
    conflicts=(
        Conflict("clip.conflict.1", ("clip.min.2", "clip.min.4", "clip.max.2", "clip.max.4"),
                 ("The bound's dtype must equal the input's: an Element (or Tensor) bound of another dtype is "
                  "refused; the document names no class, so raising any exception conforms.",
                  "A bound of another dtype may be built as an Element: an Element of another dtype is accepted "
                  "and the call returns min(max(x, lo), hi) in the input's dtype; this value is exact wherever the "
                  "bound value that wins at an element is representable in the input's dtype (the conversion of "
                  "one that is not, e.g. Element(FP32, 2.5) on INT32, is not stated)."),
                 "CL-BOUND-DTYPE",
                 "an Element bound whose dtype differs from the input's (a Tensor bound of another dtype is covered "
                 "by the must-equal sentence alone)"),
        Conflict("clip.conflict.2", ("clip.input.2", "clip.min.5", "clip.max.5", "clip.min.3", "clip.max.3"),
                 ("BF16 is not a bound dtype: any bound on a BF16 input (a scalar is converted to a BF16 Element, a "
                  "Tensor must be BF16 to match) is outside the documented domain, so the call may raise (any "
                  "class).",
                  "BF16 is a documented input dtype and scalars become Elements of the input dtype: the call is "
                  "accepted and returns min(max(x, lo), hi) in BF16, exact where the bounds are representable in "
                  "BF16."),
                 "CL-GAP-BF16", "a BF16 input with at least one bound given"),
        Conflict("clip.conflict.3", ("clip.cons.1", "clip.min.7", "clip.max.7", "clip.proto.1"),
                 ("Constraint 1 requires both bounds to be of one kind; with one bound a Tensor and the other "
                  "omitted (its default is a scalar, i.e. an Element, or no operand at all) the kinds differ, so "
                  "the call is refused (any class).",
                  "Each bound is optional with its own default: the call is accepted and returns min(x, hi) "
                  "(min omitted) or max(x, lo) (max omitted), elementwise with broadcasting, in the input's dtype."),
                 "CL-SAME-KIND", "exactly one bound given, and it is a Tensor"),
    ),
)

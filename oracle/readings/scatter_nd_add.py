"""The second reading of mindspore.ops.scatter_nd_add.txt (mindspore ops.scatter_nd_add), sentence by sentence."""
from ..reading import Conflict, Reading, Sentence, RULE, ERROR, EXAMPLE, NOTE

_D = "Description"
_A = "Args"
_R = "Raises"
_E = "Examples"

READING = Reading(
    document="mindspore.ops.scatter_nd_add.txt",
    sentences=(
        Sentence("scatter_nd_add.proto.1", "Prototype", RULE,
                 "scatter_nd_add takes input_x, indices, updates and use_locking, the last defaulting to False.",
                 ("SNA-RULE", "SNA-LOCK")),
        Sentence("scatter_nd_add.desc.1", _D, RULE,
                 "The op applies a sparse addition to single values or to slices of a tensor.",
                 ("SNA-RULE", "SNA-DUP")),
        Sentence("scatter_nd_add.desc.2", _D, RULE,
                 "Tensor values are updated by adding the given values at the given indices.", ("SNA-RULE",)),
        Sentence("scatter_nd_add.desc.3", _D, RULE,
                 "After the update input_x itself is output, so the updated values are at hand. Nothing is said "
                 "of updates that are a view of input_x.", ("SNA-RETURN", "SNA-GAP-ALIAS")),
        Sentence("scatter_nd_add.desc.4", _D, RULE,
                 "input_x has rank P and indices rank Q, with Q at least 2.", ("SNA-SHAPES",)),
        Sentence("scatter_nd_add.desc.5", _D, RULE,
                 "indices has shape (i_0, ..., i_{Q-2}, N) with N no larger than P.", ("SNA-SHAPES",)),
        Sentence("scatter_nd_add.desc.6", _D, RULE,
                 "The last axis of indices (length N) addresses input_x along its first N dims, so N < P selects a "
                 "slice. Indices outside input_x, or negative, are not mentioned.",
                 ("SNA-RULE", "SNA-GAP-RANGE")),
        Sentence("scatter_nd_add.desc.7", _D, RULE,
                 "updates has rank Q-1+P-N and shape (i_0, ..., i_{Q-2}, x_shape_N, ..., x_shape_{P-1}).",
                 ("SNA-SHAPES", "SNA-UPD-SHAPE")),
        Sentence("scatter_nd_add.desc.8", _D, NOTE,
                 "An integer sum leaving the dtype's range is not mentioned.", ("SNA-GAP-OVERFLOW",)),
        Sentence("scatter_nd_add.args.1", f"{_A}: input_x", RULE,
                 "input_x is a Parameter of any rank, the tensor added into.", ("SNA-RULE", "SNA-RETURN")),
        Sentence("scatter_nd_add.args.2", f"{_A}: input_x", NOTE,
                 "input_x is typed as a Parameter (mindspore's mutable tensor); whether a plain Tensor is accepted "
                 "is not stated.",
                 untestable="a case carries arrays only; each adapter wraps x as its framework's mutable tensor"),
        Sentence("scatter_nd_add.args.3", f"{_A}: input_x", NOTE,
                 "No dtype list is given for input_x (bool, which has no addition, included).",
                 ("SNA-GAP-DTYPE",)),
        Sentence("scatter_nd_add.args.4", f"{_A}: indices", RULE,
                 "indices is a Tensor of int32 or int64.", ("SNA-IDX-DTYPE",)),
        Sentence("scatter_nd_add.args.5", f"{_A}: indices", RULE,
                 "indices must have rank 2 or more and indices.shape[-1] <= rank of input_x (no consequence is "
                 "named).", ("SNA-SHAPES",)),
        Sentence("scatter_nd_add.args.6", f"{_A}: updates", RULE,
                 "updates is the Tensor added to input_x; its dtype is input_x's.", ("SNA-DTYPE",)),
        Sentence("scatter_nd_add.args.7", f"{_A}: updates", RULE,
                 "updates has shape indices.shape[:-1] + x.shape[indices.shape[-1]:].", ("SNA-UPD-SHAPE",)),
        Sentence("scatter_nd_add.args.8", f"{_A}: use_locking", RULE,
                 "use_locking (bool) says whether a lock guards the update; default False. It does not change the "
                 "result.", ("SNA-LOCK",)),
        Sentence("scatter_nd_add.ret.1", "Returns", RULE,
                 "A Tensor, the updated input_x, with input_x's shape and dtype.", ("SNA-RETURN",)),
        Sentence("scatter_nd_add.raises.1", _R, ERROR,
                 "A use_locking that is not a bool raises TypeError.", ("SNA-LOCK",)),
        Sentence("scatter_nd_add.raises.2", _R, ERROR,
                 "An indices dtype other than int32/int64 raises TypeError.", ("SNA-IDX-DTYPE",)),
        Sentence("scatter_nd_add.raises.3", _R, ERROR,
                 "input_x and updates of different dtypes raise TypeError.", ("SNA-DTYPE", "SNA-GAP-CONVERT")),
        Sentence("scatter_nd_add.raises.4", _R, ERROR,
                 "An updates shape other than indices.shape[:-1] + x.shape[indices.shape[-1]:] raises ValueError.",
                 ("SNA-UPD-SHAPE",)),
        Sentence("scatter_nd_add.raises.5", _R, ERROR,
                 "When input_x and updates differ in dtype so that a conversion is needed, and updates cannot be "
                 "converted to the dtype input_x needs, RuntimeError is raised (which pairs convert is not said).",
                 ("SNA-CONVERT", "SNA-GAP-CONVERT")),
        Sentence("scatter_nd_add.support.1", "Supported platforms", NOTE,
                 "Ascend, GPU and CPU.", untestable="a platform list: no case can say which backend runs it"),
        Sentence("scatter_nd_add.ex.1", f"{_E}: the first", EXAMPLE,
                 "float32 x [1..8], int32 indices [[2],[4],[1],[7]], float32 updates [6,7,8,9], use_locking False "
                 "give [1, 10, 9, 4, 12, 6, 7, 17].", ("SNA-EX-1",)),
        Sentence("scatter_nd_add.ex.2", f"{_E}: the second", EXAMPLE,
                 "int32 zeros (4,4,4), int32 indices [[0],[2]], int32 updates of shape (2,4,4) (rows 1..4 and "
                 "5..8) give slices 0 and 2 equal to those updates and slices 1 and 3 zero.", ("SNA-EX-2",)),
    ),
    conflicts=(
        Conflict("scatter_nd_add.conflict.1",
                 ("scatter_nd_add.raises.3", "scatter_nd_add.raises.5", "scatter_nd_add.args.6"),
                 ("Any dtype difference between input_x and updates raises TypeError.",
                  "A dtype difference triggers an implicit conversion of updates to input_x's dtype: where the "
                  "conversion is possible the call returns x + updates accumulated in input_x's dtype (both 'out' "
                  "and x), exact where every update value is representable in input_x's dtype; where it is not "
                  "possible, RuntimeError. Which pairs are convertible is not stated, so for a given pair both "
                  "outcomes of this reading stay admissible."),
                 "SNA-DTYPE", "updates whose dtype differs from input_x's (any indices/shape that pass the other checks)"),
    ),
)

"""The second reading of torch.Tensor.scatter_.txt (a blog description of torch scatter_/scatter with a torch
1.2 session transcript), sentence by sentence."""
from ..reading import Conflict, Reading, Sentence, RULE, ERROR, EXAMPLE, NOTE

_REF = "Reference links (the two signatures)"
_DESC = "Function description"
_SUP = "Supplement (the rules after the description)"
_SES = "Code experiment (the torch 1.2 session)"

READING = Reading(
    document="torch.Tensor.scatter_.txt",
    sentences=(
        Sentence("scatter.ref.1", _REF, RULE,
                 "scatter(dim, index, source) returns a Tensor (out of place; its third parameter is named source): it "
                 "writes nothing, so a source that is a view of self is only read (no aliasing gap).",
                 ("SC-INPLACE", "SC-RULE")),
        Sentence("scatter.ref.2", _REF, RULE,
                 "scatter_(dim, index, src) returns a Tensor and, by the trailing underscore, writes into self. "
                 "Nothing is said of a src that is a view of self.", ("SC-INPLACE", "SC-RULE", "SC-GAP-ALIAS")),
        Sentence("scatter.desc.1", _DESC, RULE,
                 "The elements of src are written into self along a chosen dim at positions the index gives.",
                 ("SC-RULE",)),
        Sentence("scatter.desc.2", _DESC, RULE,
                 "The writing visits every position of index in turn; at index position (i, j, k) the element "
                 "src[i][j][k] is taken.", ("SC-RULE",)),
        Sentence("scatter.desc.3", _DESC, RULE,
                 "The prose then says the element is written into src at (i, j, k) with the dim coordinate replaced "
                 "by the index value; 'src' here is a slip for self (the three formulas that follow, and the "
                 "transcript, write self and leave src unchanged).", ("SC-RULE",)),
        Sentence("scatter.desc.4", _DESC, RULE,
                 "For dim 0: self[index[i][j][k]][j][k] = src[i][j][k].", ("SC-RULE",)),
        Sentence("scatter.desc.5", _DESC, RULE,
                 "For dim 1: self[i][index[i][j][k]][k] = src[i][j][k].", ("SC-RULE",)),
        Sentence("scatter.desc.6", _DESC, RULE,
                 "For dim 2: self[i][j][index[i][j][k]] = src[i][j][k]. Nothing is said about negative dims, dims "
                 "out of range or 0-d tensors.", ("SC-RULE", "SC-GAP-DIM")),
        Sentence("scatter.sup.1", _SUP, RULE,
                 "self, index and src must have the same number of dims (no consequence is named).",
                 ("SC-NDIM",)),
        Sentence("scatter.sup.2", _SUP, RULE,
                 "Instead of a src tensor a float value may be given; each indexed position then receives it. "
                 "How a value self's dtype cannot hold is stored is not stated.",
                 ("SC-VALUE", "SC-GAP-VALUE-CAST")),
        Sentence("scatter.sup.3", _SUP, ERROR,
                 "Index values lie in [0, self.size(dim) - 1]; any other value is an out-of-bounds index (an error, "
                 "no exception class named).", ("SC-RANGE",)),
        Sentence("scatter.sup.4", _SUP, RULE,
                 "Index values must not repeat along dim (no consequence is named in this sentence; the transcript "
                 "shows torch 1.2 raising for such a call).", ("SC-DUP", "SC-GAP-DUP-ERR")),
        Sentence("scatter.sup.5", _SUP, ERROR,
                 "In every dim, index may not be longer than src; otherwise the index is out of bounds (no class "
                 "named).", ("SC-SIZE-SRC",)),
        Sentence("scatter.sup.6", _SUP, RULE,
                 "In every dim other than dim, index.size(d) is at most self.size(d) (no consequence is named, "
                 "unlike the src sentence before it: a precondition, not an error; read as written).",
                 ("SC-SIZE-SELF",)),
        Sentence("scatter.sup.7", _SUP, NOTE,
                 "The author adds that, since values along dim cannot repeat, index.size(dim) <= self.size(dim) "
                 "follows as well (a consequence of the range and no-repeat rules, not a separate check).",
                 ("SC-DUP", "SC-RANGE")),
        Sentence("scatter.ses.1", _SES, NOTE,
                 "The session runs on Windows, Python 3.7, torch 1.2 in a conda environment, with a fixed seed.",
                 untestable="environment of the transcript; the seed only explains the printed random x"),
        Sentence("scatter.ex.1", _SES, EXAMPLE,
                 "x = rand(2, 5) prints [[0.9817, 0.9880, 0.8879, 0.3911, 0.8532], [0.2367, 0.6074, 0.6374, "
                 "0.7830, 0.1322]] (the src of the calls below; only 4 decimals are shown).",
                 ("SC-EX-1", "SC-EX-3")),
        Sentence("scatter.ex.2", f"{_SES}: the dim-0 call", EXAMPLE,
                 "zeros(3, 5).scatter_(0, [[0,1,2,0,0],[2,0,0,1,2]], x) gives rows [0.9817, 0.6074, 0.6374, 0.3911, "
                 "0.8532], [0, 0.9880, 0, 0.7830, 0], [0.2367, 0, 0.8879, 0, 0.1322].", ("SC-EX-1",)),
        Sentence("scatter.ex.3", f"{_SES}: the scalar 1.23 call", EXAMPLE,
                 "zeros(2, 4).scatter_(1, [[2],[3]], 1.23) gives [[0, 0, 1.23, 0], [0, 0, 0, 1.23]].",
                 ("SC-EX-2", "SC-VALUE")),
        Sentence("scatter.ex.4", f"{_SES}: the call that raised", EXAMPLE,
                 "zeros(3, 5).scatter_(1, [[0,1,2,0,0],[2,0,0,1,2]], x) raises RuntimeError 'Invalid index in "
                 "scatter' in torch 1.2; its index values are all in range but repeat along dim 1.",
                 ("SC-GAP-DUP-ERR", "SC-DUP")),
        Sentence("scatter.ex.5", _SES, EXAMPLE,
                 "x printed again is unchanged after the failed call (src is only read).",
                 ("SC-RULE",)),
        Sentence("scatter.ex.6", f"{_SES}: the last dim-1 call", EXAMPLE,
                 "zeros(3, 5).scatter_(1, [[0,1,2],[2,0,1]], x) gives rows [0.9817, 0.9880, 0.8879, 0, 0], "
                 "[0.6074, 0.6374, 0.2367, 0, 0], [0, 0, 0, 0, 0].", ("SC-EX-3",)),
        Sentence("scatter.ex.7", _SES, NOTE,
                 "The closing comment concludes that index values may not repeat along dim.",
                 ("SC-DUP", "SC-GAP-DUP-ERR")),
        Sentence("scatter.ses.2", _SES, NOTE,
                 "Every index in the session is built with torch.tensor from Python ints (int64); no other index "
                 "dtype, and no src dtype other than self's, appears.", ("SC-GAP-DTYPE",)),
    ),
    conflicts=(
        Conflict("scatter.conflict.1", ("scatter.sup.4", "scatter.ex.4", "scatter.ex.7"),
                 ("The document's own demonstration: index values repeating along dim make the call raise "
                  "(RuntimeError in the transcript; the supplement itself names no class, so any class).",
                  "'Must not repeat' is a precondition without a stated consequence: the call may return, and each "
                  "element written more than once then holds one of the src values aimed at it (the rule says each "
                  "visit writes its src value; which visit is last is not stated), every other element as SC-RULE "
                  "gives."),
                 "SC-DUP", "an index with a value repeated along dim (e.g. the transcript's raising call)"),
    ),
)

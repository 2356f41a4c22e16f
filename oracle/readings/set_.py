"""The second reading of mindspore.Tensor.set_.txt (mindspore Tensor.set_), sentence by sentence."""
from ..reading import Conflict, Reading, Sentence, RULE, ERROR, EXAMPLE, NOTE

_S = "Legal call signatures"
_N = "Notes"
_A = "Args"
_R = "Raises"

READING = Reading(
    document="mindspore.Tensor.set_.txt",
    sentences=(
        Sentence("set_.proto.1", "Prototype", RULE,
                 "set_(source=None, storage_offset=0, size=None, stride=None) returns a Tensor: every argument has "
                 "a default.", ("ST-EMPTY", "ST-GAP-DEFAULT-ARG")),
        Sentence("set_.desc.1", "Description", RULE,
                 "The call sets self's underlying storage, size and stride.",
                 ("ST-STORAGE", "ST-STORAGE-VIEW", "ST-TENSOR", "ST-TENSOR-VIEW")),
        Sentence("set_.desc.2", "Description", RULE,
                 "With a tensor source, self comes to share that tensor's storage and takes its size and stride.",
                 ("ST-TENSOR",)),
        Sentence("set_.desc.3", "Description", RULE,
                 "Afterwards a change to the elements of either tensor is seen through the other.",
                 ("ST-ALIAS",)),
        Sentence("set_.sigs.1", _S, RULE,
                 "Several argument combinations are accepted; the legal ones are exactly the five listed next.",
                 ("ST-E-TYPE", "ST-GAP-DEFAULT-ARG")),
        Sentence("set_.sigs.2", f"{_S}: set_()", RULE,
                 "With no argument, self becomes an empty, uninitialised tensor.", ("ST-EMPTY",)),
        Sentence("set_.sigs.3", f"{_S}: set_(source: Storage)", RULE,
                 "With a Storage alone, self's underlying storage becomes that Storage.", ("ST-STORAGE",)),
        Sentence("set_.sigs.4", f"{_S}: set_(source: Storage, storage_offset, size, stride)", RULE,
                 "With a Storage plus offset, size (tuple or list) and stride (tuple or list), self uses the "
                 "Storage and takes the given size and stride (the offset is named only in the signature).",
                 ("ST-STORAGE-VIEW",)),
        Sentence("set_.sigs.5", f"{_S}: set_(source: Tensor)", RULE,
                 "With a tensor alone, self shares its storage and copies its storage_offset, size and stride.",
                 ("ST-TENSOR",)),
        Sentence("set_.sigs.6", f"{_S}: set_(source: Tensor, storage_offset, size, stride)", RULE,
                 "With a tensor plus offset, size and stride, self shares the tensor's storage and takes the given "
                 "size and stride.", ("ST-TENSOR-VIEW",)),
        Sentence("set_.notes.1", _N, NOTE,
                 "If set_ is called while the tensor is on CPU and it is later used on Ascend, copying it to "
                 "Ascend explicitly is advised.",
                 untestable="device-transfer advice; no result a case can observe"),
        Sentence("set_.notes.2", _N, RULE,
                 "If set_ is called on CPU and the storage it sets is not contiguous, later in-place changes on "
                 "CPU do not take effect.", ("ST-ALIAS", "ST-GAP-CPU-WRITE")),
        Sentence("set_.args.1", f"{_A}: source", RULE,
                 "source is a Tensor or a Storage whose storage is to be shared.",
                 ("ST-E-TYPE", "ST-STORAGE", "ST-TENSOR")),
        Sentence("set_.args.2", f"{_A}: storage_offset", RULE,
                 "storage_offset (an int) is self's offset into the underlying storage (counted from the start of "
                 "the storage, not from the source tensor's own offset).",
                 ("ST-STORAGE-VIEW", "ST-TENSOR-VIEW", "ST-E-TYPE", "ST-GAP-BOOLINT")),
        Sentence("set_.args.3", f"{_A}: size", RULE,
                 "size (a tuple or a list) is self's size over the storage.",
                 ("ST-STORAGE-VIEW", "ST-TENSOR-VIEW", "ST-E-TYPE", "ST-GAP-BOOLINT")),
        Sentence("set_.args.4", f"{_A}: stride", RULE,
                 "stride (a tuple or a list) is optional; its default None means row-major contiguous strides.",
                 ("ST-STRIDE-DEFAULT", "ST-GAP-BOOLINT")),
        Sentence("set_.raises.1", _R, ERROR,
                 "Arguments of the wrong type, or a number of arguments that matches no signature, raise "
                 "TypeError.", ("ST-E-TYPE",)),
        Sentence("set_.raises.2", _R, ERROR,
                 "RuntimeError when the size given equals self's current size and the storage the new view needs "
                 "exceeds the source's storage (read literally, the sentence asserts rather than conditions the "
                 "excess; a view beyond the storage with another size is not covered).",
                 ("ST-E-BOUNDS", "ST-GAP-BOUNDS")),
        Sentence("set_.raises.3", _R, ERROR,
                 "A storage_offset below 0 raises RuntimeError.", ("ST-E-OFFSET",)),
        Sentence("set_.raises.4", _R, ERROR,
                 "A negative entry in size raises RuntimeError.", ("ST-E-NEGSIZE",)),
        Sentence("set_.raises.5", _R, ERROR,
                 "A negative entry in stride raises RuntimeError.", ("ST-E-NEGSTRIDE",)),
        Sentence("set_.raises.6", _R, ERROR,
                 "size and stride of different lengths raise RuntimeError.", ("ST-E-RANK",)),
        Sentence("set_.raises.7", _R, ERROR,
                 "A size with more than 8 entries raises RuntimeError.", ("ST-E-MAXDIM",)),
        Sentence("set_.raises.8", _R, ERROR,
                 "A tensor source together with size (and the rest) raises RuntimeError when the source tensor is "
                 "not contiguous.", ("ST-E-NONCONTIG",)),
        Sentence("set_.raises.9", _R, ERROR,
                 "A tensor source with no other argument raises RuntimeError when self's dtype differs from the "
                 "source's (a dtype difference in the tensor-with-view form is not covered).",
                 ("ST-E-DTYPE", "ST-GAP-EXAMPLE", "ST-GAP-DTYPE-VIEW")),
        Sentence("set_.raises.10", _R, ERROR,
                 "A Storage source whose dtype differs from self's raises RuntimeError.", ("ST-E-DTYPE",)),
        Sentence("set_.raises.11", _R, ERROR,
                 "self and source on different devices raise RuntimeError.", ("ST-E-DEVICE",)),
        Sentence("set_.ex.1", "Examples", EXAMPLE,
                 "data is a float32 tensor [10, 20, 30]; target, built from np.zeros(3), is float64 and prints "
                 "[0., 0., 0.].", ("ST-EX-1",)),
        Sentence("set_.ex.2", "Examples", EXAMPLE,
                 "target.set_(data) succeeds (the transcript shows no echo of the returned tensor) and target then "
                 "prints [10., 20., 30.]: a float64 self took a float32 source, which raises.9 forbids.",
                 ("ST-EX-1", "ST-GAP-EXAMPLE")),
    ),
    conflicts=(
        Conflict("set_.conflict.1", ("set_.raises.9", "set_.ex.2"),
                 ("Raises list: set_(tensor) alone with self's dtype different from the source's raises "
                  "RuntimeError.",
                  "The worked example: the call is accepted, self shares the source's storage and shows its values "
                  "(self = the source's values, [10., 20., 30.] for the example, in the source's dtype), and a "
                  "write through self shows in the source (ST-ALIAS)."),
                 "ST-E-DTYPE", "set_(source_tensor) with no other argument, self's dtype different from the source's "
                               "(the example's float64 self / float32 source among them); the Storage form is not "
                               "touched (raises.10 alone)"),
        Conflict("set_.conflict.2", ("set_.proto.1", "set_.sigs.1"),
                 ("The list of legal signatures is closed: set_(source, storage_offset=0) without size matches none "
                  "and raises TypeError (raises.1, argument count).",
                  "The prototype gives storage_offset the default 0: passing 0 is passing the default, so the call "
                  "is set_(source) and returns exactly what ST-STORAGE / ST-TENSOR give (with their dtype rules)."),
                 "ST-GAP-DEFAULT-ARG", "storage_offset=0 given explicitly, size not given (stride not given)"),
        Conflict("set_.conflict.3", ("set_.proto.1", "set_.sigs.1", "set_.sigs.4", "set_.sigs.6", "set_.args.4"),
                 ("The legal signatures with a view list storage_offset, size and stride together: a call with size "
                  "but without storage_offset or without stride matches none and raises TypeError.",
                  "The prototype defaults storage_offset to 0 and the Args make stride optional (None: contiguous): "
                  "the call is accepted and returns exactly the view (offset 0, and/or row-major strides for size) "
                  "with every other rule of the view form applying."),
                 "ST-GAP-DEFAULT-ARG", "size given with storage_offset omitted and/or stride omitted or None"),
        Conflict("set_.conflict.4", ("set_.proto.1", "set_.sigs.1"),
                 ("The closed signature list: a non-zero storage_offset, or a stride, without size raises TypeError.",
                  "The prototype admits the call (size defaults to None); what view results is not stated, so the "
                  "value is open."),
                 "ST-E-TYPE", "storage_offset != 0 or a stride given while size is not"),
        Conflict("set_.conflict.5", ("set_.desc.3", "set_.notes.2"),
                 ("A write through self after set_ is visible through the source (source_after_fill shows the "
                  "probe at every storage element self's view covers).",
                  "On CPU with a non-contiguous view, in-place writes do not take effect: the source is seen "
                  "unchanged after self.fill_(probe)."),
                 "ST-GAP-CPU-WRITE", "a set_ with a size/stride view that is not contiguous, followed by the probe "
                                     "write, on CPU"),
    ),
)

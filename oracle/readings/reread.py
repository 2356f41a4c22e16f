"""The third reading (issue 39): each answer it changed, with the sentence it rests on as the page writes it
and in English.  (The readings themselves paraphrase; a change of answer quotes, so the quote can be checked
against the page.)"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reread:
    sentence: str       # the Sentence id of oracle/readings/<op>.py
    original: str       # the page's words
    english: str        # their translation
    change: str         # what the oracle answers now, and why


REREAD = (
    Reread("clip.desc.2", "该接口非原地操作，不改变输入Tensor，而是返回一个新的Tensor作为输出。",
           "This interface is not in place: it does not change the input Tensor, it returns a new Tensor as output.",
           "CL-GAP-ALIAS goes: a bound that is a view of x is only read, CL-FORMULA fixes the value "
           "(OpSpec.writes_nothing)."),
    Reread("scatter.ref.1", "scatter(dim, index, source) → Tensor",
           "scatter(dim, index, source) returns a Tensor (the out-of-place form; scatter_ writes into self).",
           "SC-GAP-ALIAS applies to scatter_ only: the out-of-place scatter writes nothing, its src view is read."),
    Reread("scatter.sup.5", "在所有维度上,index的维度长度都不得大于src,否则索引越界.",
           "In every dimension, index's length must not exceed src's, otherwise the index is out of bounds.",
           "SC-SIZE-SRC is decided over the dims both have, whatever SC-NDIM says: a documented error is not "
           "masked by an open precondition."),
    Reread("scatter.sup.6", "除了在dim维度上,index.size(d) <= self.size(d).",
           "Except along dim, index.size(d) <= self.size(d).",
           "SC-SIZE-SELF names no consequence (the src sentence before it says 否则索引越界, \"otherwise the "
           "index is out of bounds\"; this one says nothing), as SC-NDIM's 必须 names none: a precondition, so "
           "the call is unspecified (any outcome but a crash), not an error. 36 corpus cases; 33 change (the "
           "other 3 hold a documented error as well)."),
    Reread("scatter_nd_add.raises.4",
           "ValueError - updates 的shape不等于 indices.shape[:-1] + x.shape[indices.shape[-1]:]",
           "ValueError - the shape of updates is not indices.shape[:-1] + x.shape[indices.shape[-1]:]",
           "The expression is evaluated as written wherever it has a value (rank-1 indices included): x (4,), "
           "indices [1], updates (3,) is this ValueError, not SNA-SHAPES' open answer."),
    Reread("scatter_nd_add.raises.2", "TypeError - indices 的数据类型不是int32或int64。",
           "TypeError - the dtype of indices is not int32 or int64.",
           "With a wrong updates shape as well, the Raises list orders nothing: TypeError and ValueError."),
    Reread("setitem.cons.7", "混合索引（int/SymbolicScalar与slice组合）赋值时，key中slice的个数必须与value的维度数一致。",
           "When assigning with a mixed index (int/SymbolicScalar combined with slice), the number of slices in "
           "the key must equal the number of dims of value.",
           "SI-MIXED-N counts the slices the key holds, not an implied trailing one: a3[0, 1:3] = v (2x4x4 "
           "target, v 2x4) breaks the rule (unspecified), where it was a plain value."),
    Reread("setitem.ex.1", "使用空切片对Tensor整体赋值，等价于将value整体移动到目标Tensor（move），常用于将计算结果赋给输出"
                           "Tensor。当value与目标Tensor形状一致时，最终数据效果等价于全量assemble。",
           "Assigning the whole Tensor with an empty slice amounts to moving value into the target Tensor "
           "(move), the usual way to hand a result to an output Tensor. When value has the target's shape, the "
           "data equal a full assemble.",
           "SI-GAP-MOVE (setitem.conflict.1) admits exactly its readings' arrays, not any outcome: refused, v "
           "moved in (the target becomes v), or v assembled at the origin where it fits; a v of another ndim "
           "is this conflict too (SI-VAL-T's region is the whole target)."),
    Reread("set_.raises.1", "TypeError - 入参类型不符合要求，或入参个数不匹配。",
           "TypeError - an argument's type does not meet the requirements, or the number of arguments matches "
           "none.",
           "Beside a RuntimeError condition of the same list (ST-E-DEVICE, ST-E-OFFSET, ...), which the list does "
           "not order against it, each is admitted: ST-E-TYPE with ST-E-DEVICE admits TypeError and "
           "RuntimeError."),
)

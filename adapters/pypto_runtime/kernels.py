"""One pypto kernel per case, written the way a pypto user writes it.

A case becomes the source text of a `@pypto.frontend.jit` function whose
parameters carry the case's shapes and dtypes, and whose body is the documented
call (`target[key] = value`, `out[:] = pypto.clip(x, lo, hi)`,
`out[:] = pypto.scatter(input_, dim, index, src)`, `input_.scatter_(...)`).
Nothing is validated, clamped or cast here: an unsupported key or dtype is
written as the user would write it, so pypto itself accepts or rejects it.

pypto's parser reads the kernel's source with `inspect`, so kernels are written
to files (in the workspace) and compiled from there; the same text is the repro.
"""
from __future__ import annotations

import keyword
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from adapters.convert import call_args
from adapters.repro import scalar_text as literal   # NaN/inf/-0.0 spelled as a user types them
from contract.dtypes import dtype_from_name, dtype_name
from oracle.setitem import key_tensors, key_text

# NumPy dtype name -> pypto DataType attribute.  pypto has one for every dtype the suite knows.
PYPTO_DTYPES = {"float32": "DT_FP32", "float16": "DT_FP16", "bfloat16": "DT_BF16", "float64": "DT_DOUBLE",
                "int32": "DT_INT32", "int16": "DT_INT16", "int8": "DT_INT8", "int64": "DT_INT64",
                "uint8": "DT_UINT8", "bool": "DT_BOOL"}

# The jit options that make pypto compute on the CPU: simulation run mode, compilation stopped after the
# tensor graph, and pass-verify on, whose interpreter runs that graph and dumps the tensors.  The dump
# folder is the only per-process value; it is filled in when the kernel is loaded.
JIT_OPTIONS_TEXT = """CPU_INTERPRETER = dict(
    runtime_options={"run_mode": pypto.RunMode.SIM},
    host_options={"compile_stage": pypto.CompStage.TENSOR_GRAPH},
    verify_options={"enable_pass_verify": True, "pass_verify_save_tensor_dir": DUMP_DIR,
                    "pass_verify_pass_filter": [], "pass_verify_error_tol": [1e-3, 1e-3]},
)"""

_RESERVED = {"pypto", "torch", "CPU_INTERPRETER", "DUMP_DIR", "float"}


@dataclass(frozen=True)
class Param:
    name: str              # the kernel's parameter name
    source: str            # the case input it is fed from, or "" for an output buffer
    shape: tuple
    dtype: str             # NumPy dtype name


@dataclass(frozen=True)
class KernelPlan:
    op: str
    func_name: str
    params: tuple                    # Param, in the kernel's order
    body: tuple                      # the statements of the kernel, one per line
    outputs: dict = field(default_factory=dict)   # CASES.md output name -> index of the param read back

    def signature(self) -> str:
        args = ",\n".join(f"    {p.name}: pypto.Tensor({_shape_text(p.shape)}, pypto.{PYPTO_DTYPES[p.dtype]})"
                          for p in self.params)
        return f"def {self.func_name}(\n{args},\n):"

    def kernel_source(self) -> str:
        body = "\n".join(f"    {line}" for line in self.body)
        return f"@pypto.frontend.jit(**CPU_INTERPRETER)\n{self.signature()}\n{body}\n"

    def module_source(self) -> str:
        return f"import pypto\n\n{JIT_OPTIONS_TEXT}\n\n\n{self.kernel_source()}"

    def cache_key(self) -> str:
        return self.kernel_source()


class NoMapping(Exception):
    """The case needs something pypto has no way to express at all (not a rejection by pypto)."""


def plan(case, build) -> KernelPlan:
    """The kernel `build` (an op's row in the adapter's table) writes for the case."""
    for name, arr in case.inputs.items():
        if dtype_name(arr.dtype) not in PYPTO_DTYPES:
            raise NoMapping(f"pypto has no data type for {arr.dtype} (input {name})")
    return build(case)


def _param(name, case, source) -> Param:
    arr = case.inputs[source]
    return Param(name, source, tuple(arr.shape), dtype_name(arr.dtype))


def _buffer(name, like: Param) -> Param:
    return Param(name, "", like.shape, like.dtype)


def _tile_line(shape) -> str:
    # pypto wants the vector tile shape set before an op, with the output's rank (pypto.clip docs).
    return f"pypto.set_vec_tile_shapes({', '.join(str(max(int(d), 1)) for d in shape)})"


def plan_setitem(case) -> KernelPlan:
    a = call_args(case)
    target = _param("target", case, "target")
    params = [target]
    if "value" in case.inputs:
        params.append(_param("value", case, "value"))
        value_text = "value"
    else:
        value_text = literal(a.value)
    renames = {}
    for name in key_tensors(a.key_data):
        pname = name if _usable_name(name, {p.name for p in params}) else f"key_tensor_{len(renames)}"
        renames[name] = pname
        params.append(_param(pname, case, name))
    text = key_text(a.key_data, renames)
    return KernelPlan(case.op, "setitem_kernel", tuple(params),
                      (_tile_line(target.shape), f"target[{text}] = {value_text}"),
                      {"target": 0})


def plan_clip(case) -> KernelPlan:
    x = _param("x", case, "x")
    params = [x]
    texts = {}
    a = call_args(case)
    for bound, pname in (("min", "lo"), ("max", "hi")):
        b = getattr(a, bound)
        if b is None:
            continue
        if b.is_tensor:
            params.append(_param(pname, case, bound))
        texts[bound] = b.pass_as(lambda _: pname, _element_text, literal)
    # both bounds: positional, as in the docs; one omitted: the other by keyword
    args = list(texts.values()) if len(texts) == 2 else [f"{b}={t}" for b, t in texts.items()]
    out = _buffer("out", x)
    params.append(out)
    call = f"pypto.clip({', '.join(['x'] + args)})"
    return KernelPlan(case.op, "clip_kernel", tuple(params), (_tile_line(x.shape), f"out[:] = {call}"),
                      {"out": len(params) - 1, "x": 0})


def _element_text(value, dtype) -> str:
    return f"pypto.Element(pypto.{PYPTO_DTYPES[dtype]}, {literal(value)})"


def plan_scatter(case) -> KernelPlan:
    a = call_args(case)
    inp = _param("input_", case, "input")
    params = [inp, _param("index", case, "index")]
    if a.src is not None:
        params.append(_param("src", case, "src"))
        src_text = "src"
    else:
        src_text = literal(a.value)
    dim = literal(a.dim)
    if a.inplace:
        # pypto's scatter_ returns `input` itself (Tensor.scatter_ -> pypto.scatter_ returns its argument),
        # so what the call returned is self after the call: both outputs read the same parameter.
        return KernelPlan(case.op, "scatter_kernel", tuple(params),
                          (_tile_line(inp.shape), f"input_.scatter_({dim}, index, {src_text})"),
                          {"out": 0, "input": 0})
    params.append(_buffer("out", inp))
    return KernelPlan(case.op, "scatter_kernel", tuple(params),
                      (_tile_line(inp.shape), f"out[:] = pypto.scatter(input_, {dim}, index, {src_text})"),
                      {"out": len(params) - 1, "input": 0})


def _shape_text(shape) -> str:
    return "(" + ", ".join(str(int(d)) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _usable_name(name, taken) -> bool:
    return (name.isidentifier() and not keyword.iskeyword(name) and name not in _RESERVED
            and name not in taken and name not in {"target", "value", "x", "lo", "hi", "out"})


def write_module(plan_: KernelPlan, folder: Path, n: int) -> Path:
    path = Path(folder, f"{plan_.func_name}_{n}.py")
    path.write_text(plan_.module_source())
    return path


def zeros_for(p: Param) -> np.ndarray:
    """An output buffer (and a golden: the interpreter only dumps what has one; its values are unused)."""
    return np.zeros(p.shape, dtype=dtype_from_name(p.dtype))

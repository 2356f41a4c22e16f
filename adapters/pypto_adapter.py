"""pypto as a candidate: real values from pypto 0.2.0's own tensor-graph interpreter on the CPU.

| op      | native API                                                         |
|---------|--------------------------------------------------------------------|
| setitem | `target[key] = value` inside a `pypto.frontend.jit` kernel         |
| clip    | `out[:] = pypto.clip(x, min, max)` inside a kernel                 |
| scatter | `out[:] = pypto.scatter(input_, dim, index, src)`; `input_.scatter_(...)` |

There is no NPU here.  Each case becomes a jit kernel (adapters/pypto_runtime/kernels.py)
that pypto parses and compiles up to its tensor graph; pypto's pass-verify
interpreter runs that graph with its torch-based calculator and dumps every
parameter that has a golden, and the outputs are read back from those dumps
(readback.py).  The patches this needs are in patches.py, pinned to pypto 0.2.0.
Each call runs in a forked child of the set-up worker (isolate.py), kept for the next call
while calls return cleanly: a failed kernel leaves pypto's process state broken, and some keys
hang forever.
What pypto prints is captured (capture.py) into the outcome's stderr, and every
file it writes goes to a private temporary folder (workspace.py).
scatter_nd_add and set_ have no pypto mapping.
"""
from __future__ import annotations

import importlib.util
import sys
import time

from . import frameworks
from .base import CRASHED, RAISED, TIMED_OUT, Adapter, Outcome
from .torch_adapter import to_torch
from .mapping import OpMap, native_name, unmapped
from .pypto_runtime import calculator, kernels, patches, readback
from .pypto_runtime.capture import capture_output
from .pypto_runtime.isolate import HangLimit, KeptChild

EXECUTION = f"pypto {patches.VERIFIED_VERSION}, tensor-graph interpreter on CPU"
# The one table: each op pypto maps, with its native API; its row builds the kernel, which is both the call
# and the repro (adapters/mapping.py).
TABLE = {
    "setitem": OpMap("pypto.Tensor.__setitem__", kernels.plan_setitem, kernels.plan_setitem),
    "clip": OpMap("pypto.clip", kernels.plan_clip, kernels.plan_clip),
    "scatter": OpMap("pypto.scatter", kernels.plan_scatter, kernels.plan_scatter,
                     lambda a: "pypto.Tensor.scatter_" if a.inplace else "pypto.scatter"),
}


class PyptoAdapter(Adapter):
    name = "pypto"
    execution = EXECUTION
    ops = tuple(TABLE)
    excludes = ("*/not-applicable/* ~ pypto has no data type for :: pypto has no data type for the input's dtype",
                "*/not-applicable/* ~ not observable on the CPU interpreter :: "
                "the CPU interpreter cannot carry these tensors; what pypto does with them on an NPU is not seen here",
                "*/not-applicable/* ~ separate kernel buffers :: an aliased case (one input a view of "
                "another) has no call here: each kernel argument is a tensor of its own, so a view cannot be passed "
                "as another argument (run on copies, the case would test nothing of aliasing)")
    case_timeout = 30.0      # the harness's limit; the kernel call itself is killed sooner (HangLimit)

    def __init__(self, pypto_version: str | None = None, reuse_child: bool = True):
        """pypto_version: the version to check the patches against (None: the installed one); reuse_child
        False: a fresh forked child for every call instead of one kept while calls return cleanly."""
        self._checked_version = pypto_version
        self._ws = None
        self._pypto = None
        self._kernels = {}       # kernel source -> jit wrapper, per worker
        self._hang_limit = HangLimit()   # a call compiles a kernel (10-150 ms); some keys hang forever
        self._child = KeptChild(self._call_here, reuse_child)    # a forked child, kept while calls return cleanly

    # ---- identity and availability ------------------------------------------------------------
    def version(self) -> str:
        return patches.installed_version() or "not installed"

    def available(self) -> tuple:
        for pkg in ("pypto", "torch", "sympy"):      # pypto imports torch and sympy but declares neither
            if importlib.util.find_spec(pkg) is None:
                need = " ".join(f"'{r}'" for r in frameworks.requirements("pypto"))
                return False, f"package {pkg!r} is not installed (pip install {need})"
        problem = patches.version_problem(self._checked_version)
        if problem:
            return False, problem
        reason = calculator.why_unbuildable()
        return (False, reason) if reason else (True, "")

    def native_api(self, op: str, case=None) -> str:
        return native_name(TABLE, op, case)

    def setup(self) -> None:
        if self._pypto is not None:
            return
        ok, why = self.available()
        if not ok:
            raise RuntimeError(f"pypto adapter unavailable: {why}")
        from .pypto_runtime.workspace import Workspace
        self._ws = Workspace()                 # environment first: pypto's import already writes files
        with capture_output() as cap:
            try:
                import pypto
                patches.apply(self._checked_version)
            except BaseException:
                sys.stderr.write(cap.text)
                raise
        calculator.load()                      # builds it once (progress on stderr) if the cache lacks it
        self._pypto = pypto

    def close(self) -> None:
        """Stop the kept child; remove the temporary folder now (it is also removed at exit)."""
        self._child.close()
        if self._ws is not None:
            self._ws.remove()

    @property
    def workspace(self):
        return self._ws.root if self._ws is not None else None

    # ---- running --------------------------------------------------------------------------------
    def run(self, case) -> Outcome:
        started = time.monotonic()
        outcome = self._run(case)
        outcome.native_api = self.native_api(case.op, case)
        outcome.elapsed_s = time.monotonic() - started
        return outcome

    def _run(self, case) -> Outcome:
        if case.op not in TABLE:
            return unmapped(self, case.op)
        if case.aliases:
            return Outcome.not_applicable("pypto takes its kernel arguments as separate kernel buffers: no input "
                                          "can be a view of another")
        try:
            plan = kernels.plan(case, TABLE[case.op].run)
        except kernels.NoMapping as e:
            return Outcome.not_applicable(str(e))
        if self._pypto is None:
            try:
                self.setup()
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as e:
                return Outcome.raised(e)
        self._ws.clear_call_files()
        limit = self._hang_limit.seconds()
        child = self._child.call(case.to_json(), limit, wall_limit=HangLimit.WALL_S)
        if child.timed_out:
            return Outcome(TIMED_OUT, seconds=limit,
                           message=f"the kernel call did not finish within {limit:g} s of CPU time (25x the "
                                   f"typical call here, at least {self._hang_limit.floor:g} s, at most "
                                   f"{self._hang_limit.ceiling:g} s), or used none for as long, or ran "
                                   f"{HangLimit.WALL_S:g} s; killed after {child.cpu_s:.3g} s of CPU time")
        self._hang_limit.record(child.cpu_s)
        if child.signal is not None:
            return Outcome(CRASHED, signal=child.signal, message=f"the kernel call died by signal {child.signal}")
        if child.payload is None:
            return Outcome(CRASHED, message=f"the kernel call exited with status {child.exit_status} and no answer")
        if "adapter_error" in child.payload:
            return Outcome.raised(RuntimeError(f"pypto adapter bug in the kernel call: {child.payload['adapter_error']}"))
        if "prepare_error" in child.payload:      # building the kernel or its arguments failed
            e = child.payload["prepare_error"]
            return Outcome(RAISED, exc_type=e["type"], exc_mro=tuple(e["mro"]), message=e["message"])
        stderr, error = child.payload["stderr"], child.payload["error"]
        if child.payload["unobservable"]:
            # the CPU path cannot carry these tensors; what pypto does with them on an NPU is not seen here
            return Outcome.not_applicable(f"not observable on the CPU interpreter: {child.payload['unobservable']}")
        if error:
            return Outcome(RAISED, exc_type=error["type"], exc_mro=tuple(error["mro"]), message=error["message"],
                           stderr=stderr)
        wanted = set(plan.outputs.values())
        try:
            values = readback.read_params(self._ws.dump_dir, {i: kernels.zeros_for(plan.params[i]) for i in wanted})
        except readback.ReadbackError as e:
            return Outcome.raised(e, stderr=stderr)
        return Outcome.returned(**{name: values[i] for name, i in plan.outputs.items()})

    def _call_here(self, case_json) -> tuple:
        """In the kept child (isolate.KeptChild): build the case's kernel and call it; (what happened, whether
        this process is still clean enough for the next call: only a call that returned cleanly keeps it)."""
        from contract.case import Case
        case = Case.from_json(case_json)
        plan = kernels.plan(case, TABLE[case.op].run)
        try:
            kernel = self._kernel(plan)
            args = [to_torch(case.inputs[p.source] if p.source else kernels.zeros_for(p)) for p in plan.params]
            wanted = set(plan.outputs.values())
            # the interpreter dumps a parameter only when it has a golden; its value is never used
            goldens = [to_torch(kernels.zeros_for(p)) if i in wanted else None for i, p in enumerate(plan.params)]
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:
            return {"prepare_error": _describe(e)}, False
        pypto = self._pypto
        error = unobservable = None
        with capture_output() as cap:
            try:
                pypto.set_verify_golden_data(goldens=goldens)
            except Exception as e:            # only the interpreter needs goldens (0-d ones fail)
                unobservable = f"pypto's interpreter cannot take these goldens: {type(e).__name__}: {e}"
            else:
                try:
                    kernel(*args)
                except BaseException as e:    # pypto's failure is the result, whatever it is
                    error = real_exception(e)
                    if isinstance(error, patches.Unobservable):
                        unobservable, error = str(error), None
        payload = {"stderr": cap.text, "error": error and _describe(error), "unobservable": unobservable}
        return payload, error is None and unobservable is None

    def _kernel(self, plan):
        key = plan.cache_key()
        if key not in self._kernels:
            path = kernels.write_module(plan, self._ws.kernel_dir, len(self._kernels))
            namespace = {"__name__": f"tc_pypto_kernel_{len(self._kernels)}", "__file__": str(path),
                         "DUMP_DIR": str(self._ws.dump_dir)}
            # dont_inherit: this module's `from __future__ import annotations` would turn the annotations
            # pypto reads into strings
            exec(compile(path.read_text(), str(path), "exec", dont_inherit=True), namespace)
            self._kernels[key] = namespace[plan.func_name]
        return self._kernels[key]

    # ---- repro ----------------------------------------------------------------------------------
    def repro(self, case, expectation=None) -> str:
        """The kernel as a script: run it with `python repro.py` (pypto's parser reads the kernel's source
        file, so it cannot run from `python -c`).  Every file pypto writes goes to a temporary folder."""
        from .repro import array_literal, compose, header_comment
        try:
            if case.op not in TABLE:
                raise kernels.NoMapping(f"pypto has no mapping for {case.op}")
            plan = kernels.plan(case, TABLE[case.op].repro)
        except kernels.NoMapping as e:
            return f"{header_comment(case)}\n# not applicable to pypto: {e}\n"
        setup = [f"# {EXECUTION}: there is no NPU here, so the kernel runs through pypto's pass-verify",
                 "# interpreter, patched by tensor-conformance (adapters/pypto_runtime) to compute on the CPU;",
                 "# on an NPU, drop **CPU_INTERPRETER, the workspace and the read-back.",
                 "from adapters.pypto_runtime.workspace import Workspace",
                 "workspace = Workspace()   # a temporary folder (removed at exit) for every file pypto writes;"
                 " before `import pypto`",
                 "import pypto",
                 "from adapters.pypto_runtime import patches, readback",
                 "from adapters.pypto_adapter import real_exception",
                 "patches.apply()",
                 "DUMP_DIR = str(workspace.dump_dir)", kernels.JIT_OPTIONS_TEXT, "", "", plan.kernel_source()]
        inputs = []
        for prm in plan.params:
            if prm.source:
                a = case.inputs[prm.source]
                expr = array_literal(a)
                text = (f"torch.from_numpy({expr}.view(np.int16)).view(torch.bfloat16)"
                        if str(a.dtype) == "bfloat16" else f"torch.from_numpy({expr})")
            else:
                text = f"torch.zeros({tuple(prm.shape)!r}, dtype=torch.{prm.dtype})"
            inputs.append(f"{prm.name} = {text}")
        wanted = sorted(set(plan.outputs.values()))
        goldens = ", ".join(f"torch.zeros({tuple(plan.params[i].shape)!r}, dtype=torch.{plan.params[i].dtype})"
                            if i in wanted else "None" for i in range(len(plan.params)))
        like = ", ".join(f"{i}: np.zeros({tuple(plan.params[i].shape)!r}, dtype=np.{plan.params[i].dtype})"
                         if plan.params[i].dtype != "bfloat16" else
                         f"{i}: np.zeros({tuple(plan.params[i].shape)!r}, dtype=ml_dtypes.bfloat16)" for i in wanted)
        call = ["# the interpreter computes and dumps only the parameters given a golden (its values are unused)",
                f"pypto.set_verify_golden_data(goldens=[{goldens}])",
                f"{plan.func_name}({', '.join(prm.name for prm in plan.params)})",
                f"values = readback.read_params(workspace.dump_dir, {{{like}}})   # the kernel's parameters after the call"]
        outputs = {name: f"values[{i}]" for name, i in plan.outputs.items()}
        show = [f'print("{name} =", values[{i}])' for name, i in plan.outputs.items()]
        imports = ["import torch"] + (["import ml_dtypes"] if any(plan.params[i].dtype == "bfloat16" for i in wanted)
                                      else [])
        return compose(case, expectation, title=self.native_api(case.op, case), imports=imports, setup=setup,
                       inputs=inputs, call=call, show=show, outputs=outputs, unwrap="real_exception(e)")


def real_exception(exc: BaseException) -> BaseException:
    """The exception pypto's parser wrapped.

    The parser turns any error raised while it evaluates a kernel into a
    RenderedParserError (after printing a diagnostic); the original is chained to
    it, as `__cause__` or, when raised inside its `except` block, `__context__`.
    A ParserError of pypto's own with nothing under it is the real error itself."""
    seen = set()
    while type(exc).__name__ in ("RenderedParserError", "ParserError") and id(exc) not in seen:
        seen.add(id(exc))
        inner = exc.__cause__ or exc.__context__
        if inner is None:
            break
        exc = inner
    return exc


def _describe(exc: BaseException) -> dict:
    try:
        message = str(exc)
    except BaseException as e:
        message = f"<str() of the {type(exc).__name__} raised {type(e).__name__}>"
    return {"type": type(exc).__name__, "mro": [c.__name__ for c in type(exc).__mro__], "message": message[:4000]}

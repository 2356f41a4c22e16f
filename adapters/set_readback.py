"""set_'s outcome, the same for every framework that has `Tensor.set_`: self read back, then the probe
that shows whether self shares the source's storage (docs/CASES.md, set_'s outputs)."""
from __future__ import annotations

from . import execution
from .base import RETURNED, Outcome
from .convert import unreadable


def set_and_read_back(call, target, source, reread, to_numpy, set_kwargs):
    """Call `target.set_(source, **set_kwargs)` and the outcome every framework's set_ reports: self read
    back, then (where the case has a probe) self filled with it and the source re-read through `reread`, so
    shared storage shows; a fill that fails (a zero stride makes self overlap itself) leaves self's values
    the answer."""
    execution.call(lambda t, *s: t.set_(*s, **set_kwargs), target, *(() if source is None else (source,)))
    why = unreadable(target.shape)
    if why:
        return Outcome(RETURNED, message=f"set_ returned; self not read back: {why}")
    arrays = {"self": to_numpy(target)}
    if source is not None and call.probe is not None:
        try:
            target.fill_(call.probe)
        except Exception:
            return Outcome.returned(**arrays)
        if not unreadable(reread.shape):
            arrays["source_after_fill"] = to_numpy(reread)
    return Outcome.returned(**arrays)

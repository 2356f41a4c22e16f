"""Starting a session's adapters: their handles, `jobs` at a time, each refused or skipped as docs/CLI.md says.

What pytest-xdist's workermanage.NodeManager is to its nodes: the session (suites/session.py) asks for the
handles of some targets, and of one more worker of a target while the run loop (suites/loop.py) needs it; this
module starts them (adapters/pool.py), decides which are required and which may be skipped, and closes
every one it started when a refusal stops the start.
"""
from __future__ import annotations

from contract.vocabulary import EXIT_ADAPTER, name_problem

from .options import RunOptions, SessionError


class Opener:
    """Opens handles for the targets of a run with `options`; `skipped`: "target: reason" of the adapters found by
    default that are unavailable (a named one that is unavailable is an error)."""

    def __init__(self, options: RunOptions):
        self.options = options
        self.explicit = bool(options.adapters)
        self.skipped: list = []
        # --python NAME=PATH; the rest as adapters.environments says (conform.toml, pyproject.toml, the
        # environment setup.sh built for the adapter, else this interpreter).  In-process: this one.
        self._files = None if options.in_process else _configured()

    def open_set(self, targets, select):
        """The handles of `targets` that are available, in `targets`' order.  Up to `jobs` workers start at once
        (a framework's import is seconds of one core's time); what is refused or missing is decided in order,
        as if they had started one by one."""
        from adapters.environments import InterpreterError
        from adapters.registry import AdapterError, split_construction
        results = self._start_all(targets)
        started, handles = [], []
        try:
            for target, (h, error) in zip(targets, results):
                started.append((h, error))
                # an adapter named on the command line (--adapter, or --python) must run; one only found may not
                required = self.explicit or not select or split_construction(target)[0] in self.options.pythons
                if isinstance(error, (InterpreterError, AdapterError)):
                    if required:
                        code = error.exit_code if isinstance(error, InterpreterError) else EXIT_ADAPTER
                        raise SessionError(str(error), code) from None
                    self.skipped.append(f"{target}: {error}")
                    continue
                if error is not None:
                    raise error
                h.target = target
                if (problem := name_problem(h.name)):      # the worker checks its hello; in-process, here
                    raise SessionError(f"adapter {target!r} refused: {problem}", EXIT_ADAPTER)
                if not h.available:
                    h.close()
                    if required:
                        raise SessionError(f"adapter {target!r} is not available{_under(h)}: {h.reason}", EXIT_ADAPTER)
                    self.skipped.append(f"{target}: {h.reason}")
                    continue
                handles.append(h)
        except BaseException:
            # every worker started, those after a refusal too (already running where they start at once)
            for h, _ in (results if isinstance(results, list) else started):
                if h is not None:
                    h.close()
            raise
        return handles

    def _start_all(self, targets):
        """(handle or None, exception or None) per target: a list, `jobs` started at a time; with jobs=1 an
        iterator that starts each only when asked for (so that a refusal starts no more)."""
        from adapters.pool import open_handle
        from adapters.registry import resolve

        def start(target):
            # the worker gets module:Class: what a name means is decided here, once
            return open_handle(resolve(target), in_process=self.options.in_process, case_timeout=self.options.case_timeout,
                               memory_mb=self.options.memory_mb, python=self.python_for(target))
        if self.options.slots == 1 or len(targets) < 2:
            return (_attempt(start, target) for target in targets)
        import signal
        from concurrent.futures import ThreadPoolExecutor
        from .loop import STOP_SIGNALS

        def blocked(target):      # as the loop's slots: Ctrl-C and SIGTERM are the main thread's
            signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
            return _attempt(start, target)
        pool = ThreadPoolExecutor(max_workers=self.options.slots, thread_name_prefix="conform-open")
        futures = [pool.submit(blocked, target) for target in targets]
        try:
            return [f.result() for f in futures]
        except BaseException:       # Ctrl-C while workers start: none of them may outlive the run
            for f in futures:
                f.cancel()
            pool.shutdown(wait=True)
            for f in futures:
                if not f.cancelled() and f.exception() is None and f.result()[0] is not None:
                    f.result()[0].close()
            raise
        finally:
            pool.shutdown(wait=False)

    def python_for(self, target):
        """The interpreter of `target`'s worker (None in-process); InterpreterError if it cannot serve."""
        if self.options.in_process:
            return None
        from adapters.environments import interpreter_for
        return interpreter_for(target, dict(self.options.pythons), files=self._files)


def _attempt(start, target) -> tuple:
    """(start(target), None), or (None, the exception it raised)."""
    try:
        return start(target), None
    except Exception as e:
        return None, e


def _configured() -> dict:
    """conform.toml's and pyproject.toml's interpreters (adapters.environments), read once per session;
    a file that cannot be read is SessionError(EXIT_BAD_INPUT) naming it."""
    from adapters.environments import InterpreterError, configured
    try:
        return configured()
    except InterpreterError as e:
        raise SessionError(str(e), e.exit_code) from None


def _under(h) -> str:
    from adapters.environments import is_this_interpreter
    python = getattr(h, "python", None)
    return "" if is_this_interpreter(python) else f" under {python}"

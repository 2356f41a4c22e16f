"""A run's options are one value, checked once where it is made (suites/options.py), and passed whole through
the runner and the session instead of a parameter each."""
from __future__ import annotations

import dataclasses
import inspect

import pytest

from contract.vocabulary import EXIT_BAD_INPUT, EXIT_USAGE
from oracle.registry import ops as registered_ops
from suites.options import RunOptions, SessionError


@pytest.mark.parametrize("fields, code, says", [
    ({"jobs": 0}, EXIT_USAGE, "--jobs must be a whole number >= 1"),
    ({"jobs": True}, EXIT_USAGE, "--jobs"),
    ({"jobs": 2.0}, EXIT_USAGE, "--jobs"),
    ({"case_timeout": 0}, EXIT_USAGE, "--case-timeout must be a number of seconds > 0"),
    ({"case_timeout": float("nan")}, EXIT_USAGE, "--case-timeout"),
    ({"case_timeout": float("inf")}, EXIT_USAGE, "--case-timeout"),
    ({"memory_mb": -1}, EXIT_USAGE, "--memory-mb"),
    ({"shard": "4/3"}, EXIT_USAGE, "1 <= K <= N"),
    ({"shard": "x"}, EXIT_USAGE, "K/N"),
    ({"ops": ["clap"]}, EXIT_USAGE, "unknown op clap"),
    ({"adapters": ["oracle"], "expectations_files": {"torch": "x.txt"}}, EXIT_USAGE, "which this run does not run"),
    ({"adapters": ["oracle"], "pythons": {"oracle": "/usr/bin/python3"}, "in_process": True}, EXIT_USAGE,
     "exclude each other"),
    ({"adapters": [3]}, EXIT_USAGE, "an adapter must be str"),
])
def test_a_value_no_run_can_use_is_refused_when_the_options_are_made(fields, code, says):
    with pytest.raises(SessionError) as e:
        RunOptions(**fields)
    assert e.value.exit_code == code and says in str(e.value), (e.value.exit_code, str(e.value))


def test_a_missing_folder_or_file_is_bad_input(tmp_path):
    with pytest.raises(SessionError) as e:
        RunOptions(expectations_dir=str(tmp_path / "none"))
    assert e.value.exit_code == EXIT_BAD_INPUT and "does not exist" in str(e.value)
    with pytest.raises(SessionError) as e:
        RunOptions(adapters=["oracle"], expectations_files={"oracle": str(tmp_path)})
    assert e.value.exit_code == EXIT_BAD_INPUT and "is not a file" in str(e.value)


def test_the_options_are_normalised_once_and_cannot_change():
    ops = list(registered_ops())
    o = RunOptions(adapters=["oracle"], ops=list(reversed(ops)), jobs=4, pythons={"oracle": "/x"})
    assert o.adapters == ("oracle",) and o.ops == tuple(ops), "ops in the registry's order"
    assert o.slots == 4 and RunOptions(jobs=4, in_process=True).slots == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.jobs = 1
    with pytest.raises(TypeError):
        o.pythons["torch"] = "/y"       # the mappings are read-only too
    assert o.shard_k_n == (1, 1) and RunOptions(shard="2/3").shard_k_n == (2, 3)


def test_the_runner_and_the_session_take_the_options_whole():
    from conform import runner
    from suites.session import RunSession
    run = inspect.signature(runner.run).parameters
    assert "options" in run and len([p for p in run.values() if p.kind != p.VAR_KEYWORD]) <= 4, list(run)
    assert list(inspect.signature(RunSession).parameters) == ["options", "expect"]


def test_the_runner_refuses_bad_options_with_their_exit_code_and_starts_nothing(tmp_path):
    from conform import runner
    r = runner.run(["oracle"], out_dir=str(tmp_path / "o"), jobs=0)
    assert r.exit_code == EXIT_USAGE and "--jobs" in r.message and not (tmp_path / "o").exists()
    r = runner.run(options=None, adapters=["oracle"], out_dir=str(tmp_path / "o"), shard="9/1")
    assert r.exit_code == EXIT_USAGE and not (tmp_path / "o").exists()

"""Runs and outputs are whole or refused: one writer per --out, a resume that validates first, OS errors named."""
import contextlib
import hashlib
import json
import os
import subprocess
import time

import pytest

from contract.vocabulary import EXIT_BAD_INPUT, EXIT_BUSY, EXIT_INCOMPATIBLE, EXIT_OK, EXIT_OUTPUT
from test_cli import conform, long_corpus, popen, records  # noqa: F401  (fixtures and helpers)

SLOW = ["run", "--adapter", "bad_adapters:Slow", "--no-report"]


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def _wait_for_cases(results, n, proc):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if os.path.exists(results) and open(results).read().count('"record":"case"') >= n:
            return
        time.sleep(0.01)
    raise AssertionError("the first run never wrote its cases")


@pytest.mark.parametrize("resume", [False, True])
def test_a_second_run_into_the_same_out_is_refused_and_changes_nothing(tmp_path, long_corpus, resume):
    path, _ = long_corpus
    out = tmp_path / "out"
    results = str(out / "results.jsonl")
    first = popen(*SLOW, "--corpus", path, "--out", str(out))
    try:
        _wait_for_cases(results, 3, first)
        before = open(results, "rb").read()
        r = conform(*SLOW, "--corpus", path, "--out", str(out), *(["--resume"] if resume else []))
        assert r.returncode == EXIT_BUSY, r.stderr
        assert "another run" in r.stderr and results in r.stderr and "Traceback" not in r.stderr
        # the refused run neither emptied nor appended: the first run's records are still a prefix
        assert open(results, "rb").read()[:len(before)] == before
    finally:
        first.wait(timeout=120)
    assert first.returncode == EXIT_OK
    assert len(records(results)) == 60 and len(records(results, "end")) == 1


def _finished_run(tmp_path, corpus_path):
    out = tmp_path / "out"
    assert conform("run", "--adapter", "oracle", "--corpus", corpus_path, "--out", str(out),
                   "--no-report").returncode == 0
    return out, str(out / "results.jsonl")


def _rewrite_header(results, **changes):
    lines = open(results, encoding="utf-8").read().splitlines(keepends=True)
    header = json.loads(lines[0])
    for k, v in changes.items():
        if k == "adapter_version":
            header["adapters"][0]["version"] = v
        else:
            header[k] = v
    lines[0] = json.dumps(header, separators=(",", ":")) + "\n"
    # a torn last line, as a kill leaves it: a refused resume must not cut it either
    open(results, "w", encoding="utf-8").write("".join(lines[:-1]) + lines[-1][:10])


@pytest.mark.parametrize("change, text", [({"suite_version": "0.0.9"}, "suite_version"),
                                          ({"adapter_version": "0.0.9"}, "oracle 0.0.9")])
def test_resume_refuses_a_changed_suite_or_adapter_version_and_leaves_the_file_as_it_was(
        tmp_path, long_corpus, change, text):
    out, results = _finished_run(tmp_path, long_corpus[0])
    _rewrite_header(results, **change)
    before = digest(results)
    r = conform("run", "--adapter", "oracle", "--corpus", long_corpus[0], "--out", str(out), "--resume",
                "--no-report")
    assert r.returncode == EXIT_INCOMPATIBLE and text in r.stderr, r.stderr
    assert digest(results) == before


def test_resume_of_a_damaged_file_names_file_and_line_and_leaves_it_as_it_was(tmp_path, long_corpus):
    out, results = _finished_run(tmp_path, long_corpus[0])
    lines = open(results, encoding="utf-8").read().splitlines(keepends=True)
    lines[5] = '{"record": "case", "run_id": 7}\n'
    open(results, "w", encoding="utf-8").write("".join(lines[:-1]))
    before = digest(results)
    r = conform("run", "--adapter", "oracle", "--corpus", long_corpus[0], "--out", str(out), "--resume",
                "--no-report")
    assert r.returncode == EXIT_BAD_INPUT and f"{results}:6" in r.stderr and "Traceback" not in r.stderr
    assert digest(results) == before


def test_out_naming_a_file_is_an_output_error(tmp_path, long_corpus):
    f = tmp_path / "a-file"
    f.write_text("mine\n")
    r = conform("run", "--adapter", "oracle", "--corpus", long_corpus[0], "--out", str(f), "--no-report")
    assert r.returncode == EXIT_OUTPUT and "not a folder" in r.stderr and "Traceback" not in r.stderr
    assert f.read_text() == "mine\n"


@contextlib.contextmanager
def tmpfs(where, options):
    """A real small or read-only filesystem (root can write through permission bits, not through these)."""
    where.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"this test mounts a tmpfs, which needs root: {r.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_a_read_only_out_is_an_output_error(tmp_path, long_corpus):
    with tmpfs(tmp_path / "ro", "ro,size=1m") as ro:
        r = conform("run", "--adapter", "oracle", "--corpus", long_corpus[0], "--out", str(ro / "out"),
                    "--no-report")
    assert r.returncode == EXIT_OUTPUT and "Read-only file system" in r.stderr and "Traceback" not in r.stderr


def test_a_full_disk_is_an_output_error_and_keeps_what_was_written(tmp_path, long_corpus):
    with tmpfs(tmp_path / "small", "size=16k") as small:
        out = small / "out"
        r = conform(*SLOW[:3], "--corpus", long_corpus[0], "--out", str(out), "--no-report")
        assert r.returncode == EXIT_OUTPUT, r.stderr
        assert "No space left on device" in r.stderr and "Traceback" not in r.stderr
        kept = records(str(out / "results.jsonl"))
        assert 0 < len(kept) < 60          # every whole record written before the disk filled is readable


def test_a_full_disk_for_the_report_is_an_output_error_not_a_divergence(tmp_path, long_corpus):
    with tmpfs(tmp_path / "small", "size=160k") as small:
        out = small / "out"
        # fill the disk after the results are written: the report is what no longer fits
        r = conform("run", "--adapter", "oracle", "--corpus", long_corpus[0], "--out", str(out), "--no-report")
        assert r.returncode == EXIT_OK
        fd = os.open(small / "filler", os.O_WRONLY | os.O_CREAT)
        with contextlib.suppress(OSError):
            while True:
                os.write(fd, b"\0" * 4096)
        os.close(fd)
        r = conform("run", "--adapter", "oracle", "--corpus", long_corpus[0], "--out", str(out), "--resume")
    assert r.returncode == EXIT_OUTPUT and "cannot write the report" in r.stderr and "Traceback" not in r.stderr

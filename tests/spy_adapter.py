"""A candidate that records where its own code runs: its import, available() and version().

Each event writes a file named `<event>-<pid>` into $CONFORM_TEST_PID_DIR, so a test can tell
whether the `conform` process itself ever ran the candidate's code (issue 12: it must not).
"""
import os

from bad_adapters import GoodClip


def _record(event):
    d = os.environ.get("CONFORM_TEST_PID_DIR")
    if d:
        with open(os.path.join(d, f"{event}-{os.getpid()}"), "w") as f:
            f.write(str(os.getpid()))


_record("import")


class Spy(GoodClip):
    name = "spy"

    def available(self):
        _record("available")
        return True, ""

    def version(self):
        _record("version")
        return "1.0-spy"

"""A release without the API a row calls (paddle 2.6.2 and mindspore 2.7.0 have no Tensor.set_) records the
op as not applicable to that release, not as the framework refusing the case (issue 40, honest across
releases).  NumPy stands in for a framework: it is the real thing that lacks `ndarray.set_`."""
import numpy as np

from adapters.base import NOT_APPLICABLE, RAISED
from adapters.mapping import FrameworkAdapter, OpMap
from suites.corpus import iter_corpus


def _set_case():
    return next(c for c in iter_corpus() if c.op == "set_")


class _OldRelease(FrameworkAdapter):
    name = "old-release"
    package = "numpy"
    pin = np.__version__

    def framework(self):
        return np

    def tensor(self, array):
        return np.array(array)


def _run(api, call):
    adapter = _OldRelease()
    adapter.TABLE = {"set_": OpMap(api, call, None)}
    return adapter.run(_set_case())


def test_an_api_the_release_lacks_is_not_applicable_with_its_name():
    out = _run("numpy.ndarray.set_ (in place)", lambda fw, call: fw.zeros(3).set_(1))
    assert out.kind == NOT_APPLICABLE, out
    assert "has no numpy.ndarray.set_" in out.message and "AttributeError" in out.message


def test_another_attribute_error_stays_the_frameworks_answer():
    out = _run("numpy.ndarray.set_", lambda fw, call: fw.zeros(3).fill_(1))
    assert out.kind == RAISED and out.exc_type == "AttributeError", out

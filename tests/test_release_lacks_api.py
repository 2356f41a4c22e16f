"""A release without the API a row calls (paddle 2.6.2 and mindspore 2.7.0 have no Tensor.set_) does not map
that op: its cases are not applicable to that release, with the API named, not the framework refusing each
case (issue 40, honest across releases).  NumPy stands in for the framework: it really lacks `ndarray.set_`."""
import numpy as np

from adapters.base import NOT_APPLICABLE
from adapters.mapping import FrameworkAdapter, OpMap, missing_api
from suites.corpus import iter_corpus


class _Release(FrameworkAdapter):
    name = "a-release"
    package = "numpy"
    pin = np.__version__

    def framework(self):
        return np

    def tensor(self, array):
        return np.array(array)


def _adapter(native):
    a = _Release()
    a.TABLE = {"set_": OpMap(native, lambda fw, call: fw.zeros(3).set_(1), None),
               "clip": OpMap("numpy.clip", lambda fw, call: None, None)}
    return a


def test_an_op_whose_api_the_release_lacks_is_not_mapped_and_its_cases_say_why():
    a = _adapter("numpy.ndarray.set_ (in place)")
    assert a.ops == ("clip",)
    out = a.run(next(c for c in iter_corpus() if c.op == "set_"))
    assert out.kind == NOT_APPLICABLE and "has no numpy.ndarray.set_" in out.message, out


def test_an_api_the_release_has_is_mapped():
    assert _adapter("numpy.ndarray.fill").ops == ("set_", "clip")


def test_a_name_that_is_not_a_plain_path_is_never_taken_for_a_missing_api():
    for native in ("jax.numpy.ndarray.at[key].set", "Tensor.set_", "torch.Tensor.set_"):
        assert missing_api(np, native) == ""
    assert missing_api(np, "numpy.nothing(broadcast=False)") == "numpy.nothing"

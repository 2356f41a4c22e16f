"""The Hypothesis settings of each profile (contract.vocabulary.PROFILE_MEANINGS names them and says what
each is for; every list of profiles is derived from there); importing this module registers them."""
from __future__ import annotations

import os
import tempfile

from hypothesis import HealthCheck, settings
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.database import DirectoryBasedExampleDatabase

from contract.vocabulary import PROFILE_MEANINGS, PROFILES  # noqa: F401  (the names, defined once)

_HOME = os.path.join(tempfile.gettempdir(), "tensor-conformance-hypothesis")
_DB = os.path.join(_HOME, "examples")
# Hypothesis keeps caches (constants, unicode data) under its home, by default ./.hypothesis in the
# working tree; generated files stay out of the tree.
set_hypothesis_home_dir(_HOME)
_SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile("dev", max_examples=25, deadline=None, database=DirectoryBasedExampleDatabase(_DB),
                          suppress_health_check=_SLOW)
settings.register_profile("ci", max_examples=100, deadline=None, derandomize=True, database=None,
                          print_blob=True, suppress_health_check=_SLOW)
settings.register_profile("certify", max_examples=1000, deadline=None, derandomize=True, database=None,
                          print_blob=True, suppress_health_check=_SLOW)
settings.register_profile("thorough", max_examples=20000, deadline=None,
                          database=DirectoryBasedExampleDatabase(_DB), suppress_health_check=_SLOW)
settings.register_profile("large", parent=settings.get_profile("dev"), database=None)   # suites/test_large.py

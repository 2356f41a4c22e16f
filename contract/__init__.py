"""The contract every layer above builds on: Case, the codec, dtypes, Expectation and the shared vocabulary.

Nothing here knows an op: the ops and their rules live in `oracle/`, which builds on this package.
"""

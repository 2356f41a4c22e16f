"""Root conftest: the tensor-conformance pytest plugin (options, adapter selection, result recording)."""
pytest_plugins = ["suites.plugin"]

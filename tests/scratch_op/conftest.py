# Op files to be copied into a scratch tree (tests/test_adding_an_op.py), never collected here.
collect_ignore_glob = ["*"]

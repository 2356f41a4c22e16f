"""The second reading of each source document, one module per op (a `Reading` named READING; oracle/reading.py)."""

"""The internals: every layer package, the command line, the catalogue, the fast-path switch.

Importable, typed and documented, but not promised: the public face is ``sealverify`` (``__all__``),
``sealverify.errors`` and ``sealverify.formats`` (docs/api.md). Layers import only downward
(tests/architecture/test_layers.py, docs/architecture.md).
"""

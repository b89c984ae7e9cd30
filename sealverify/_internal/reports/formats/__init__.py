"""The output formats, one module each; ``sealverify.formats`` is the registry that names them."""

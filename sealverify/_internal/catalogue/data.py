"""The catalogue's package data files as text, read through the package's loader."""

from __future__ import annotations

import io
import pkgutil

__all__ = ["package_text", "package_toml"]

_PACKAGE = "sealverify._internal.catalogue"


def package_text(name: str) -> str:
    """The package data file ``name`` as text (UTF-8, universal newlines, as ``read_text``).

    Read through the package's loader (``pkgutil.get_data``, a plain file or a zip member):
    ``importlib.resources`` would load ``tempfile`` and ``zipfile`` into every SARIF run.
    """
    data = pkgutil.get_data(_PACKAGE, name)
    if data is None:  # a loader without get_data: the resources reader answers
        from importlib import resources

        return resources.files(_PACKAGE).joinpath(name).read_text(encoding="utf-8")
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").read()


def package_toml(name: str) -> dict[str, object]:
    """The package data file ``name`` read as TOML."""
    import tomllib

    return tomllib.loads(package_text(name))

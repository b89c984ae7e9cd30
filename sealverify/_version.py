"""The version of sealverify, at the bottom of the layers so any module can name it."""

__version__ = "0.1.0"

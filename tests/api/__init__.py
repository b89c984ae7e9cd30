"""The public API: ``import sealverify``, and every command as a library call."""

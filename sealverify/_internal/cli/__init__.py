"""The thin click shell: argument parsing, file I/O and exit codes; no verification logic."""

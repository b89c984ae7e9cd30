"""The test suite, a folder per layer of the package; shared helpers in tests/helpers/."""

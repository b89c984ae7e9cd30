"""The fuzz harnesses and the inputs fuzzing found, run deterministically."""

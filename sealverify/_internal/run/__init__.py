"""The run layer: a run of ``verify`` over files, directories, globs, logs and object storage."""

"""Layer 2, reports: what people read: the output formats, evidence text and file names shown."""

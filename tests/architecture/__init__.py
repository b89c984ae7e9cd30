"""House rules read from the source: layers, sizes, docs, public text, imports."""

"""JSON texts generated as trees of lexemes, for tests that compare two readings of a line."""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["json_trees", "rendered"]


def rendered(tree: object, space: str) -> str:
    """A tree as JSON text: a list is an array, a tuple of (name, item) pairs an object."""
    if isinstance(tree, list):
        return "[" + f",{space}".join(rendered(item, space) for item in tree) + "]"
    if isinstance(tree, tuple):
        members = (f'"{name}"{space}:{rendered(item, space)}' for name, item in tree)
        return "{" + f",{space}".join(members) + "}"
    return str(tree)


def json_trees(
    scalars: st.SearchStrategy[str], names: st.SearchStrategy[str]
) -> st.SearchStrategy[object]:
    """Arrays and objects of ``scalars`` (lexemes as written), members named from ``names``."""
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=3) | st.lists(st.tuples(names, inner), max_size=4).map(tuple)
        ),
        max_leaves=10,
    )

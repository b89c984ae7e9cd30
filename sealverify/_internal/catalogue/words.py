"""Every outcome word commands print (``outcomes.toml``): what each means and what to do.

``sealverify explain`` reads it; loaded on first use (``catalogue.outcomes``), so that a SARIF
run, which reads check ids only, never creates these classes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from sealverify._internal.catalogue.data import package_toml

__all__ = ["Outcome", "Sense", "lookup_outcome", "outcomes"]


@dataclass(frozen=True, slots=True)
class Sense:
    """What an outcome word means when ``commands`` print it, and what to do about it."""

    commands: tuple[str, ...]
    page: str
    means: str
    todo: str

    def to_dict(self) -> dict[str, object]:
        return {
            "commands": list(self.commands),
            "page": self.page,
            "means": self.means,
            "todo": self.todo,
        }


@dataclass(frozen=True, slots=True)
class Outcome:
    """An outcome word a command prints (VERIFIED, INTACT, same invocation) and its senses."""

    word: str
    aliases: tuple[str, ...]
    senses: tuple[Sense, ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "word": self.word,
            "aliases": list(self.aliases),
            "senses": [sense.to_dict() for sense in self.senses],
        }


def _sense(word: str, table: object) -> Sense:
    if not isinstance(table, dict) or sorted(table) != ["commands", "means", "page", "todo"]:
        raise ValueError(f"outcome {word!r}: a sense has exactly commands, page, means, todo")
    commands = table["commands"]
    if not (isinstance(commands, list) and commands and all(isinstance(c, str) for c in commands)):
        raise ValueError(f"outcome {word!r}: commands is a list of command names")
    texts = [table[name] for name in ("page", "means", "todo")]
    if not all(isinstance(text, str) and text for text in texts):
        raise ValueError(f"outcome {word!r}: page, means and todo are non-empty strings")
    return Sense(tuple(commands), *texts)


def _word_key(word: str) -> str:
    """The spelling outcome words are found by: case, hyphens and underscores ignored."""
    return " ".join(word.replace("-", " ").replace("_", " ").upper().split())


@cache
def outcomes() -> Mapping[str, Outcome]:
    """Every outcome word (``outcomes.toml``) by its key spelling, in sorted order."""
    found: dict[str, Outcome] = {}
    for word, table in sorted(package_toml("outcomes.toml").items()):
        if not isinstance(table, dict) or sorted(table) != ["aliases", "sense"]:
            raise ValueError(f"outcome {word!r}: expected aliases and sense")
        aliases = table["aliases"]
        senses = table["sense"]
        if not (isinstance(aliases, list) and all(isinstance(a, str) for a in aliases)):
            raise ValueError(f"outcome {word!r}: aliases is a list of words")
        if not (isinstance(senses, list) and senses):
            raise ValueError(f"outcome {word!r}: at least one sense")
        found[_word_key(word)] = Outcome(
            word, tuple(aliases), tuple(_sense(word, s) for s in senses)
        )
    return found


def lookup_outcome(word: str) -> Outcome | None:
    """The outcome word ``word`` (any case; hyphen, underscore and space alike), or None."""
    key = _word_key(word)
    for outcome in outcomes().values():
        if key == _word_key(outcome.word) or key in map(_word_key, outcome.aliases):
            return outcome
    return None

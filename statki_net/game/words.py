"""The words a person reads, in the language the shell chose: a translation passed in.

The pure layers put rules, verdicts and endings into words through a ``Words``
given by their caller (``statki_net.store.language`` loads the catalogs from
the package); ``ENGLISH``, the messages as written, is the default, so every
machine-readable output (``--json``, logs, the wire) stays English.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, Union

# Named here with the rest of the words; defined apart, for ``statki --help``.
from statki_net.game.english import ENGLISH as ENGLISH
from statki_net.game.english import N_ as N_


class Words(Protocol):
    """What the core needs of a ``gettext`` translation."""

    def gettext(self, message: str, /) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...

    def pgettext(self, context: str, message: str, /) -> str: ...


@dataclass(frozen=True)
class Term:
    """A word of the catalog inside a phrase (a role: ``host``), translated with it.

    A translation may ask for the word in a case of its own with a format spec:
    ``{loser:gen}`` is ``words.pgettext("gen", "host")`` (Polish "gospodarza");
    the English text says ``{loser}``.
    """

    word: str
    context: str = ""
    """The catalog's context for a word that means something else elsewhere (``message``:
    a message type, ``shot``, as the wire names it)."""

    def in_words(self, words: Words) -> str:
        return format(_InCase(self, words))


Fact = Union[str, int, Term, "Phrase"]
"""What a phrase says of the game: a number or a name as it is (a square, a peer's own
words), a word of the catalog, or a phrase of its own."""


@dataclass(frozen=True)
class Phrase:
    """A sentence kept as its kind and its facts, put into words where it is shown.

    ``text`` is the English, with ``{name}`` for each fact (marked with ``N_`` where
    it is written); ``str()`` is that English, what logs, ``--json`` and the wire
    keep, and ``in_words`` says it in a person's language.  An endings reason, a
    violation's detail: the pure core builds these, and no text is read back.
    """

    text: str = ""
    facts: tuple[tuple[str, Fact], ...] = ()

    def in_words(self, words: Words) -> str:
        if not self.text:
            return ""
        said = {name: _worded(fact, words) for name, fact in self.facts}
        return words.gettext(self.text).format(**said)

    def __str__(self) -> str:
        return self.in_words(ENGLISH)

    def __bool__(self) -> bool:
        return bool(self.text)


SILENCE = Phrase()
"""The empty phrase: nothing said (a default)."""


def phrase(text: str, /, **facts: Fact) -> Phrase:
    """``Phrase(text, facts)``, the facts by name as ``text`` names them."""
    return Phrase(text, tuple(facts.items()))


def joined(parts: Sequence[Phrase], between: str) -> Phrase:
    """Phrases one after another, ``between`` each (``"; "``), each said in its own words."""
    text = between.join(f"{{p{i}}}" for i in range(len(parts)))
    return Phrase(text, tuple((f"p{i}", part) for i, part in enumerate(parts)))


def listed(parts: Sequence[Fact]) -> Phrase:
    """One fact, or several joined by the language's "and" (``A and B and C``)."""
    *before, last = parts
    if not before:
        return last if isinstance(last, Phrase) else phrase("{only}", only=last)
    return phrase(N_("{first} and {second}"), first=listed(before), second=last)


DECIMAL_POINT = Term(".", "decimal separator")
"""What parts a number's fraction from its whole, as its reader writes it: ``.`` in English,
``,`` in Polish."""


def decimal_phrase(value: float, places: int, *, trimmed: bool = False) -> Phrase:
    """A fractional number as a fact of a phrase, said where the phrase is shown: ``0.3`` in
    English, ``0,3`` in Polish; in the English that logs and ``--json`` keep, the point.

    ``places`` after the separator; ``trimmed``, none that are zeros at the end, nor the
    separator of a whole number (as ``:g`` writes ``60`` and ``60.5``)."""
    text = f"{value:.{places}f}"
    if trimmed and "." in text:
        text = text.rstrip("0").rstrip(".")
    whole, point, fraction = text.partition(".")
    if not point:
        return phrase("{whole}", whole=whole)
    return phrase("{whole}{point}{fraction}", whole=whole, point=DECIMAL_POINT, fraction=fraction)


def decimal(value: float, places: int, words: Words = ENGLISH, *, trimmed: bool = False) -> str:
    """A fractional number as its reader writes it: ``55.5`` in English, ``55,5`` in Polish.

    The one place a number with a fraction is put into words for a person (with
    ``decimal_phrase``, for a phrase said later); the separator is the catalog's, so
    ``--json``, logs and CSV (``ENGLISH``) keep the point.
    """
    return decimal_phrase(value, places, trimmed=trimmed).in_words(words)


def seconds_said(seconds: float) -> Phrase:
    """A limit or a wait in seconds, as a phrase's fact: ``120``, ``0.3``, ``60.5`` (to the
    millisecond, the finest any limit is given in)."""
    return decimal_phrase(seconds, 3, trimmed=True)


def _decimal_point(words: Words) -> str:
    """``DECIMAL_POINT`` written out for the catalog's extraction: never called."""
    return words.pgettext("decimal separator", ".")


CONTROL_CHARACTERS = frozenset(
    [
        *range(0x00, 0x20),
        0x7F,
        *range(0x80, 0xA0),
        0x061C,
        0x200E,
        0x200F,
        0x2028,
        0x2029,
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
    ]
)
"""Code points no text for people may carry to a screen (SPEC.md section 2, "Text"): C0
(tab and newline too: a line is one line), DEL and C1; the line and paragraph separators;
and the bidirectional marks, embeddings, overrides and isolates, which could make a line
read otherwise than it is signed."""

SHOWN_INSTEAD = "\N{REPLACEMENT CHARACTER}"
"""What ``printable`` puts in a control character's place."""


def printable(text: str) -> str:
    """``text`` from outside (a peer's name, its error's detail) as a screen may show it:
    each control character replaced by ``SHOWN_INSTEAD``, so that no escape sequence,
    carriage return or bidirectional override in it can redraw or reorder a line."""
    if not any(ord(char) in CONTROL_CHARACTERS for char in text):
        return text  # nearly always: no new string
    return "".join(SHOWN_INSTEAD if ord(char) in CONTROL_CHARACTERS else char for char in text)


def as_is(text: str) -> Phrase:
    """Words no catalog holds, shown as they are: a peer's own detail, a writer's note."""
    return phrase("{text}", text=text)


@dataclass(frozen=True)
class _InCase:
    """A term as ``str.format`` places it: the format spec names the case."""

    term: Term
    words: Words

    def __format__(self, case: str) -> str:
        if case:
            return self.words.pgettext(case, self.term.word)
        if self.term.context:
            return self.words.pgettext(self.term.context, self.term.word)
        return self.words.gettext(self.term.word)


def _worded(fact: Fact, words: Words) -> object:
    match fact:
        case Phrase():
            return fact.in_words(words)
        case Term():
            return _InCase(fact, words)
        case _:
            return fact


def phrase_map(said: Phrase) -> dict[str, Any]:
    """A phrase as its English text and its facts (a term stays a term, a phrase inside a
    phrase a map): what the control socket sends (SPEC.md, "The control socket") and the
    history keeps, so that the reader says it in their own language."""
    return {"text": said.text, "facts": [[name, _fact_map(fact)] for name, fact in said.facts]}


def _fact_map(fact: Fact) -> Any:
    match fact:
        case Phrase():
            return {"phrase": phrase_map(fact)}
        case Term():
            return {"term": fact.word, "context": fact.context}
        case _:
            return fact


def phrase_from_map(value: Any) -> Phrase:
    """``phrase_map`` read back (a plain string: words no catalog holds); a ValueError (or
    a KeyError, a TypeError) for a map that is not one, here and not where it is shown."""
    if isinstance(value, str):
        return as_is(value)
    text = str(value["text"])
    facts = tuple((str(name), _fact(fact)) for name, fact in value["facts"])
    _check_fields(text, {name for name, _fact_said in facts})
    return Phrase(text, facts)


def _check_fields(text: str, names: set[str]) -> None:
    """A phrase's text is formatted where it is shown: only its facts' names may stand in it,
    each with no conversion and at most a case (``{loser:gen}``)."""
    for _literal, field, spec, conversion in string.Formatter().parse(text):
        if field is None:
            continue
        if field not in names or conversion or (spec and not spec.isalpha()):
            raise ValueError(f"a phrase's text names {field!r}, which is not one of its facts")


def _fact(value: Any) -> Fact:
    if isinstance(value, Mapping):
        if "phrase" in value:
            return phrase_from_map(value["phrase"])
        return Term(str(value["term"]), str(value["context"]))
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"a fact is a number, a name, a term or a phrase, not {value!r}")
    return value

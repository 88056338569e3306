"""The message catalogs: generated, committed, checked (as protocol/ vectors are).

Babel (a test dependency) extracts the marked strings from the sources as
``babel.cfg`` says and compiles the ``.po``; the committed ``.mo`` must be
what it compiles, and the ``.po`` must hold every string it extracts,
translated (README, "Languages", says how to add one).
"""

from __future__ import annotations

import io
import re
from gettext import GNUTranslations
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from statki_net.game.rules import PRESETS
from statki_net.game.rules_words import describe
from statki_net.store.language import LOCALE_DIR, catalog, from_locale

ROOT = Path(__file__).resolve().parent.parent
PO = LOCALE_DIR / "pl" / "LC_MESSAGES" / "statki.po"
MO = PO.with_suffix(".mo")
POLISH_PLURALS = (
    "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);"
)


def polish() -> Catalog:
    with PO.open("rb") as po:
        return read_po(po)


def extracted() -> set[str]:
    """Every msgid the sources mark, as ``pybabel extract -F babel.cfg`` finds them."""
    with (ROOT / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)  # type: ignore[no-untyped-call]
    found = extract_from_dir(ROOT, method_map, options_map)
    return {message if isinstance(message, str) else message[0] for _, _, message, _, _ in found}


def test_the_committed_mo_is_what_babel_compiles_from_the_po() -> None:
    """Compared as catalogs, not bytes: Babel writes its own version into the header."""
    compiled = io.BytesIO()
    write_mo(compiled, polish())
    compiled.seek(0)

    def entries(translations: GNUTranslations) -> dict[object, str]:
        held: dict[object, str] = translations._catalog  # type: ignore[attr-defined]
        return {key: text for key, text in held.items() if key != ""}

    with MO.open("rb") as committed:
        assert entries(GNUTranslations(committed)) == entries(GNUTranslations(compiled)), (
            "run: pybabel compile -d statki_net/locale -D statki"
        )


def test_every_string_the_code_marks_is_in_the_po_translated() -> None:
    held = {m.id if isinstance(m.id, str) else m.id[0]: m for m in polish() if m.id}
    missing = sorted(extracted() - set(held))
    assert not missing, f"not in {PO.name} (README, Languages): {missing}"
    untranslated = [key for key, m in held.items() if not all(_strings(m.string)) or m.fuzzy]
    assert not untranslated, f"untranslated or fuzzy: {untranslated}"


def test_polish_has_three_plural_forms() -> None:
    assert polish().plural_forms == POLISH_PLURALS
    words = catalog("pl")
    forms = [words.ngettext("{n} ship", "{n} ships", n).format(n=n) for n in (1, 2, 5, 12, 22, 25)]
    assert forms == ["1 statek", "2 statki", "5 statków", "12 statków", "22 statki", "25 statków"]


def test_babel_finds_nothing_wrong_in_the_po() -> None:
    """What ``pybabel compile`` would refuse: a %-format that does not match its message."""
    assert [(m.id, errors) for m, errors in polish().check()] == []


CASES = ("gen", "acc", "inst")
"""The cases a translation may ask of a side in a phrase (``{loser:gen}``: ``Term``)."""


def test_every_translation_keeps_the_placeholders_of_its_message() -> None:
    """The same placeholders, a side's case (``{loser:gen}``) apart."""

    def fields(text: str) -> list[str]:
        cases = "|".join(CASES)
        return sorted(re.sub(rf":(?:{cases})}}$", "}", f) for f in re.findall(r"\{[^{}]*\}", text))

    wrong = [
        (m.id, string)
        for m in polish()
        if m.id
        for string in _strings(m.string)
        if fields(string) not in [fields(msgid) for msgid in _strings(m.id)]
    ]
    assert not wrong


def _strings(value: str | tuple[str, ...] | list[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({"LANG": "pl_PL.UTF-8"}, "pl"),
        ({"LC_MESSAGES": "pl_PL", "LANG": "en_GB.UTF-8"}, "pl"),
        ({"LC_ALL": "C", "LC_MESSAGES": "pl_PL", "LANG": "pl_PL"}, "en"),
        ({"LC_ALL": "pl_PL.UTF-8@euro", "LANG": "de_DE"}, "pl"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LC_ALL": "", "LANG": "pl"}, "pl"),
        ({}, "en"),
    ],
)
def test_the_locale_chooses_as_gettext_does(environ: dict[str, str], language: str) -> None:
    assert from_locale(environ) == language


def test_the_core_speaks_the_language_it_is_given() -> None:
    rules = PRESETS["classic"]
    assert describe(rules).summary == "10 ships, no touching, a hit earns another shot"
    assert describe(rules, catalog("pl")).summary == (
        "10 statków, bez stykania, po trafieniu kolejny strzał"
    )
    assert rules.ship_label(0, catalog("pl")) == "czteromasztowiec"

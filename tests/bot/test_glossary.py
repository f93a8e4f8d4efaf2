"""The French catalogue speaks the games' own terms (docs/glossary.md).

Every French message — the core's and each game's, command descriptions included (command and
option names are identifiers, checked elsewhere) — is read without its URLs, Discord markup,
{placeholders} and `code`, every branch of its plural forms included, and must not write a
variant the glossary's column *never* lists, nor one of the terms issue 30 found (kept here
too, so that the glossary cannot drop them unnoticed).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.i18n import every_branch
from tests.bot.french import french_messages

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = ROOT / "docs" / "glossary.md"

NOT_PROSE = re.compile(r"https?://[^\s>)]+|<[^<>\s]*>|\{[^{}]*\}|`[^`]*`")

#: The wrong terms issue 30 lists, and what the rules write instead.
ISSUE_TERMS = {
    "a surveillé": "a mis en jeu (Veille)",
    "fait sa veille": "met en jeu (Veille)",
    "cartes technique": "cartes techniques",
    "carte de technique": "carte technique",
    "cartes de technique": "cartes techniques",
    "cartes de désinformation": "cartes désinformations",
    "carte de désinformation": "carte désinformation",
    "pile des réfutées": "pile des désinformations réfutées",
    "la main passe": "le rôle de Leader passe",
    "passé comme Leader": "n’a pas proposé d’équipe à temps",
    "espion": "Espion",
    "espions": "Espions",
    "résistant": "Résistant",
    "résistants": "Résistants",
    "le bien": "le Bien",
    "le mal": "le Mal",
    "les méchants": "les serviteurs de Mordred",
    "gentil": "Fidèle Vassal d’Arthur / le Bien",
    "méchant": "serviteur de Mordred / le Mal",
    "serviteurs loyaux": "Fidèles Vassaux d’Arthur",
}


def glossary_variants() -> dict[str, str]:
    """The glossary's forbidden variants (column *never*), each with its row's French term."""
    out: dict[str, str] = {}
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] in ("English", "---"):
            continue
        for variant in re.findall(r"`([^`]+)`", cells[2]):
            out[variant] = cells[1]
    return out


def prose(text: str) -> str:
    return NOT_PROSE.sub(" ", every_branch(text))


def found(variant: str, text: str) -> bool:
    """``variant`` as whole words (case counts) in ``text``: no letter just before a variant
    that starts with one, nor just after one that ends with one (``·e``, inclusive writing, is
    found in "inscrit·e")."""
    before = r"(?<!\w)" if re.match(r"\w", variant) else ""
    after = r"(?!\w)" if re.search(r"\w$", variant) else ""
    return re.search(before + re.escape(variant) + after, text) is not None


def test_the_glossary_lists_the_issues_terms_and_more() -> None:
    variants = glossary_variants()
    assert len(variants) >= 30, variants
    listed = {v for v in ISSUE_TERMS if any(found(v, g) or v == g for g in variants)}
    # every term of the issue is one of the glossary's variants, or contains one
    missing = [v for v in ISSUE_TERMS if v not in listed and not any(g in v for g in variants)]
    assert not missing, missing


def test_the_checker_reads_whole_words_and_skips_what_is_not_prose() -> None:
    assert found("espions", "Les espions gagnent")
    assert not found("espions", "Les Espions gagnent")
    assert not found("cartes désinformation", "5 cartes désinformations")
    assert found("cartes désinformation", "5 cartes désinformation.")
    assert not found("pass", "passer")
    assert found("·e", "inscrit·e") and not found("·e", "n° 3 · 2 mars")
    assert not found("leader", prose("`heures_leader` {leader} <https://x.org/leader>"))


@pytest.mark.parametrize("source", ["issue", "glossary"])
def test_no_french_message_writes_a_wrong_term(source: str) -> None:
    terms = ISSUE_TERMS if source == "issue" else glossary_variants()
    wrong = {
        key: [f"{variant!r} (write {terms[variant]})" for variant in terms if found(variant, text)]
        for key, message in french_messages().items()
        if (text := prose(message))
    }
    wrong = {key: found_terms for key, found_terms in wrong.items() if found_terms}
    assert not wrong, wrong

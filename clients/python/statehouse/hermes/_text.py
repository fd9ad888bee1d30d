"""Pure text helpers Hermes' SessionDB exposes as static methods: title cleaning, FTS5 query
sanitizing, CJK detection. Statehouse does the real work server-side (titles are sanitized there,
search parses queries itself, docs/domain.md §2.2.5 and §7.2); these exist so code written against
Hermes' SessionDB keeps calling them with the same results.
"""

from __future__ import annotations

import importlib
import re
from typing import List, Optional

MAX_TITLE_LENGTH = 100
MAX_FTS5_QUERY_CHARS = 2_048

# ASCII controls except the whitespace that the collapse below turns into spaces.
_ASCII_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Zero-width, line/paragraph separators, bidi embeddings/overrides/isolates, BOM, object replacement.
_INVISIBLES = re.compile("[\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffc]")
_WHITESPACE_RUN = re.compile(r"\s+")


_SOURCE_LABEL = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")


def source_label(source: str) -> str:
    """A Hermes source as a Statehouse surface label (``[a-z0-9][a-z0-9_.-]*``, at most 64): a value
    outside the alphabet is folded the way the importer folds it (``"telegram:-100"`` →
    ``"telegram--100"``), so live writes and imports of one source meet (docs/migrating-from-hermes.md)."""
    if _SOURCE_LABEL.fullmatch(source):
        return source
    folded = re.sub(r"[^a-z0-9_.-]+", "-", source.lower())
    folded = re.sub(r"^[^a-z0-9]+", "", folded)[:64]
    return re.sub(r"[-_.]+$", "", folded) or "unknown"


def source_labels(sources: Optional[List[str]]) -> Optional[List[str]]:
    return [source_label(source) for source in sources] if sources else None


def sanitize_title(title: Optional[str]) -> Optional[str]:
    """A title as Hermes stores it: controls and invisible characters removed, whitespace collapsed,
    empty → ``None``; longer than 100 characters → ``ValueError`` ("too long")."""
    if not title:
        return None
    cleaned = _INVISIBLES.sub("", _ASCII_CONTROLS.sub("", title))
    cleaned = _WHITESPACE_RUN.sub(" ", cleaned).strip()
    if not cleaned:
        return None
    if len(cleaned) > MAX_TITLE_LENGTH:
        raise ValueError(f"Title too long ({len(cleaned)} chars, max {MAX_TITLE_LENGTH})")
    return cleaned


_FTS_SPECIALS = re.compile(r'[+{}():"^]')
_STAR_RUN = re.compile(r"\*+")
_LEADING_STAR = re.compile(r"(^|\s)\*")
_LEADING_OPERATOR = re.compile(r"(?i)^(AND|OR|NOT)\b\s*")
_TRAILING_OPERATOR = re.compile(r"(?i)\s+(AND|OR|NOT)\s*$")
_JOINED_TERM = re.compile(r"\b(\w+(?:[._-]\w+)+)\b")


def sanitize_fts5_query(query: str) -> str:
    """An FTS5 MATCH expression that cannot fail to parse: balanced ``"phrases"`` kept, other special
    characters dropped, dangling boolean operators and bare ``*`` removed, and terms joined by
    ``.``, ``-`` or ``_`` quoted as phrases. Bounded: input past 2 048 characters is ignored."""
    query = query[:MAX_FTS5_QUERY_CHARS]
    phrases: list[str] = []
    out: list[str] = []
    position = 0
    length = len(query)
    while position < length:
        quote = query.find('"', position)
        if quote < 0:
            out.append(query[position:])
            break
        out.append(query[position:quote])
        closing = query.find('"', quote + 1)
        if closing < 0:
            # An unmatched quote is dropped like any other special character.
            out.append(" ")
            out.append(query[quote + 1 :])
            break
        phrases.append(query[quote : closing + 1])
        out.append(f"\x00{len(phrases) - 1}\x00")
        position = closing + 1
    text = _FTS_SPECIALS.sub(" ", "".join(out))
    text = _LEADING_STAR.sub(r"\1", _STAR_RUN.sub("*", text))
    text = _LEADING_OPERATOR.sub("", text.strip())
    text = _TRAILING_OPERATOR.sub("", text.strip())
    text = _JOINED_TERM.sub(r'"\1"', text)
    for index, phrase in enumerate(phrases):
        text = text.replace(f"\x00{index}\x00", phrase)
    return text.strip()


_CJK_RANGES = (
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0x3400, 0x4DBF),  # extension A
    (0x20000, 0x2A6DF),  # extension B
    (0x3000, 0x303F),  # CJK symbols and punctuation
    (0x3040, 0x309F),  # hiragana
    (0x30A0, 0x30FF),  # katakana
    (0xAC00, 0xD7AF),  # hangul syllables
)


def is_cjk_codepoint(codepoint: int) -> bool:
    return any(low <= codepoint <= high for low, high in _CJK_RANGES)


def contains_cjk(text: str) -> bool:
    return any(is_cjk_codepoint(ord(char)) for char in text)


def count_cjk(text: str) -> int:
    return sum(1 for char in text if is_cjk_codepoint(ord(char)))


_MEMORY_CONTEXT = re.compile(r"<memory-context>.*?</memory-context>\s*", re.DOTALL)


def strip_memory_context(text: str) -> str:
    """Removes recalled-memory blocks a provider echoed back (Hermes' own scrubber when installed)."""
    try:
        # Hermes' own scrubber, when Hermes is installed beside this package.
        sanitize_context = importlib.import_module("agent.memory_manager").sanitize_context
    except Exception:
        return _MEMORY_CONTEXT.sub("", text)
    return str(sanitize_context(text))


_REVIEW_HARNESS_OPENINGS = (
    "Review the conversation above and update the skill library",
    "Review the conversation above and consider saving to memory",
)


def _is_review_harness(message: dict) -> bool:  # type: ignore[type-arg]
    content = message.get("content")
    return (
        message.get("role") in ("user", "system")
        and isinstance(content, str)
        and content.lstrip().startswith(_REVIEW_HARNESS_OPENINGS)
    )


def strip_review_harness(messages: list[dict]) -> list[dict]:  # type: ignore[type-arg]
    """Drops background-review prompts that older Hermes builds wrote into real sessions, and the
    assistant reply that answered each (replayed, they would make the agent act as the reviewer)."""
    kept: list[dict] = []  # type: ignore[type-arg]
    drop_answer = False
    for message in messages:
        if _is_review_harness(message):
            drop_answer = True
            continue
        if drop_answer:
            drop_answer = False
            if message.get("role") == "assistant":
                continue
        kept.append(message)
    return kept

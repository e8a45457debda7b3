"""Super-linear regular expressions, found by timing (no tests here; test_redos_guard.py and bench/redos.py).

Every compiled pattern the engine keeps in module globals or tables is collected by walking the
modules, so a new rule is covered without naming it anywhere. Hostile inputs are built from each
pattern itself: runs of the characters its repeats accept, alone and in pairs (``AB-``, ``a.``),
its literal words repeated, and a fixed family (long blank runs between two words, separators before
``://``). A pattern is judged by how its time grows when the input grows four times (1K -> 4K
characters to look, 8K -> 32K to judge): about 4 for linear work, about 16 for quadratic. Only that
ratio decides, never a wall-clock limit; absolute times only decide what is too small to be worth measuring again.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import pkgutil
import re
import re._constants as sre
import re._parser as sre_parse
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

PACKAGES = (
    "hindsight_desktop.core.redact",
    "hindsight_desktop.core.write",
    "hindsight_desktop.core.text",
    "hindsight_desktop.core.recall",
    "hindsight_desktop.core.index",
    "hindsight_desktop.core.maintenance",
    "hindsight_desktop.core.inbox",
)
SIZES = (1024, 4096, 8192, 32768)  # characters: two to look, two to judge; the write limit is 32 KB
FAIL_RATIO = 8.0  # linear is ~4, quadratic ~16
SETTLED = 6.0  # a first ratio below this is linear enough not to measure again
# A case faster than this at its larger size costs nothing worth guarding, whatever its growth; below it,
# a cheap linear scan can also grow 8-12 times from 8K to 32K when the text leaves the CPU's first cache.
FLOOR_S = 0.02
ESCALATE_S = 0.1  # above this, do not try the next size (a quadratic one would take 16 times longer)

# Characters offered to character classes: each kind the patterns distinguish.
POOL = (
    " ",
    "\t",
    "\n",
    "\u3000",
    "a",
    "z",
    "A",
    "Z",
    "0",
    "1",
    "9",
    "_",
    "-",
    ".",
    ",",
    ":",
    ";",
    "/",
    "@",
    "&",
    "'",
    '"',
    "+",
    "=",
    "%",
    "#",
    "(",
    ")",
    "!",
    "?",
    "·",
    "中",
    "月",
    "年",
    "一",
    "日",
    "１",
    "Ａ",
    "é",
    "。",
    "，",
    "：",
    "\u200b",
)
FIXED_UNITS = (
    " ",
    "a",
    "A",
    "1",
    "AB-",
    "a.",
    ".",
    "-",
    "中",
    "１",
    "Ab ",
    "a1",
    "A-",
    "1.",
    "a-",
    "a ",
    "A ",
    "中 ",
    "\u3000",
    "a@",
    "a:",
    "/",
    "a/",
    "=",
    "_",
    "1 ",
    "1-",
    "a'",
    "Ab",
    "一",
    "月 ",
    "1月",
    "\t",
    "\n",
)


@dataclass(frozen=True)
class Site:
    """One compiled pattern and where it lives (module.global[index]...)."""

    name: str
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class Finding:
    """How one pattern (or function) grows on its worst input."""

    name: str
    unit: str  # what was repeated
    around: tuple[str, str]  # the text before and after the run
    small: int
    large: int
    t_small: float
    t_large: float

    @property
    def ratio(self) -> float:
        return self.t_large / max(self.t_small, 1e-9)

    @property
    def at_limit(self) -> float:
        """The time at the largest size, at least: judged on a smaller pair, grown linearly from it."""
        return self.t_large * max(1.0, SIZES[-1] / self.large)

    @property
    def flagged(self) -> bool:
        return self.ratio > FAIL_RATIO and self.at_limit >= FLOOR_S

    @property
    def weight(self) -> float:
        return self.ratio if self.at_limit >= FLOOR_S else 0.0

    @property
    def shape(self) -> str:
        """The input, as an expression: "'Ab '+' '*n+' Cd'"."""
        head, tail = self.around
        return (f"{head!r}+" if head else "") + f"{self.unit!r}*n" + (f"+{tail!r}" if tail else "")

    def describe(self) -> str:
        return (
            f"{self.name}: {self.shape} {self.small}->{self.large} chars "
            f"{self.t_small * 1000:.2f} ms -> {self.t_large * 1000:.2f} ms (x{self.ratio:.1f})"
        )


# ---- collecting the patterns ---------------------------------------------------------------------


def _walk(value: Any, name: str, out: dict[tuple[str, int], Site], depth: int) -> None:
    if isinstance(value, re.Pattern):
        if isinstance(value.pattern, str):
            out.setdefault((value.pattern, value.flags), Site(name, value))
    elif depth <= 0 or isinstance(value, str | bytes | int | float | type(None)):
        return
    elif isinstance(value, tuple | list):
        for i, item in enumerate(value):
            _walk(item, f"{name}[{i}]", out, depth - 1)
    elif isinstance(value, set | frozenset):
        for item in value:
            _walk(item, f"{name}{{}}", out, depth - 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            _walk(key, f"{name}{{key}}", out, depth - 1)
            _walk(item, f"{name}[{key!r}]", out, depth - 1)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _walk(getattr(value, f.name), f"{name}.{f.name}", out, depth - 1)


def modules() -> Iterator[Any]:
    for package_name in PACKAGES:
        package = importlib.import_module(package_name)
        yield package
        for info in pkgutil.walk_packages(package.__path__, package_name + "."):
            yield importlib.import_module(info.name)


def collect() -> list[Site]:
    """Every str pattern held in the globals (and their tables) of the engine's text-handling modules."""
    found: dict[tuple[str, int], Site] = {}
    for module in modules():
        short = module.__name__.removeprefix("hindsight_desktop.core.")
        for key, value in vars(module).items():
            if not key.startswith("__"):
                _walk(value, f"{short}.{key}", found, depth=5)
    return sorted(found.values(), key=lambda s: s.name)


# ---- inputs built from a pattern -----------------------------------------------------------------


def _category(cat: Any, ch: str, ascii_only: bool) -> bool:
    if ascii_only and not ch.isascii():
        return cat in (sre.CATEGORY_NOT_DIGIT, sre.CATEGORY_NOT_SPACE, sre.CATEGORY_NOT_WORD)
    word = ch.isalnum() or ch == "_"
    return {
        sre.CATEGORY_DIGIT: ch.isdecimal(),
        sre.CATEGORY_NOT_DIGIT: not ch.isdecimal(),
        sre.CATEGORY_SPACE: ch.isspace(),
        sre.CATEGORY_NOT_SPACE: not ch.isspace(),
        sre.CATEGORY_WORD: word,
        sre.CATEGORY_NOT_WORD: not word,
    }.get(cat, False)


def _class_members(items: list[Any], flags: int) -> list[str]:
    negate = bool(items) and items[0][0] is sre.NEGATE
    fold = bool(flags & re.IGNORECASE)
    ascii_only = bool(flags & re.ASCII)

    def has(ch: str) -> bool:
        for op, av in items:
            codes = {ord(ch), ord(ch.lower()), ord(ch.upper())} if fold else {ord(ch)}
            if (
                op is sre.LITERAL
                and av in codes
                or op is sre.RANGE
                and any(av[0] <= c <= av[1] for c in codes)
                or op is sre.CATEGORY
                and _category(av, ch, ascii_only)
            ):
                return True
        return False

    return [ch for ch in POOL if has(ch) != negate]


def _chars(op: Any, av: Any, flags: int) -> list[str]:
    if op is sre.LITERAL:
        return [chr(av)]
    if op is sre.IN:
        return _class_members(av, flags)
    if op is sre.NOT_LITERAL:
        return [ch for ch in POOL if ord(ch) != av]
    if op is sre.ANY:
        return [ch for ch in POOL if ch != "\n"]
    return []


def _children(op: Any, av: Any) -> list[Any]:
    if op is sre.BRANCH:
        return list(av[1])
    if op is sre.SUBPATTERN:
        return [av[3]]
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        return [av[2]]
    if op is sre.ATOMIC_GROUP:
        return [av]
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return [av[1]]
    if op is sre.GROUPREF_EXISTS:
        return [x for x in av[1:] if x is not None]
    return []


def _all_chars(sub: Any, flags: int) -> list[str]:
    out: list[str] = []
    for op, av in sub:
        out += _chars(op, av, flags)
        for child in _children(op, av):
            out += _all_chars(child, flags)
    return list(dict.fromkeys(out))


def _kind(ch: str) -> str:
    if ch.isspace():
        return "space"
    if ch.isascii() and ch.isalpha():
        return "upper" if ch.isupper() else "lower"
    if ch.isascii() and ch.isdigit():
        return "digit"
    if not ch.isascii():
        return "wide:" + ch if not (ch.isalnum() or ch.isspace()) else ("cjk" if "\u4e00" <= ch <= "\u9fff" else "wide")
    return "punct:" + ch


def _units_from_chars(chars: list[str]) -> list[str]:
    by_kind: dict[str, str] = {}
    for ch in chars:
        by_kind.setdefault(_kind(ch), ch)
    singles = list(by_kind.values())[:10]
    words = [c for c in singles if c.isalnum()]
    others = [c for c in singles if not c.isalnum()]
    pairs = [w + o for w in words[:4] for o in others[:4]]
    pairs += [a + b for a in words[:3] for b in words[:3] if _kind(a) != _kind(b)]
    return singles + pairs[:12]


def _literal_runs(sub: Any, out: list[str]) -> None:
    run = ""
    for op, av in sub:
        if op is sre.LITERAL:
            run += chr(av)
            continue
        if len(run) >= 2:
            out.append(run)
        run = ""
        for child in _children(op, av):
            _literal_runs(child, out)
    if len(run) >= 2:
        out.append(run)


def _repeat_bodies(sub: Any, out: list[Any]) -> None:
    for op, av in sub:
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT) and (av[1] is sre.MAXREPEAT or av[1] >= 16):
            out.append(av[2])
        for child in _children(op, av):
            _repeat_bodies(child, out)


def _witness(sub: Any, flags: int) -> str:
    """A short string the sequence `sub` may match (lookarounds and anchors are left out)."""
    out = ""
    for op, av in sub:
        if op in (sre.LITERAL, sre.IN, sre.NOT_LITERAL, sre.ANY):
            out += (_chars(op, av, flags) or ["a"])[0]
        elif op is sre.BRANCH:
            out += _witness(av[1][0], flags)
        elif op is sre.SUBPATTERN:
            out += _witness(av[3], flags)
        elif op is sre.ATOMIC_GROUP:
            out += _witness(av, flags)
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            out += _witness(av[2], flags) * min(av[0], 4)
    return out


def _heads(sub: Any, flags: int, before: str, out: list[tuple[str, Any, list[str]]], follow: list[str]) -> None:
    """(what must come first, repeat body, literal words after it) for each long repeat: an anchored
    rule ("^我在(?P<v>.+?)(?:上学|…)") is only reached past its opening words."""
    for i, (op, av) in enumerate(sub):
        here = before + _witness(sub[:i], flags)
        rest: list[str] = []
        _literal_runs(sub[i + 1 :], rest)
        rest += follow
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT) and (av[1] is sre.MAXREPEAT or av[1] >= 16):
            out.append((here, av[2], rest))
        if op is sre.BRANCH:
            for alt in av[1]:
                _heads(alt, flags, here, out, rest)
        elif op is sre.SUBPATTERN:
            _heads(av[3], flags, here, out, rest)
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            _heads(av[2], flags, here, out, rest)


def units(pattern: re.Pattern[str]) -> list[str]:
    """Strings to repeat against `pattern`: what its long repeats accept, its literal words, the fixed family."""
    tree = sre_parse.parse(pattern.pattern, pattern.flags)
    bodies: list[Any] = []
    _repeat_bodies(tree.data, bodies)
    found: list[str] = []
    for body in bodies:
        found += _units_from_chars(_all_chars(body, pattern.flags))
    for lit in _literals(tree):
        found += [lit, lit + " ", lit + "a", lit + "1"]
    return list(dict.fromkeys([*found, *FIXED_UNITS]))


def _literals(tree: Any) -> list[str]:
    literals: list[str] = []
    _literal_runs(tree.data, literals)
    return list(dict.fromkeys(literals))[:6]


Case = tuple[str, tuple[str, str]]  # the unit repeated, and the text (before, after) the run
PLAIN = ("", "!")
BETWEEN_WORDS = ("Ab ", " Cd")
BEFORE_SCHEME = ("", " ://")


def build(unit: str, around: tuple[str, str], n: int) -> str:
    """`unit` repeated to `n` characters, between `around`'s two parts."""
    return around[0] + (unit * (n // len(unit) + 1))[:n] + around[1]


def headed(pattern: re.Pattern[str], most: int = 40) -> list[Case]:
    """Runs placed after the words a repeat needs before it, from that repeat's characters and the
    pattern's literal words."""
    tree = sre_parse.parse(pattern.pattern, pattern.flags)
    heads: list[tuple[str, Any, list[str]]] = []
    _heads(tree.data, pattern.flags, "", heads, [])
    cases: list[Case] = []
    for head, body, after in heads:
        if head:
            mine = _units_from_chars(_all_chars(body, pattern.flags))[:8]
            words = list(dict.fromkeys(after))
            cases += [(u, (head, "!")) for u in [*mine, *words[:4]]]
            # Ended by a word the pattern looks for further on (the nearest, the furthest), so that a
            # late check fails every time.
            ends = list(dict.fromkeys([*words[:1], *words[-2:]]))
            cases += [(u, (head, w)) for u in [*mine[:2], *words[:2]] for w in ends]
    return list(dict.fromkeys(cases))[:most]


def inputs(pattern: re.Pattern[str] | None) -> list[Case]:
    """The cases for `pattern`: its own units in plain runs, runs after its opening words, the wrapped family."""
    generated = units(pattern) if pattern is not None else list(FIXED_UNITS)
    extra = headed(pattern) if pattern is not None else []
    return [(u, PLAIN) for u in generated] + extra + WRAPPED


# Blank runs between two words, and separator runs before "://", as the hostile writes did.
WRAPPED: list[Case] = [(u, BETWEEN_WORDS) for u in (" ", "\t", "\u3000", "\n", "a ", "A ", "Ab ", "1 ", "中 ")] + [
    (u, BEFORE_SCHEME) for u in ("a.", ".", "-", "a-", "AB-", "a/", "a:", "a", "1.", "_")
]
# Texts dense with what extraction finds: thousands of small matches, each claiming a span.
DENSE: list[Case] = [
    (u, PLAIN)
    for u in (
        "12 ",
        "3pm ",
        "北京 ",
        "王小红说",
        "$12 ",
        "5月3日 ",
        "Ab, ",
        "a@b.co ",
        "Room 12 ",
        "tomorrow ",
        "I live in Paris. ",
        "我住在北京。",
    )
]


# ---- timing --------------------------------------------------------------------------------------


def finditer_all(pattern: re.Pattern[str]) -> Callable[[str], object]:
    """Run a pattern the way the engine does (every match over the whole text)."""
    return lambda text: sum(1 for _ in pattern.finditer(text))


def _time(fn: Callable[[str], object], text: str) -> float:
    # CPU time of this thread: on a shared machine wall time also counts the other processes' turns,
    # which land more often on a long run than on a short one and so inflate the ratio.
    start = time.thread_time()
    fn(text)
    return time.thread_time() - start


def _pair(fn: Callable[[str], object], small: str, large: str, runs: int) -> tuple[float, float]:
    """Best of `runs` for each, interleaved so that a burst of load on the machine hits both alike."""
    t_small, t_large = [], []
    for _ in range(runs):
        t_small.append(_time(fn, small))
        t_large.append(_time(fn, large))
    return min(t_small), min(t_large)


def growth(
    name: str,
    fn: Callable[[str], object],
    unit: str,
    around: tuple[str, str],
    sizes: tuple[int, int, int, int] = SIZES,
    runs: int = 5,
) -> Finding:
    """How `fn`'s time grows on `unit` runs. A look at the two small sizes settles most cases; a
    suspicious one is judged on the two large sizes (the smaller pair when the large one would take
    too long), best of several interleaved runs, and must show it twice: a burst of load on a shared
    machine is not a quadratic pattern."""
    s0, s1, s2, s3 = sizes
    probe = _time(fn, build(unit, around, s0 // 4))
    t0 = _time(fn, build(unit, around, s0)) if probe <= ESCALATE_S else probe
    if probe > ESCALATE_S:  # cubic or worse: a quarter of the smallest input is already slow
        small, large = s0 // 16, s0 // 4
    elif t0 > ESCALATE_S:  # even the smallest input is slow: compare it with a quarter of it
        small, large = s0 // 4, s0
    else:
        t1 = _time(fn, build(unit, around, s1))
        quick = Finding(name, unit, around, s0, s1, t0, t1)
        # Harmless at the largest size even if quadratic, or linear: settled.
        if t1 * (s3 // s1) ** 2 < FLOOR_S or quick.ratio < SETTLED:
            return quick
        # The large pair, unless the growth seen so far says the largest input would take over a second.
        exponent = math.log(max(quick.ratio, 1.0), s1 / s0)
        small, large = (s0, s1) if t1 * (s3 / s1) ** exponent > 1.0 else (s2, s3)
    small_text, large_text = build(unit, around, small), build(unit, around, large)
    t_small, t_large = _pair(fn, small_text, large_text, 1)
    finding = Finding(name, unit, around, small, large, t_small, t_large)
    if t_large > 0.5 or not finding.flagged:  # one run this long is measured well enough
        return finding
    for _ in range(2):
        again = Finding(name, unit, around, small, large, *_pair(fn, small_text, large_text, runs))
        if not again.flagged:
            return again
        finding = again
    return finding


def worst(
    name: str,
    fn: Callable[[str], object],
    cases: list[Case],
    stop_at: float | None = FAIL_RATIO,
    sizes: tuple[int, int, int, int] = SIZES,
) -> Finding:
    """The case whose time grows fastest (stops at the first one above `stop_at`)."""
    result: Finding | None = None
    for unit, around in cases:
        f = growth(name, fn, unit, around, sizes)
        if result is None or f.weight > result.weight:
            result = f
        if stop_at is not None and f.ratio > stop_at and f.at_limit >= FLOOR_S:
            break
    assert result is not None
    return result

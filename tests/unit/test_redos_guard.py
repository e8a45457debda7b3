"""No input stalls the server: every pattern that reads user text, and every function that runs them on
a write or a query, takes time linear in the input on hostile inputs built from the patterns.

Python's `re` holds the interpreter lock while it backtracks, so one quadratic pattern on a 32 KB
write freezes every client. The patterns are collected from the modules (support/redos.py), so a new
rule is guarded without being named here; each is timed on 8K and 32K characters of runs its own
repeats accept, and fails when the time grows more than 8 times for 4 times the input (linear ~4,
quadratic ~16). Only that ratio decides; absolute times only skip what is too small to matter.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest
from support import redos

from hindsight_desktop.core.inbox import directives
from hindsight_desktop.core.index import keyword
from hindsight_desktop.core.recall import dates as recall_dates
from hindsight_desktop.core.recall import fact_questions
from hindsight_desktop.core.redact import detectors
from hindsight_desktop.core.redact.text import redact_secrets
from hindsight_desktop.core.text import event_facts, extract_dates, overlap
from hindsight_desktop.core.text.extract import extract_entities
from hindsight_desktop.core.text.extract_facts import fact_key
from hindsight_desktop.core.write import gate_rules

SITES = redos.collect()
# detect-secrets' patterns are not ours to rewrite (several are cubic in a run of blanks after their
# keyword); they are guarded as detectors.find runs them, on squeezed blanks in bounded windows.
DETECTOR_CASES = list(dict.fromkeys(c for d in detectors.detectors() for c in redos.headed(d.pattern)[:4]))
REF = datetime(2026, 3, 4, 12, tzinfo=UTC)
QUERY_SIZES = (256, 1024, 1000, 4000)  # a query holds at most 4,000 characters

# What a write runs on its text, end to end (patterns made inside functions are covered here).
WRITE_FUNCTIONS: dict[str, Callable[[str], object]] = {
    "redact_secrets": redact_secrets,
    "redact_secrets(personal)": lambda t: redact_secrets(t, personal=True),
    "extract_entities": lambda t: extract_entities(t, REF),
    "find_dates": lambda t: extract_dates.find_dates(t, REF.date()),
    "find_times": extract_dates.find_times,
    "fact_key": fact_key,
    "event_fact": event_facts.event_fact,
    "read_cues": gate_rules.read_cues,
    "inbox.classify": directives.classify,
    "density+emotion": lambda t: (gate_rules.density(t, 3, False), gate_rules.emotion(t)),
    "overlap.same_statement": lambda t: overlap.same_statement(t, t),
    "keyword.index_body": lambda t: keyword.index_body(t, []),
    "detectors.find": lambda t: list(detectors.find(t)),
}
# What a search runs on its question before touching the store.
QUERY_FUNCTIONS: dict[str, Callable[[str], object]] = {
    "question_periods": lambda t: recall_dates.question_periods(recall_dates.question_dates(t, REF)),
    "without_dates": lambda t: recall_dates.without_dates(t, recall_dates.question_dates(t, REF)),
    "asked_facts": fact_questions.asked_facts,
    "fact_questions._spans": lambda t: fact_questions._spans(t.lower()),
    "keyword.query_terms": keyword.query_terms,
    "extract_entities(query)": lambda t: extract_entities(t, REF),
}
# The end-to-end functions get the fixed family only (they run every pattern, so each case is dear).
E2E_CASES = [(u, redos.PLAIN) for u in redos.FIXED_UNITS] + redos.WRAPPED + redos.DENSE


def _report(f: redos.Finding) -> str:
    return f"super-linear: {f.describe()}"


@pytest.mark.parametrize("site", SITES, ids=[s.name for s in SITES])
def test_pattern_is_linear_on_hostile_input(site: redos.Site) -> None:
    found = redos.worst(site.name, redos.finditer_all(site.pattern), redos.inputs(site.pattern))
    assert not found.flagged, _report(found)


@pytest.mark.parametrize("name", list(WRITE_FUNCTIONS))
def test_write_step_is_linear_on_hostile_input(name: str) -> None:
    cases = E2E_CASES + DETECTOR_CASES if name.startswith(("detectors", "redact")) else E2E_CASES
    found = redos.worst(name, WRITE_FUNCTIONS[name], cases)
    assert not found.flagged, _report(found)


@pytest.mark.parametrize("name", list(QUERY_FUNCTIONS))
def test_query_step_is_linear_on_hostile_input(name: str) -> None:
    found = redos.worst(name, QUERY_FUNCTIONS[name], E2E_CASES, sizes=QUERY_SIZES)
    assert not found.flagged, _report(found)


# ---- the guard itself can fail -------------------------------------------------------------------


def test_guard_flags_a_quadratic_pattern_from_its_own_characters() -> None:
    # "q%" is in no fixed list: the run has to come from the pattern's own repeat.
    pattern = re.compile(r"\b(?:q[q%]*\s)+Z")
    found = redos.worst("probe", redos.finditer_all(pattern), redos.inputs(pattern))
    assert found.flagged and found.unit == "q%", found.describe()


def test_guard_passes_a_linear_pattern() -> None:
    pattern = re.compile(r"(?<!\s)\s+x")  # one attempt per run of blanks
    found = redos.worst("probe", redos.finditer_all(pattern), redos.inputs(pattern))
    assert not found.flagged, found.describe()


@dataclass
class _Held:
    rule: re.Pattern[str]


def test_collector_reaches_patterns_inside_tables() -> None:
    inner = re.compile("inner-probe")
    found: dict[tuple[str, int], redos.Site] = {}
    redos._walk({"k": [(1, _Held(inner))]}, "probe", found, depth=5)
    assert [s.name for s in found.values()] == ["probe['k'][0][1].rule"]
    assert len(SITES) > 150  # every module's tables, not just a few globals

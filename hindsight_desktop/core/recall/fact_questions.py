"""Questions about a single-valued fact, answered by the statement that currently holds it.

"我现在的上司是谁？" shares no word with "新领导叫周敏…", and the model ranks other people's news above it;
but the write path already knows that memory sets the person's manager (its fact key, see
extract_facts.py). So a question that asks for one of the person's own attributes brings in the
active statement of that attribute, and only that one: a superseded statement is never brought this
way. The cues are a few nouns per attribute, in English and Chinese; a question about someone named
("Where does Tom live?") is left to the other signals, since names are not keyed reliably.

>>> asked_facts("我现在的上司是谁？")
[('user', 'manager')]
>>> asked_facts("What does my wife do for a living?")
[('spouse', 'job')]
>>> asked_facts("年度体检到底是哪天？")
[('user', 'when:')]
"""

from __future__ import annotations

import re
from bisect import bisect_right

import apsw

from hindsight_desktop.core.store import memories
from hindsight_desktop.core.text.relations import ZH_RELATIONS, relation_alternation

# attribute -> a question cue in English or Chinese (matched case-insensitively).
_CUES: dict[str, str] = {
    "residence": r"\bwhere (?:do|does) (?:I|she|he|they) live\b|\baddress\b|住(?:在)?哪|住址|家(?:住)?在哪",
    "employer": r"\bwhere (?:do|does) (?:I|she|he) work\b|\bwhich company\b|\bemployer\b"
    r"|在哪(?:家|个)?(?:公司)?(?:工作|上班)|哪家公司|什么公司|(?:工作|上班)的公司|哪个单位",
    "job": r"\bdo for (?:a living|work)\b|\bmy job\b|\boccupation\b"
    r"|做什么工作|什么工作|职业|干什么的|做什么的",
    "manager": r"\b(?:manager|boss|supervisor)\b|上司|领导|老板|主管|直属领导",
    "phone": r"\b(?:phone|mobile|cell)(?: number)?\b|手机号|电话",
    "plate": r"\b(?:license|licence|number) plate\b|车牌",
    "car": r"\bwhat car\b|\bmy car\b|什么车|开的车|哪款车",
    "dentist": r"\bdentist\b|牙医|牙科",
    "doctor": r"\b(?:doctor|gp|physician)\b|(?<!牙)(?<!心理)医生|大夫",
    "therapist": r"\b(?:therapist|counsel+or)\b|心理医生|咨询师",
    "weight": r"\bhow much do I weigh\b|\bmy weight\b|体重|多重",
    "height": r"\bhow tall\b|\bmy height\b|身高|多高",
    "school": r"\bwhich school\b|\bwhat school\b|哪(?:所|个|家)?(?:小学|中学|学校|幼儿园|大学)|在哪(?:上学|读书)",
    "email": r"\be-?mail\b|邮箱",
    "birthday": r"\bbirthday\b|生日",
    "codename": r"\bcode ?name\b|代号",
}
_CUE_PATTERNS = {attr: re.compile(cue, re.I) for attr, cue in _CUES.items()}
# "When is …?" asks for an event's time; the event's key is matched by its head word (event_facts.py).
_WHEN = re.compile(r"\bwhen\b|\bwhat (?:day|date|time)\b|哪天|哪一天|什么时候|几号|几点|啥时候|哪个?时间|日期", re.I)
# Whose attribute: the person's own, or a family member's named by relation (the Chinese words are the
# write path's own, relations.py, so a question finds the subject its facts were stored under).
_OWNERS = re.compile(
    r"\bmy (?P<en>wife|husband|partner|girlfriend|boyfriend|son|daughter|father|dad|mother|mom|mum)\b"
    rf"|我(?:的)?(?P<zh>{relation_alternation()})",
    re.I,
)
_OWNER_KEYS = {
    "wife": "spouse",
    "husband": "spouse",
    "partner": "partner",
    "girlfriend": "partner",
    "boyfriend": "partner",
    "son": "son",
    "daughter": "daughter",
    "father": "father",
    "dad": "father",
    "mother": "mother",
    "mom": "mother",
    "mum": "mother",
}
_FIRST_PERSON = re.compile(r"\b(?:I|my|me)\b|我", re.I)
# A Chinese question that names nobody else (no 他/她/你, no one's name or relation) asks about the writer.
_ZH_UNNAMED = re.compile("^(?!.*(?:他|她|你|它|[A-Za-z]{2,}))[\u4e00-\u9fff0-9，,？?！!。 ]+$")
# More than this many statements for one question is a list, not a fact: leave it to the other signals.
MAX_STATEMENTS = 3
# The longest event head a question is searched for: English words, Chinese characters.
LONGEST_HEAD = 40
LONGEST_CJK_HEAD = 10


def asked_facts(question: str, names_someone: bool = False) -> list[tuple[str, str]]:
    """(subject, attribute) pairs a question asks about; "when:" stands for any event's time.

    `names_someone`: the question names a person (found by the entity extractor), so a Chinese
    question without "我" is about them, not the writer."""
    owner = _OWNERS.search(question)
    if owner:
        subject = _OWNER_KEYS[owner.group("en").lower()] if owner.group("en") else ZH_RELATIONS[owner.group("zh")]
    elif _FIRST_PERSON.search(question) or (not names_someone and _ZH_UNNAMED.match(question)):
        subject = "user"  # a Chinese note to oneself drops the "I": "年度体检是哪天？"
    else:
        return []
    asked = [(subject, attr) for attr, cue in _CUE_PATTERNS.items() if cue.search(question)]
    if _WHEN.search(question):
        asked.append((subject, "when:"))
    return asked


def current_statements(db: apsw.Connection, question: str, viewer: str | None, names_someone: bool = False) -> set[int]:
    """Row ids of the active memories that state what the question asks (at most a few)."""
    found: set[int] = set()
    lowered = question.lower()
    for subject, attr in asked_facts(question, names_someone):
        if attr == "when:":
            # The scheduled events of this subject whose head word the question names, looked up by
            # the question's own spans: a store may hold thousands of events (10k at 100k memories).
            keys = sorted(f"{subject}|when:{head}" for head in _spans(lowered))
            rows = memories.stating_any(db, keys, viewer)
            hits = {rowid for rowid, key in rows if _names_event(lowered, key.split("|when:", 1)[1])}
        else:
            hits = memories.stating(db, f"{subject}|{attr}", viewer)
        if len(hits) <= MAX_STATEMENTS:
            found |= hits
    return found


def _spans(question: str) -> set[str]:
    """Every part of the question an event's head could be (`_names_event`): runs of whole words up to
    LONGEST_HEAD characters, and for text with non-ASCII characters (Chinese has no spaces) every
    substring of up to LONGEST_CJK_HEAD characters that holds one."""
    edges = [m.start() for m in re.finditer(r"\b", question)]
    # Only the edges within reach of each start (a long question has thousands of them).
    spans = {question[a:b] for i, a in enumerate(edges) for b in edges[i + 1 : bisect_right(edges, a + LONGEST_HEAD)]}
    if question.isascii():
        return spans
    for start in range(len(question)):
        for end in range(start + 1, min(len(question), start + LONGEST_CJK_HEAD) + 1):
            part = question[start:end]
            if not part.isascii():
                spans.add(part)
    return spans


def _names_event(question: str, head: str) -> bool:
    if not head:
        return False
    if head.isascii():
        return re.search(rf"\b{re.escape(head)}\b", question) is not None
    return head in question

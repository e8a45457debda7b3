"""When a planned event happens, as a single-valued fact: a moved appointment supersedes its old time.

"公司年度体检约在11月12日上午" and later "体检改期了，从11月12日改到11月19日上午八点" both set the time of
the check-up; without a shared fact key the newer one cannot replace the older, and recall answers
"when is it?" with the outdated day. The key is the event's head word (体检, "dentist"), so the two
statements match however the event was first described ("公司年度体检" / "体检"). Only sentences that
put the event at a time with a scheduling verb count: "体检做完了" is not a time.

>>> event_fact("公司年度体检约在11月12日上午，在美年大健康五道口分院，要空腹。")
('user', 'when:体检', '11月12日上午')
>>> event_fact("体检改期了，从11月12日改到11月19日上午八点，地点不变。")
('user', 'when:体检', '11月19日上午八点')
>>> event_fact("My dentist appointment got moved to Friday at 3pm.")
('user', 'when:dentist', 'friday at 3pm')
"""

from __future__ import annotations

import re

from hindsight_desktop.core.text import segment
from hindsight_desktop.core.text.relations import ZH_RELATIONS, relation_alternation

CJK = "\u4e00-\u9fff"
# Verbs that put an event at a time, first or again. The event comes before, the time after.
_ZH_VERB = (
    "(?:改期到|改到|改在|改成|推迟到|推到|延期到|延后到|提前到|挪到|调到|约在|约到|定在|定到|安排在|订在|预约在|预约了)"
)
_ZH_EVENT = re.compile(
    f"^(?P<x>[{CJK}A-Za-z]{{2,12}}?)(?:的时间|时间)?(?:改期了|也|又|被|已经|已)?[，,]?"
    f"(?:从[^，,。]+?)?{_ZH_VERB}(?P<v>[^，,。；;！!？?]+)"
)
# "…改期了，从A改到B": the event names itself in the first clause only.
_ZH_MOVED = re.compile(
    f"^(?P<x>[{CJK}A-Za-z]{{2,12}}?)(?:的时间|时间)?(?:改期|改时间|延期|推迟|提前)了?[，,]"
    f"(?:[^，,。]*?){_ZH_VERB}(?P<v>[^，,。；;！!？?]+)"
)
_ZH_TIME = re.compile(
    "[月日号点]|周[一二三四五六日天末]|星期|礼拜|明天|后天|下周|上午|下午|晚上|早上|中午|月底|月初|年底"
)
# Words around an event's name that do not tell one event from another.
_ZH_GENERIC = {
    "预约",
    "时间",
    "日期",
    "安排",
    "计划",
    "的",
    "那个",
    "这个",
    "我",
    "我们",
    "公司",
    "年度",
    "下次",
    "这次",
}
# A family member's event ("我妈的体检…") is theirs, keyed as their facts are (relations.py).
_OWNER = re.compile("^我?的?(?P<rel>" + relation_alternation() + ")的?")
_EN_NOUN = r"(?:appointment|meeting|interview|check-?up|exam|surgery|flight|reservation|booking|class|lesson|session)"
_EN_EVENT = re.compile(
    r"^(?:[Mm]y|[Oo]ur|[Tt]he)\s+(?P<x>(?:[a-z]+\s+){0,2}?" + _EN_NOUN + r")(?:\s+with\s+[A-Z][a-z]+)?"
    r"\s+(?:is|was|has been|got|'s|is now|has)?\s*(?:been\s+)?"
    r"(?:moved|rescheduled|pushed(?:\s+back)?|postponed|brought forward|changed|set|booked|scheduled|now)?\s*"
    r"(?:to|for|on|at)\s+(?P<v>[^.;!?]+)"
)
_EN_GENERIC = {"appointment", "booking", "reservation", "new", "next", "annual", "yearly"}


def event_fact(sentence: str) -> tuple[str, str, str] | None:
    """(subject, "when:<event>", time) for a sentence that schedules or moves an event, else None."""
    text = sentence.strip()
    if re.search(f"[{CJK}]", text):
        return _chinese(re.sub(r"\s+", "", text))
    return _english(" ".join(text.split()))


def _chinese(text: str) -> tuple[str, str, str] | None:
    m = _ZH_MOVED.match(text) or _ZH_EVENT.match(text)
    if not m or re.search("不|没|别", m.group(0)):  # "体检不改期了" keeps the old time
        return None
    event = m.group("x")
    subject = "user"
    owner = _OWNER.match(event)
    if owner:
        subject, event = ZH_RELATIONS[owner.group("rel")], event[owner.end() :]
    named = [w for w in segment.words(event) if w not in _ZH_GENERIC]
    value = m.group("v").strip().removesuffix("了")
    if not named or not _ZH_TIME.search(value):  # "会议室定在三楼" is a place
        return None
    # The head word names the event; a one-character head ("会" of 年会) is too vague alone.
    head = named[-1] if len(named[-1]) > 1 or len(named) == 1 else "".join(named[-2:])
    return subject, f"when:{head}", value


def _english(text: str) -> tuple[str, str, str] | None:
    m = _EN_EVENT.match(text)
    if not m:
        return None
    words = [w for w in m.group("x").lower().split() if w not in _EN_GENERIC]
    value = m.group("v").strip().lower()
    if not value or not re.search(r"\d|day\b|tomorrow|week|month|morning|afternoon|evening|noon", value):
        return None
    return "user", f"when:{' '.join(words) or m.group('x').lower()}", value

"""Whether a statement tells of something done or something planned, from its own words and dates.

The write gate reads "国庆…去…" or "next week…will…" as a plan. A time word alone does not say which
way it points: "去年国庆我们全家去了云南大理" is a holiday taken, "明年国庆我们打算去云南" one planned.
What does:

- time words that point back (去年, 上个月, 昨天, last year, yesterday, two weeks ago) or forward (明年,
  下周, 明天, next week, tomorrow);
- without those, a planning verb (打算, 准备, 计划, 要去, 改到; plan to, going to, will) points forward,
  and in Chinese a completed action (去了, 吃过, 已经, 刚才) points back (an English past verb does not:
  "my flight got moved to Thursday" is still ahead);
- without either, when the write's time is known, the dates the text names: one that ended before that
  day points back, one that starts after it points forward ("五一我们打算去西安" written in December
  plans next May: the verb outweighs the date, which reads as this year's).

Both ways at once ("去年就订好了明年的机票") decides nothing: `orientation` returns None and the
gate's own reading stands.

>>> orientation("去年国庆我们全家去了云南大理")
'past'
>>> orientation("明年国庆我们打算去云南")
'future'
>>> orientation("Last summer we drove to Lisbon.")
'past'
"""

from __future__ import annotations

import re
from datetime import date
from typing import Literal

from hindsight_desktop.core.text.extract_dates import find_dates, period

Orientation = Literal["past", "future"]
PAST: Orientation = "past"
FUTURE: Orientation = "future"

# A count starts where no digit is before it, so a long run of digits is scanned once.
_ZH_NUM = "一两二三四五六七八九十几半0-9"
_ZH_BACK = re.compile(
    "去年|前年|上个?月|上个?星期|上周|上礼拜|前天|昨天|昨晚|昨日|前几天|刚才|刚刚|那时候|那时|当时|小时候|上次|上回"
    f"|(?<![{_ZH_NUM}])[{_ZH_NUM}]{{1,4}}个?(?:年|月|星期|周|礼拜|天)(?:以前|之前|前)"
)
_ZH_FORWARD = re.compile(
    "明年|后年|下个?月|下个?星期|下周|下礼拜|明天|后天|明晚|明早|下次|下回|将来|未来|过几天|改天|到时候"
    f"|(?<![{_ZH_NUM}])[{_ZH_NUM}]{{1,4}}个?(?:年|月|星期|周|礼拜|天)(?:以后|之后|后)"
)
_ZH_PLAN = re.compile("打算|准备|计划|想要去|想去|要去|将要|将会|安排|预约|预订|订了.{0,6}(?:票|酒店|房)")
# Verbs that set or move a planned event: "改到了周四" is a plan moved, whatever its 了 says.
_ZH_SET = re.compile("改期|改到|改在|改成|推迟|推到|延期|延后|提前到|挪到|调到|约在|约到|定在|定到|订在|约好|订好")
# A completed action: a verb with 了 or 过 after it, or an adverb that says it is done.
_ZH_DONE = re.compile(
    "已经|曾经|刚[才刚]?(?:去|回|到|从)"
    "|(?:去|来|到|回|买|吃|喝|玩|住|看|见|拍|逛|爬|游|坐|做|办|搬|换|考|拿|跑|生|花|参加|旅游|旅行|出发|回来|结束|完)[了过]"
)
# "要去了" / "快到了": about to happen, not done.
_ZH_ABOUT_TO = re.compile("(?:要|快|就要|马上)[\u4e00-\u9fff]{0,3}了")

_EN_BACK = re.compile(
    r"\b(?:last\s+(?:year|month|week|weekend|night|summer|winter|spring|autumn|fall|time|christmas|monday|tuesday"
    r"|wednesday|thursday|friday|saturday|sunday)|yesterday|the\s+other\s+day|(?:a|an|one|two|three|four|five"
    r"|six|seven|eight|nine|ten|few|couple\s+of|\d+)\s+(?:days?|weeks?|months?|years?)\s+ago|back\s+in\s+\d{4})\b",
    re.IGNORECASE,
)
_EN_FORWARD = re.compile(
    r"\b(?:next\s+(?:year|month|week|weekend|summer|winter|spring|autumn|fall|time|christmas|monday|tuesday"
    r"|wednesday|thursday|friday|saturday|sunday)|tomorrow|tonight|in\s+(?:a|an|one|two|three|four|five|six"
    r"|seven|eight|nine|ten|few|couple\s+of|\d+)\s+(?:days?|weeks?|months?|years?)|this\s+coming\s+\w+)\b",
    re.IGNORECASE,
)
_EN_PLAN = re.compile(
    r"\b(?:will|shall|gonna|going\s+to|plan(?:s|ning)?\s+to|intend\s+to|hope\s+to|about\s+to)\b|'ll\b",
    re.IGNORECASE,
)


def _by_dates(text: str, written: date) -> tuple[bool, bool]:
    """(a named date ended before the write's day, one starts after it)."""
    back = forward = False
    for found in find_dates(text, written):
        first, after_last = period(found)
        back = back or after_last <= written
        forward = forward or first > written
    return back, forward


def orientation(text: str, written: date | None = None) -> Orientation | None:
    """PAST, FUTURE, or None when the text says neither or both. `written`: the day of the write,
    against which calendar dates without a word of their own ("国庆", "3月5日") are placed."""
    han = re.search("[\u4e00-\u9fff]", text) is not None
    back = (_ZH_BACK if han else _EN_BACK).search(text) is not None
    forward = (_ZH_FORWARD if han else _EN_FORWARD).search(text) is not None
    if back or forward:
        return None if back and forward else PAST if back else FUTURE
    if han and _ZH_SET.search(text):
        return FUTURE
    if han:
        about_to = _ZH_ABOUT_TO.search(text) is not None  # its 了 is no sign of something done
        planned = about_to or _ZH_PLAN.search(text) is not None
        done = not about_to and _ZH_DONE.search(text) is not None
    else:
        # An English past verb tells nothing: "my flight got moved to Thursday", "booked a table for Friday".
        planned, done = _EN_PLAN.search(text) is not None, False
    if planned != done:
        return FUTURE if planned else PAST
    if planned or written is None:
        return None
    # "国庆去大理玩" says nothing itself: written in December it tells of October, in September it plans it.
    back, forward = _by_dates(text, written)
    return None if back == forward else PAST if back else FUTURE

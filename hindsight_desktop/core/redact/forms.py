"""Secrets told in words, in English or Chinese: a keyword of a family (password, PIN, CVV, one-time
code, token), maybe a few words, a connector, then the value.

    the password I use everywhere is hunter2!      my bank PIN is 4821       CVV: 123
    我的银行卡密码是：hunter2      wifi密码 Xk9mq2zz      验证码为 482913      PIN码就是 9527

A keyword is found by a regex of literals; what follows it is read by a small parser over a bounded
window (WINDOW characters), so the cost per keyword is bounded and a whole scan is linear:
1. up to MAX_WORDS filler words (English) or MAX_HAN filler characters (Chinese) are tried, fewest
   first; a filler never starts with a word that makes the keyword a compound noun ("password reset",
   "密码学") and never crosses a clause ("and", "because", punctuation);
2. a connector: a label (":", "=", "=>"), a spoken one ("is", "was", "changed to"), a Chinese one
   (是, 就是, 叫, 为, 改成...), or only a space (after a Chinese keyword, even nothing);
3. the family's value check, stricter the weaker the connector: after a plain space or filler words
   the value must look like a secret (a digit or a symbol), and each family has its own shape (a PIN
   is 4-12 digits, a CVV 3-4).
The rules match on the normalised view (normalise.py), so full-width forms and hidden characters are
already undone here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from hindsight_desktop.core.redact.own_rules import (
    LABEL_PROSE_WORDS,
    PASSWORD_KEYWORDS,
    PROSE_WORDS,
    TOKEN_KEYWORDS,
    Rule,
    Span,
    password_span,
    plainly_token,
)

WINDOW = 240
MAX_WORDS = 8
MAX_HAN = 6

_CONNECT = re.compile(
    r"[\"'”’]?[ \t]*+(?:(?P<label>:=|=>|->|→|[:=])|(?P<zh>(?:就是|也是|都是|还是|還是|便是|即是|是|叫做|叫|为|為"
    r"|设为|設為|设成|設成|设置为|設置為|设置成|設置成|设定为|設定為|设定成|設定成|改成|改为|改為|换成|換成|换为|換為|变成|變成"
    r"|は|が|는|은)了?[ \t]*+:?))\s*+"
    r"|[ \t]++(?P<spoken>(?:(?:is|was|are|were|has[ \t]++been|have[ \t]++been|got|gets)[ \t]++)?"
    r"(?:changed|set|reset|updated|switched)[ \t]++to|(?:is|was|are|were|becomes|became)(?:[ \t]++(?:now|still"
    r"|always|just|simply|actually|currently))?)\b[ \t]*+:?[ \t]*+"
    r"|(?P<contraction>['’]s[ \t]++)"  # "my password's hunter2"
    r"|(?P<space>[ \t]*+)",
    re.I,
)
_WORD = re.compile(r"(?<![ \t])[ \t]++(?P<w>[A-Za-z][\w.@'’-]*+)")
_HAN = re.compile(r"[\u4e00-\u9fff]")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# A filler word that makes the keyword part of a compound noun or a clause of its own.
_COMPOUND = _words("""reset resets manager managers policy policies hint hints field fields length strength rule rules
    requirement requirements change changes expiry expiration prompt prompts generator box screen page
    form dialog protection protected recovery history complexity file files count counts header headers
    pad layout hole holes diagram mapping limit limits bucket rotation entry input attempts attempt lock
    locked manager's and but so or because then while if when after before since until though although""")
_HAN_COMPOUND = (
    "学",
    "學",
    "箱",
    "锁",
    "鎖",
    "器",
    "本",
    "机",
    "機",
    "盘",
    "盤",
    "术",
    "術",
    "管理",
    "重置",
    "错误",
    "錯誤",
    "强度",
    "強度",
    "长度",
    "長度",
    "提示",
    "规则",
    "規則",
    "策略",
    "过期",
    "過期",
    "保护",
    "保護",
    "找回",
    "忘",
    "输入",
    "輸入",
    "框",
    "栏",
    "欄",
    "位数",
    "位數",
)
_NAMING = _words("for to of on at")
_HAN_UNITS = "位个個年月日号號次点點分秒元块塊岁歲天周週"
_UNIT_WORDS = _words("""characters character chars char digits digit letters letter symbols bits bit bytes long times
    attempts tries days hours minutes seconds weeks months years percent people users""")
_ASCII_VALUE = re.compile(r"[\x21-\x5a\x5c\x5e-\x7e]++(?:[ ][\x21-\x5a\x5c\x5e-\x7e]++)*+")
_DIGITS = re.compile(r"[\"'“‘]?(?<!\d)(\d++)[\"'”’]?(?![\w-])")
_CODE = re.compile(r"[\"'“‘]?(?<![A-Za-z0-9])([A-Za-z0-9]++(?:-[A-Za-z0-9]++){0,3})[\"'”’]?(?![\w-])")
_TOKEN_VALUE = re.compile(r"[\"'“]?([^\s\[\"'”&<>,;]++)")
_TRAILING = ".,;:!?)]}'\"，。；！？、）"
_HAN_TRAILING = ",;:)]}'\"，。；、）"


class Connector(NamedTuple):
    kind: str  # "label", "spoken", "space" or "none"
    end: int
    sep: str = ""  # the label itself (":", "=", 是...)


# (text, value start, limit, connector, weak: after words that do not name what it opens) -> the span
ValueCheck = Callable[[str, int, int, Connector, bool], Span | None]


def _line_end(text: str, start: int, limit: int) -> int:
    stop = text.find("\n", start, limit)
    return limit if stop < 0 else stop


def _unit_follows(text: str, end: int, limit: int) -> bool:
    """A number followed by a unit is a count ("12 characters", "6位"), not a secret."""
    rest = text[end : min(limit, end + 20)]
    if rest[:1] and rest[0] in _HAN_UNITS:
        return True
    word = rest.lstrip(" \t").split(None, 1)
    return bool(word) and rest[:1] in " \t" and word[0].lower().rstrip(".,;") in _UNIT_WORDS


def _stand_in(value: str) -> bool:
    """What stands for a secret without being one: "$DB_PASS", "${API_KEY}", "<password>", "{{secret}}",
    "********", "(see" (the vault)."""
    return value[:1] in ("$", "<", "(", "{") or (bool(value) and set(value) <= set("*•●x…."))


def password_value(text: str, start: int, limit: int, conn: Connector, weak: bool) -> Span | None:
    value = text[start : _line_end(text, start, limit)]
    if not value or value[0].isspace() or value.startswith("["):
        return None
    sep = conn.sep or {"spoken": "is"}.get(conn.kind, "")
    first = value.split(None, 1)[0].rstrip(_TRAILING)
    if _stand_in(first):
        return None
    # After a plain space or words in between, only a value that plainly is one ("hunter2", "Xk9#mq2!").
    if (
        (weak or conn.kind in ("space", "none"))
        and value[0] not in "\"'“‘"
        and not (plainly_token(first) or (first.isdigit() and len(first) >= 4))
    ):
        return None
    if first.isdigit() and _unit_follows(text, start + len(first), limit):
        return None
    span = password_span(value, sep)
    return None if span is None else (start + span[0], start + span[1])


def han_value(text: str, start: int, limit: int, conn: Connector, weak: bool) -> Span | None:
    """The ASCII run after a Chinese keyword (so 密码是多少, a question, is left alone)."""
    m = _ASCII_VALUE.match(text, start, _line_end(text, start, limit))
    if m is None:
        return None
    # Chinese ends a sentence with full-width marks, so an ASCII "!" or "?" is the password's own.
    value = m.group().rstrip(_HAN_TRAILING)
    first = value.split(" ", 1)[0].rstrip(_HAN_TRAILING)
    if len(first) < 3 or value.startswith("[REDACTED"):
        return None
    if first.isdigit() and _unit_follows(text, start + len(first), limit):
        return None
    weak = weak or conn.kind in ("space", "none")
    if weak and not (plainly_token(first) or (first.isdigit() and len(first) >= 4)):
        return None
    if weak or any(not ch.isalpha() for ch in first):
        return start, start + len(first)
    if first.lower() in LABEL_PROSE_WORDS:
        return None
    return start, start + len(value)


def _digits(low: int, high: int) -> ValueCheck:
    def check(text: str, start: int, limit: int, conn: Connector, weak: bool) -> Span | None:
        m = _DIGITS.match(text, start, limit)
        if m is None or not low <= len(m.group(1)) <= high or _unit_follows(text, m.end(1), limit):
            return None
        return m.span(1)

    return check


def code_value(text: str, start: int, limit: int, conn: Connector, weak: bool) -> Span | None:
    """A one-time or backup code: 4-10 digits, or letters and digits in up to four dash groups."""
    m = _CODE.match(text, start, limit)
    if m is None:
        return None
    code = m.group(1)
    compact = code.replace("-", "")
    if compact.isdigit():
        ok = 4 <= len(compact) <= 10 and not _unit_follows(text, m.end(1), limit)
    else:
        # Short codes ("kt31", a share's extraction code) only after a label or "is".
        shortest = 6 if weak or conn.kind in ("space", "none") else 4
        ok = shortest <= len(compact) <= 24 and any(c.isdigit() for c in compact) and compact.lower() not in PROSE_WORDS
    return m.span(1) if ok else None


def token_value(text: str, start: int, limit: int, conn: Connector, weak: bool) -> Span | None:
    """A labelled token; after filler words ("the token for staging is ...") only letters mixed with
    digits, 8 or more ("the token limit is 4096" is a count)."""
    m = _TOKEN_VALUE.match(text, start, limit)
    if m is None or conn.kind in ("space", "none"):
        return None
    value = m.group(1).rstrip(_TRAILING)
    if len(value) < 8 or value.startswith("[REDACTED") or _stand_in(value):
        return None
    has_digit = any(ch.isdigit() for ch in value)
    has_alpha = any(ch.isalpha() for ch in value)
    if not (has_digit and has_alpha) and not (not weak and conn.kind == "label" and len(value) >= 20):
        return None
    return m.start(1), m.start(1) + len(value)


class Family(NamedTuple):
    kind: str
    keyword: re.Pattern[str]
    value: ValueCheck
    needs: tuple[str, ...]  # lower-case pieces of which every keyword holds one (a cheap test first)
    han: bool = False  # Chinese keywords: Chinese filler, and the value may follow with no space
    bare: bool = False  # a plain space is a connector for this keyword (an acronym such as CVV)


_EN = r"(?<![A-Za-z0-9])(?:{})s?(?![A-Za-z0-9])"
FAMILIES: tuple[Family, ...] = (
    Family(
        "password",
        re.compile(_EN.format(PASSWORD_KEYWORDS + r"|pw(?=\s+(?:is|was)\b)"), re.I),
        password_value,
        ("pass", "pw"),
    ),
    # "key" is a weak word: after these only a value that plainly is a secret counts.
    Family(
        "password",
        re.compile(_EN.format(r"passkey|(?:wifi|wi-fi|wlan|wpa2?|wireless|network|router)\s+key"), re.I),
        lambda t, s, lim, c, w: password_value(t, s, lim, c, True),
        ("key",),
    ),
    # The word for password in other languages people write notes in, with the connectors above.
    Family(
        "password",
        re.compile(
            r"(?<![^\W\d_])(?:пароль|passwort|kennwort|mot\s+de\s+passe|contraseña|contrasena"
            r"|senha|wachtwoord|hasło|haslo|lösenord|losenord|adgangskode|salasana|şifre"
            r"|mật\s+khẩu)(?![^\W\d_])",
            re.I,
        ),
        password_value,
        (
            "пароль",
            "passw",
            "kennw",
            "passe",
            "contrase",
            "senha",
            "wacht",
            "has",
            "lösen",
            "losen",
            "adgang",
            "salasana",
            "şifre",
            "sifre",
            "mật",
        ),
    ),
    Family(
        "pin",
        re.compile(
            _EN.format(
                r"pin(?:[ -]?(?:code|number|no\.?|#))?|(?:door|gate|alarm|lock|safe|garage"
                r"|entry|keypad|locker|padlock|building|alarm)\s+(?:code|combination|pin)"
                r"|combination"
            ),
            re.I,
        ),
        _digits(4, 12),
        ("pin", "code", "combination"),
    ),
    Family(
        "pin",
        re.compile(_EN.format(r"PIN(?:[ -]?(?:[Cc]ode|CODE|[Nn]umber|NUMBER|[Nn]o\.?|#))?"), 0),
        _digits(4, 12),
        ("pin",),
        bare=True,
    ),
    Family(
        "cvv",
        re.compile(
            _EN.format(
                r"cvv2?|cvc2?|csc|(?:card\s+)?security\s+code|card\s+verification\s+"
                r"(?:value|code)"
            ),
            re.I,
        ),
        _digits(3, 4),
        ("cvv", "cvc", "csc", "code", "card"),
        bare=True,
    ),
    Family(
        "otp",
        re.compile(
            _EN.format(
                r"otp|totp|one[ -]time\s+(?:code|passcode|pin|password)|verification\s+code"
                r"|(?:2fa|mfa|two[ -]factor|authenticator|authentication|auth|login|sign[ -]in"
                r"|sms|security|backup|recovery)\s+codes?"
            ),
            re.I,
        ),
        code_value,
        ("otp", "one", "code"),
    ),
    Family(
        "otp",
        re.compile(_EN.format(r"OTP|TOTP|(?:2FA|MFA)(?:[ -]?(?:[Cc]ode|CODE))?"), 0),
        code_value,
        ("otp", "2fa", "mfa"),
        bare=True,
    ),
    Family(
        "api_key",
        re.compile(_EN.format(TOKEN_KEYWORDS + r"|creds?"), re.I),
        token_value,
        ("key", "token", "secret", "cred", "sig"),
    ),
    Family(
        "password",
        re.compile(r"(?:密码|密碼|口令|暗码|暗碼)(?!学|學)|パスワード|暗証番号|비밀번호|암호"),
        han_value,
        ("密码", "密碼", "口令", "暗码", "暗碼", "パスワード", "暗証番号", "비밀번호", "암호"),
        han=True,
    ),
    Family("pin", re.compile(r"(?i:pin)\s*+(?:码|碼)"), _digits(4, 12), ("码", "碼"), han=True),
    Family(
        "otp",
        re.compile(r"验证码|驗證碼|动态码|動態碼|校验码|校驗碼|提取码|提取碼|授权码|授權碼|口令码"),
        code_value,
        ("码", "碼"),
        han=True,
    ),
    Family("cvv", re.compile(r"安全码|安全碼|(?i:cvv|cvc)\s*+(?:码|碼)"), _digits(3, 4), ("码", "碼"), han=True),
    Family(
        "api_key",
        re.compile(r"(?:访问|訪問)?(?:密钥|密鑰|秘钥|秘鑰|私钥|私鑰|令牌)"),
        han_value,
        ("密钥", "密鑰", "秘钥", "秘鑰", "私钥", "私鑰", "令牌"),
        han=True,
    ),
)


def _connector(text: str, pos: int, limit: int) -> Connector | None:
    m = _CONNECT.match(text, pos, limit)
    if m is None:
        return None
    if m.group("label") is not None or m.group("zh") is not None:
        return Connector("label", m.end(), (m.group("label") or m.group("zh")).strip())
    if m.group("spoken") is not None:
        return Connector("spoken", m.end())
    # "'s" is as often possessive ("the password's length"): as weak as a plain space.
    return Connector("space" if m.end() > pos else "none", m.end())


def _next_filler(text: str, pos: int, limit: int, family: Family, first: bool) -> int | None:
    if family.han:
        ch = text[pos : pos + 1]
        if not ch or not _HAN.fullmatch(ch):
            return None
        if first and text.startswith(_HAN_COMPOUND, pos):
            return None
        return pos + 1
    m = _WORD.match(text, pos, limit)
    if m is None:
        return None
    word = m.group("w").lower().rstrip(".")
    if word in _COMPOUND or word in ("is", "was", "are", "were") or word.isdigit() or m.group("w")[-1] in ".,;:":
        return None
    if family.keyword.fullmatch(m.group("w")):
        return None  # the keyword again: its own match reads what follows
    return m.end()


def _joins(family: Family, conn: Connector, fillers: int) -> bool:
    """Whether `conn` may join this family's keyword to a value. A plain space does only with nothing
    in between, and only for passwords, acronyms and Chinese keywords; no space at all only in Chinese."""
    if conn.kind in ("label", "spoken"):
        return True
    if fillers > 0:
        return False
    return family.han or (conn.kind == "space" and (family.bare or family.kind == "password"))


def find_value(family: Family, text: str, keyword_end: int) -> Span | None:
    """The secret after a keyword that ends at `keyword_end`, by the grammar in the module's docstring."""
    limit = min(len(text), keyword_end + WINDOW)
    pos = keyword_end
    if family.han and text.startswith(_HAN_COMPOUND, pos):
        return None
    weak = False
    for fillers in range(MAX_HAN + 1 if family.han else MAX_WORDS + 1):
        conn = _connector(text, pos, limit)
        if conn is not None and _joins(family, conn, fillers):
            span = family.value(text, conn.end, limit, conn, weak)
            if span is not None:
                return span
        nxt = _next_filler(text, pos, limit, family, fillers == 0)
        if nxt is None:
            return None
        # "password for the backup disk is ..." names what the password opens: as strong as no filler.
        # Any other words ("the password I use everywhere is ...") ask for a value that plainly is one.
        if fillers == 0:
            weak = family.han or text[pos:nxt].strip().lower() not in _NAMING
        pos = nxt
    return None


def _picker(family: Family) -> Callable[[re.Match[str]], Span | None]:
    return lambda m: find_value(family, m.string, m.end())


RULES: tuple[Rule, ...] = tuple(Rule(f.kind, f.keyword, _picker(f), f.needs, fold=True) for f in FAMILIES)

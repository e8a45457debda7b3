"""Our own redaction rules: what detect-secrets has no pattern for, and everything that keeps a label
readable ("password: [REDACTED:password]", "postgres://admin:[REDACTED:connection_string]@db").

Each rule is a pattern plus a `pick` that returns the span to hide (or None to leave the match alone).
Every value pattern excludes "[" at its start, so a later rule never matches inside a placeholder and
redacting twice changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

Span = tuple[int, int]


class Rule(NamedTuple):
    kind: str
    pattern: re.Pattern[str]
    pick: Callable[[re.Match[str]], Span | None]
    # The rule runs only when one of these is in the text (LONG_RUN: a run of 16+ token characters):
    # most sentences hold no such thing, and a substring test costs far less than a regex scan.
    needs: tuple[str, ...] = ()
    fold: bool = False  # `needs` are looked for in the lower-cased text (for a rule that ignores case)


LONG_RUN = "\0long-run"
_LONG_RUN = re.compile(r"[A-Za-z0-9_\-+/=.:]{16,}")


def has_long_run(text: str) -> bool:
    """Whether `text` holds a run of 16+ characters that tokens are made of: every token shape needs one.
    A placeholder ("[REDACTED:connection_string]") is not one, or redacting twice could find more."""
    for m in _LONG_RUN.finditer(text):
        if not (m.group().startswith("REDACTED:") and text[m.start() - 1 : m.start()] == "["):
            return True
    return False


def applies(rule: Rule, text: str, long_run: bool, lowered: str | None = None) -> bool:
    """Whether `rule` may find anything in `text` (`lowered`: the same, lower-cased, for `fold` rules)."""
    within = (lowered if lowered is not None else text.lower()) if rule.fold else text
    return not rule.needs or any(long_run if n == LONG_RUN else n in within for n in rule.needs)


def whole(m: re.Match[str]) -> Span:
    return m.span()


def group(name: str) -> Callable[[re.Match[str]], Span | None]:
    return lambda m: m.span(name)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that start the rest of a sentence after "password is" in ordinary prose: not a password.
PROSE_WORDS = _words("""a an the my your his her our their its it this that these those i we you he she they
    too very so not no wrong right correct incorrect invalid valid weak strong long short same different
    expired changed reset required needed missing empty new old easy hard simple secure safe still also just
    really saved stored kept there here what which who where when how why written somewhere case-sensitive
    forgotten lost compromised leaked at in on for to from of with by about now being set going please see
    check use ask asked sent shared managed handled generated rotated updated unknown unchanged only always
    never usually probably something nothing anything everything none n/a tbd same as like""")
# After "password:" (a label) far fewer words mean prose: "password: correct horse battery staple" is a
# password, "password: see the vault" is not.
LABEL_PROSE_WORDS = _words("""a an the my your our its it this that same see ask asked in on at stored saved kept
    reset changed updated rotated none n/a tbd unknown unchanged required needed missing empty expired use check
    sent shared managed generated written forgotten lost still not no""")
_TRAILING_PUNCT = ".,;:!?)]}'\"，。；！？、）"
# Where a spoken password phrase ends: the end of the clause or line.
_CLAUSE_END = re.compile(r"[.,;!?](?=\s|$)|[，。；！？、\n]|\s[-–—]\s|\s\(")
MAX_PHRASE = 200


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2 == 1:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def _pick_card(m: re.Match[str]) -> Span | None:
    digits = re.sub(r"\D", "", m.group(0))
    return m.span() if 13 <= len(digits) <= 19 and _luhn_ok(digits) else None


def _tokenish(value: str) -> bool:
    """A single word that holds a digit or a symbol: "hunter2", "p@ss", not "purple"."""
    return any(not ch.isalpha() for ch in value)


def plainly_token(word: str) -> bool:
    """Letters mixed with digits or symbols, 6+ characters: "hunter2000", "Xk9#mq2!", not "2FA" or "reset"."""
    return (
        len(word) >= 6 and any(ch.isalpha() for ch in word) and any(not ch.isalpha() and ch not in "'’-" for ch in word)
    )  # "grandma's", "well-known" are words


def password_span(value: str, sep: str) -> Span | None:
    """Where the password in `value` (the rest of the line after the keyword and `sep`, "" for a plain
    space) lies: a quoted value whole; a token-like first word alone ("hunter2, remember it"); a phrase
    of plain words ("correct horse battery staple") up to the end of its clause, so no word of it is left."""
    if value[0] in "\"'“‘" and len(value) > 2:
        close = {"“": "”", "‘": "’"}.get(value[0], value[0])
        stop = value.find(close, 1)
        if stop > 1:
            return 0, stop + 1  # a quoted password is taken whole, punctuation included
    # In an assignment (env files, URLs) a final "!" or "." is part of the password, not of a sentence.
    first = value.split(None, 1)[0].rstrip(",;\"'" if sep in ("=", ":=") else _TRAILING_PUNCT)
    if not sep and not plainly_token(first):
        return None
    prose = LABEL_PROSE_WORDS if sep in (":", "：", "=", ":=", "=>") else PROSE_WORDS
    if len(first) < 3 or first.lower() in prose or "[REDACTED" in first:
        return None
    if _tokenish(first) or sep in ("=", ":=") or " " not in value:
        return 0, len(first)
    clause = _CLAUSE_END.search(value, 0, MAX_PHRASE)
    phrase = value[: clause.start() if clause else MAX_PHRASE].rstrip().rstrip(_TRAILING_PUNCT)
    cut = phrase.find("[REDACTED")
    if cut > 0:
        phrase = phrase[:cut].rstrip()
    return 0, len(phrase)


# A shell or template variable stands for the token: "$API_KEY", "${API_KEY}", "$(cat key.txt)".
_VARIABLE = re.compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*+|\{[^}\s]*+\}?|\(.*)")


def pick_assignment(m: re.Match[str]) -> Span | None:
    """A labelled token. After "is" it must look like one (a digit, or 20+ characters): "the secret is
    perseverance" is prose. After ":" or "=" a non-word of 6+ characters is enough ("MY_API_KEY=a1b2c3")."""
    value = m.group("s").rstrip(_TRAILING_PUNCT)
    if len(value) < 6 or value.startswith("[REDACTED") or _VARIABLE.fullmatch(value):
        return None
    labelled = m.group("sep").strip() in ("=", ":", ":=", "=>", "：")
    inner_capital = any(ch.isupper() for ch in value[1:]) and any(ch.islower() for ch in value)
    if any(ch.isdigit() for ch in value) or len(value) >= 20 or (labelled and (not value.isalpha() or inner_capital)):
        start = m.start("s")
        return start, start + len(value)
    return None


def _host_at(value: str) -> int:
    """Where the "@" that ends a URL's password is: the first one followed by a host (and then a port,
    a path, a query or the end), so "p@ss/w0rd@db.example.com/app" keeps "db.example.com/app"; a host
    with a dot or a port wins over a bare name ("p@ss64/x@10.0.0.5:3306": "ss64" is part of the password)."""
    first = -1
    at = value.find("@")
    while at > 0:
        host = _HOST.match(value, at + 1)
        if host is not None:
            if "." in host.group() or ":" in host.group() or host.group() == "localhost":
                return at
            first = at if first < 0 else first
        at = value.find("@", at + 1)
    return first


_HOST = re.compile(r"(?<![A-Za-z0-9.-])[A-Za-z0-9](?:[A-Za-z0-9-]*+\.)*+[A-Za-z0-9-]*+(?::\d++)?(?=[/?#]|$)")


def _pick_url_password(m: re.Match[str]) -> Span | None:
    value = m.group("s")
    at = _host_at(value)
    # "host:8080/path/@anna" is a port and a path, not a password.
    if at <= 0 or value[:at].split("/", 1)[0].isdigit() and "/" in value[:at]:
        return None
    start = m.start("s")
    return start, start + at


def _pick_aws_secret(m: re.Match[str]) -> Span | None:
    value = m.group("s")
    if re.fullmatch(r"[0-9a-fA-F]+", value) or not re.search(r"\d", value) or value.isalpha():
        return None
    return m.span("s")


# An identifier may end in the keyword: DATABASE_PASSWORD, MY_API_KEY, AWS_SECRET_ACCESS_KEY, _authToken.
_BEFORE = r"(?<![A-Za-z0-9])"
# Possessive runs of spaces: a long run before no separator costs one pass, not one per split.
_SEP = r"(?P<sep>\s*+(?::=|=>|[:=：])\s*+|\s++(?:is|was|are)\s*+:?\s*+|\s*+(?:就是|是|叫|为|為)\s*+[:：]?\s*+)"
TOKEN_KEYWORDS = (
    r"api[_ .-]?(?:key|secret|token)|apikey|access[_ .-]?(?:key|token)|secret[_ .-]?key|auth[_ .-]?token|authtoken"
    r"|refresh[_ .-]?token|bearer[_ .-]?token|session[_ .-]?(?:token|secret)|id[_ .-]?token|client[_ .-]?secret"
    r"|app[_ .-]?secret|private[_ .-]?key|account[_ .-]?key|accountkey|signing[_ .-]?key|encryption[_ .-]?key"
    r"|master[_ .-]?key|webhook[_ .-]?secret|credentials?|creds|token|secret|signature|sig|x-api-key"
)
# Short ones count only before ":" or "=" ("DB_PASS=..."): "pass the salt" is prose. PINs, CVVs and
# one-time codes have families of their own (forms.py).
PASSWORD_KEYWORDS = (
    r"password|passwd|pwd(?!\s*=\s*[/~.])|passphrase|passcode|pass\s+code|pw(?=\s*[:=])|(?<=_)pass(?=\s*[:=])"
    r"|pass(?=\s*=)"
)
# Every header detect-secrets' PrivateKeyDetector knows (RSA, EC, DSA, OPENSSH, PGP ... BLOCK, SSH2
# ENCRYPTED, PuTTY) fits these two; tests/unit/core/redact/test_redact.py checks that against its list.
# At most four words before PRIVATE KEY, so a long run of capitals costs one pass per BEGIN.
_PRIVATE_KEY_START = r"BEGIN (?:[A-Z0-9]++ ){0,4}PRIVATE KEY(?: BLOCK)?|PuTTY-User-Key-File-\d"
_PRIVATE_KEY_END = r"END (?:[A-Z0-9]++ ){0,4}PRIVATE KEY(?: BLOCK)?(?: ?-{3,5})?|Private-MAC: ?\S+"

RULES: tuple[Rule, ...] = (
    Rule(
        "private_key",
        # A block whose END line is missing is redacted to the end of the text: better too much than a leak.
        re.compile(rf"(?:-{{3,5}} ?)?(?:{_PRIVATE_KEY_START}).*?(?:{_PRIVATE_KEY_END}|\Z)", re.S),
        whole,
        ("PRIVATE KEY", "PuTTY"),
    ),
    # The scheme starts where no scheme character precedes it, and every run is possessive, so a long run
    # of "a." before "://" is read once. The password may hold "/" and "@" (see _pick_url_password).
    Rule(
        "connection_string",
        re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*+://[^\s:/@\[\]]*+:(?P<s>[^\s\[\]]++)"),
        _pick_url_password,
        ("://",),
    ),
    Rule(
        "jwt",
        re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{6,}+\.[A-Za-z0-9_-]{6,}+\.[A-Za-z0-9_-]{6,}+(?![A-Za-z0-9_-])"),
        whole,
        ("eyJ",),
    ),
    # Webhook URLs: the host stays readable, the path that is the credential goes.
    Rule(
        "api_key",
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9_/-]{20,})"),
        group("s"),
        ("hooks.slack.com",),
    ),
    Rule(
        "api_key",
        re.compile(r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/(?P<s>\d+/[A-Za-z0-9_-]{20,})"),
        group("s"),
        ("/api/webhooks/",),
    ),
    Rule(
        "api_key",
        # Prefixed tokens of services detect-secrets does not know, or knows only in an older, shorter form.
        # hsd_ is this product's own client token (mcp/auth.py: "hsd_" + 43 URL-safe characters).
        re.compile(
            r"(?<![A-Za-z0-9_-])(?:sk-[A-Za-z0-9_-]{20,}|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"
            r"|whsec_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"
            r"|gl(?:pat|dt|ft|rt|soat|cbt|ptt)-[A-Za-z0-9_-]{20,}|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36,}"
            r"|hsd_[A-Za-z0-9_-]{40,}|pypi-[A-Za-z0-9_-]{50,}|(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}"
            r"|xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}"
            r"|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{30,}|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"
            r"|dop_v1_[a-f0-9]{64}|gsk_[A-Za-z0-9]{40,}|r8_[A-Za-z0-9]{30,}|lin_api_[A-Za-z0-9]{30,}"
            r"|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|AGE-SECRET-KEY-1[A-Z0-9]{50,}|glc_[A-Za-z0-9+/]{32,}={0,2}"
            r"|ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43}"
            r"|[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40})"  # Discord bot token
            r"(?![A-Za-z0-9_-])"
        ),
        whole,
        (LONG_RUN,),
    ),
    # A Telegram bot token, also inside a URL (".../bot<token>/getMe").
    Rule("api_key", re.compile(r"(?<![0-9])\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])"), whole, (LONG_RUN,)),
    Rule(
        "api_key",
        # An AWS secret key: 40 base64 characters not long after "aws" (a pasted credentials file or a note).
        re.compile(r"(?i:aws|amazon)[^\n]{0,60}?(?<![A-Za-z0-9/+])(?P<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"),
        _pick_aws_secret,
        (LONG_RUN,),
    ),
    Rule(
        "api_key",
        re.compile(r"\b(?:[Bb]earer|Basic)\s++(?P<sep>)(?P<s>[A-Za-z0-9._~+/=-]{16,})"),
        pick_assignment,
        (LONG_RUN,),
    ),
    Rule(
        "api_key",
        re.compile(rf"{_BEFORE}(?:{TOKEN_KEYWORDS})s?[\"']?{_SEP}[\"'“]?(?P<s>[^\s\[\"'”&<>,;]++)", re.I),
        pick_assignment,
    ),
    Rule(
        "card_number",
        # Contiguous, or in 4-digit groups, or the 4-6-5 Amex layout; issuers start with 2-6. Digits after
        # letters are a tracking or order number (YT2254367782910), not a card.
        re.compile(
            r"(?<![A-Za-z\d-])(?:[2-6]\d{12,18}|"
            r"[2-6]\d{3}(?P<sep>[ -])\d{4}(?P=sep)\d{4}(?P=sep)\d{1,4}(?:(?P=sep)\d{3})?"
            r"|3\d{3}[ -]\d{6}[ -]\d{5})(?![A-Za-z\d-])"
        ),
        _pick_card,
    ),
)

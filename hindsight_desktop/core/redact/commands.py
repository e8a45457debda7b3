"""Credentials on a command line or in a shell variable, which people paste into notes as they are:

    mysql -u root -pS3cr3t        curl -u admin:S3cr3t https://...      sshpass -p 'S3cr3t' ssh host
    psql --password=S3cr3t        docker login -u anna -p S3cr3t        PGPASSWORD=S3cr3t psql ...

A table says, for each kind of command, which option carries the password and how (attached to the
option, after a space, or as the part after "user:"). The command is found by name; its options are
read over the rest of its line, at most LINE characters, so the cost per command name is bounded.
Long options that name a secret (--password=..., --api-key ...) count after any command.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hindsight_desktop.core.redact.own_rules import Rule, Span

LINE = 300
# A value as a shell reads it: quoted whole, or up to the next space. "$VAR", "<password>" and
# "{{secret}}" stand for the secret without being it.
_VALUE = r"(?P<s>'(?![$<{])[^'\n]{1,200}'|\"(?![$<{])[^\"\n]{1,200}\"|[^\s'\"$<{][^\s]{0,200}+)"
_OPTION_END = r"(?![\w-])"


def _command(names: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w./-])(?:{names})(?![\w-])")


# (command names, the option that carries the password as a regex that captures the value as "s", the
# lower-case pieces of which every name holds one)
_TABLE: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    # mysql's -p takes the password only attached (-pS3cr3t); "-p name" asks for it and names a database.
    (
        r"mysql(?:dump|admin|import|show|check|sh)?|mariadb(?:-dump|-admin)?",
        r"(?<!\S)-p" + _VALUE,
        ("mysql", "mariadb"),
    ),
    (r"sshpass", r"(?<!\S)-p[ \t]*+" + _VALUE, ("sshpass",)),
    (r"redis-cli|keydb-cli", r"(?<!\S)-a[ \t]*+" + _VALUE, ("-cli",)),
    (
        r"(?:docker|podman|buildah|skopeo|helm|oras|nerdctl)(?:[ \t]++registry)?[ \t]++login",
        r"(?<!\S)-p[ \t]++" + _VALUE,
        ("login",),
    ),
    (
        r"curl|wget|http|https|xh|httpie|ab|hey|lftp|ftp",
        r"(?<!\S)(?:-u|--user|-a|--auth|--proxy-user|-U)(?:[ \t]++|=)['\"]?[^\s:'\"]{1,100}+:" + _VALUE,
        ("-u", "-a", "--user", "--auth", "--proxy-user", "-U"),
    ),
    (
        r"smbclient|rpcclient|smbmap|net[ \t]++use",
        r"(?<!\S)(?:-U|--user)(?:[ \t]++|=)['\"]?[^\s%'\"]{1,100}+%" + _VALUE,
        ("%",),
    ),
    (r"openssl", r"(?<!\S)-pass(?:in|out)?[ \t]++pass:" + _VALUE, ("pass:",)),
)
_SECRET_OPTION = re.compile(
    r"(?<![\w-])--(?:[a-z0-9]++-)*(?:password|passwd|pass|pwd|passphrase|token|secret|api-?key|access-key"
    r"|secret-key|auth-token|client-secret|credentials?)(?:=|[ \t]++)" + _VALUE,
    re.I,
)
# PGPASSWORD=..., MYSQL_PWD=..., export REDIS_PASSWORD="...": a shell variable named for a password (tokens
# are found by their label or shape). The name starts where no name character precedes it, so a long
# name is read once.
_SHELL_VARIABLE = re.compile(r"(?<![\w$])[A-Za-z][A-Za-z0-9_]*?(?:PASSWORD|PASSWD|PASSPHRASE|_PASS|_PWD)S?=" + _VALUE)


def _unquoted(m: re.Match[str]) -> Span | None:
    start, end = m.span("s")
    value = m.group("s")
    if value[:1] in "'\"":
        start, end = start + 1, end - 1
    elif value.endswith((";", ",", ")")):
        end -= 1
    if end - start < 3 or "[REDACTED" in m.string[start:end]:
        return None
    return start, end


def _options(option: re.Pattern[str]) -> Callable[[re.Match[str]], Span | None]:
    def pick(m: re.Match[str]) -> Span | None:
        text = m.string
        stop = len(text)
        for ch in "\n|;&":
            at = text.find(ch, m.end(), m.end() + LINE)
            if at >= 0:
                stop = min(stop, at)
        found = option.search(text, m.end(), min(stop, m.end() + LINE))
        return None if found is None else _unquoted(found)

    return pick


RULES: tuple[Rule, ...] = (
    *(Rule("password", _command(names), _options(re.compile(option)), needs) for names, option, needs in _TABLE),
    Rule("password", _SECRET_OPTION, _unquoted, ("--",)),
    Rule("password", _SHELL_VARIABLE, _unquoted, ("=",)),
)

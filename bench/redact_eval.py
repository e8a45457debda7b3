"""How many secrets does redaction catch, how often does it touch ordinary text, and what does it cost?

Secrets: a held-out set generated here (not the ones in tests/unit/core/redact/test_redact.py) from a fixed
seed: made-up tokens in the shapes of 30-odd services, labelled values, spoken and multi-word passwords, Chinese
forms, key blocks and bare random tokens, each set in a sentence. A secret counts as redacted when no
run of 6 or more of its characters is left in the output.
Ordinary text: every message in tests/data/gate_*.jsonl and bench/data/zh_*.jsonl (English and
Chinese, written for other benches) plus a list of look-alikes kept here (hashes, UUIDs, paths,
URLs, order, tracking and phone numbers). A false positive is any sentence that comes back changed.
Speed: median and p95 microseconds per call over sentences of 100-300 characters.
Tricky forms (issue 17): per class, generated here from their own seed, English and Chinese: Chinese
connectors, full-width forms, invisible characters and look-alike letters inside the keyword, words
between keyword and value, PIN/CVV/one-time codes, command lines, URL passwords with "/" or "@",
metadata keys and numbers, labels. A case counts as redacted when the secret is gone; "intact" when,
besides, the text outside the secret came back byte for byte. Near misses (the same words in ordinary
use: "the PIN on the map", "密码学课程") count as false positives when changed.
ReDoS (--redos): each compiled pattern of core/redact and each detect-secrets pattern, timed as
tests/support/redos.py does (time growth for 4 times the input; linear ~4, quadratic ~16).

    python bench/redact_eval.py            # readable report (misses and false positives listed)
    python bench/redact_eval.py --json     # one JSON object
    python bench/redact_eval.py --redos    # the growth ratio of every redaction pattern, worst first
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import string
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

from hindsight_desktop.core.redact.text import redact_secrets  # noqa: E402

try:  # absent from the code before issue 17, which the before figures are measured on
    from hindsight_desktop.core.redact.records import redact_label  # noqa: E402
except ImportError:  # pragma: no cover
    redact_label = None
from hindsight_desktop.core.redact.records import redact_tree  # noqa: E402

ORDINARY_FILES = [
    ROOT / "tests" / "data" / "gate_labelled.jsonl",
    ROOT / "tests" / "data" / "gate_sequences.jsonl",
    ROOT / "bench" / "data" / "zh_memories.jsonl",
    ROOT / "bench" / "data" / "zh_questions.jsonl",
]
LOOK_ALIKES = [
    "Merged 9c1e4f0a2b7d3e8f5a6c0b1d2e3f4a5b6c7d8e9f into release/2026.12 after review.",
    "Short sha 4e7a1c9 broke the nightly build on arm64.",
    "Ticket 7f3e2a10-4b5c-4d6e-8f90-a1b2c3d4e5f6 is the one about the login loop.",
    "Tracking number 9400111899223856930123 from USPS, arriving Tuesday.",
    "Booking reference QX7P2M for the Lisbon flight, seat 14C.",
    "Order ORD-7F3K-9XQ2-MM81 was refunded on 2026-11-28.",
    "The file is at /Users/maria/Documents/Taxes2025/receipts/march-utilities.pdf",
    "Open https://maps.google.com/?q=52.5200,13.4050 to find the cafe.",
    "Playlist https://open.spotify.com/playlist/37i9dQZF1DXcBWIGoYBM5M is the running one.",
    "Shared folder https://drive.google.com/drive/folders/1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVw",
    "Her number is +49 30 901820 and the office is on Unter den Linden 77.",
    "The container hindsight-worker-5f7c9d8b6-qz2lm keeps restarting.",
    "We use the AbstractSingletonProxyFactoryBean pattern way too much.",
    "Install torch==2.5.1+cu124 and numpy>=2.1 in the new venv.",
    "Lot number 2026-B-004512, expiry 2027-06-30.",
    "Meet at Gate B42, Terminal 2, boarding 18:45.",
    "The recipe needs 250g flour, 3 eggs and 1.5 tsp baking powder.",
    "My library card is 21234000567890 at the city branch.",
    "快递单号 YT2254367782910，圆通的，明天到。",
    "我的工号是 A20231587，入职时间 2023 年 3 月。",
    "仓库路径 git@github.com:example/notes.git，分支 feature/zh-search。",
    "会议链接 https://meeting.tencent.com/dm/AbCdEf123456 下午三点。",
    "航班 MU5137 周五 08:00 从虹桥起飞。",
    "The password reset email never arrived, check the spam folder.",
    "Tokens per second went from 41 to 58 after the upgrade.",
    "The secret ingredient is smoked paprika.",
]
WORDS = [
    "river",
    "stone",
    "lantern",
    "maple",
    "orbit",
    "copper",
    "velvet",
    "thunder",
    "meadow",
    "pepper",
    "cobalt",
    "harbor",
    "saffron",
    "glacier",
    "tulip",
    "ember",
    "falcon",
    "willow",
    "quartz",
    "nectar",
]
SERVICES = [
    "staging database",
    "billing API",
    "home router",
    "build server",
    "analytics",
    "Grafana",
    "VPN",
    "mail relay",
    "NAS",
    "payment gateway",
]


def _rand(rng: random.Random, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def held_out_secrets(seed: int = 20261201) -> list[tuple[str, str]]:
    """(sentence, secret) pairs; the secret is what must not survive."""
    rng = random.Random(seed)
    url = string.ascii_letters + string.digits + "_-"
    b64 = string.ascii_letters + string.digits + "+/"
    hexa = "0123456789abcdef"
    out: list[tuple[str, str]] = []
    for _ in range(4):
        svc = rng.choice(SERVICES)
        tokens = [
            "sk-" + _rand(rng, 48),
            "sk-proj-" + _rand(rng, 56, url),
            "sk-ant-api03-" + _rand(rng, 90, url),
            "sk_live_" + _rand(rng, 34),
            "rk_live_" + _rand(rng, 24),
            "sk_test_" + _rand(rng, 24),
            "ghp_" + _rand(rng, 36),
            "gho_" + _rand(rng, 36),
            "github_pat_11" + _rand(rng, 80, string.ascii_letters + string.digits + "_"),
            "glpat-" + _rand(rng, 20, url),
            "hf_" + _rand(rng, 34),
            "npm_" + _rand(rng, 36),
            f"xoxb-{_rand(rng, 12, string.digits)}-{_rand(rng, 13, string.digits)}-{_rand(rng, 24)}",
            f"xapp-1-A{_rand(rng, 10, string.ascii_uppercase + string.digits)}-{_rand(rng, 13, string.digits)}-"
            + _rand(rng, 64, hexa),
            "AKIA" + _rand(rng, 16, string.ascii_uppercase + string.digits),
            "AIza" + _rand(rng, 35, url),
            f"SG.{_rand(rng, 22, url)}.{_rand(rng, 43, url)}",
            "hsd_" + _rand(rng, 43, url),
            "pypi-AgEIcHlwaS5vcmc" + _rand(rng, 90, url),
            "shpat_" + _rand(rng, 32, hexa),
            "dop_v1_" + _rand(rng, 64, hexa),
            "whsec_" + _rand(rng, 32),
            f"{rng.choice('MNO')}{_rand(rng, 23)}.{_rand(rng, 6, url)}.{_rand(rng, 38, url)}",
            f"{_rand(rng, 10, string.digits)}:AA{_rand(rng, 33, url)}",
            "eyJhbGciOiJIUzI1NiJ9." + _rand(rng, 40, url) + "." + _rand(rng, 43, url),
            _rand(rng, 32),
            _rand(rng, 40, b64),
            _rand(rng, 43, url),
        ]
        templates = [
            "use {t} for the {s} integration",
            "{s} token: {t}",
            "remember {t} for {s}",
            "the {s} key is {t}, rotate it in spring",
            '{{"{s}": "{t}"}}',
            "{s} 的令牌是 {t}",
        ]
        for token in tokens:
            out.append((rng.choice(templates).format(t=token, s=svc), token))
        value = _rand(rng, 12, string.ascii_letters + string.digits + "!#%&*")
        phrase = " ".join(rng.sample(WORDS, 4))
        aws = _rand(rng, 40, b64)
        azure = _rand(rng, 86, b64)
        hook = f"T{_rand(rng, 9, string.ascii_uppercase)}/B{_rand(rng, 11, string.ascii_uppercase)}/{_rand(rng, 24)}"
        dhook = f"{_rand(rng, 18, string.digits)}/{_rand(rng, 68, url)}"
        block = "\n".join(_rand(rng, 64, b64) for _ in range(3))
        kind = rng.choice(["RSA", "EC", "OPENSSH", "PGP"])
        end = " BLOCK" if kind == "PGP" else ""
        out += [
            (f"{rng.choice(['PROD', 'APP', 'REDIS', 'SMTP'])}_PASSWORD={value}", value),
            (f"export {rng.choice(['STRIPE', 'OPENAI', 'MY', 'CI'])}_API_KEY={_rand(rng, 20)}", None),
            (f"AWS_SECRET_ACCESS_KEY={aws}", aws),
            (f"the {svc} password is {value}", value),
            (f"{svc} password: {phrase}", phrase),
            (f"Passphrase for the backup disk is {phrase}, written nowhere else", phrase),
            (f"{svc}的密码是 {value}，记住", value),
            (f"口令：{value}", value),
            (f"密钥为 {_rand(rng, 24)}", None),
            (f"notify https://hooks.slack.com/services/{hook}", hook.split("/")[-1]),
            (f"https://discord.com/api/webhooks/{dhook}", dhook.split("/")[-1]),
            (f"DefaultEndpointsProtocol=https;AccountName=x;AccountKey={azure}==", azure),
            (f"-----BEGIN {kind} PRIVATE KEY{end}-----\n{block}\n-----END {kind} PRIVATE KEY{end}-----", block),
            (f"mongodb+srv://app:{value}@cluster0.example.net/db", value),
            (f"Authorization: Bearer {_rand(rng, 40, url)}", None),
            (f"aws creds for {svc}: {aws}", aws),
            # Hard on purpose, several missed by design: an unlabelled hex key looks like a commit hash;
            # lower-case-and-digit tokens split into word-like pieces; no separator after "password".
            (f"datadog {_rand(rng, 32, hexa)}", None),
            (f"twilio auth {_rand(rng, 32, string.ascii_lowercase + string.digits)}", None),
            (f"wifi password {value}", value),
            (f"pw: {value}", value),
            (f"login anna / {value}", value),
        ]
    # Values generated inline are recovered from the sentence's last token.
    return [(text, secret if secret is not None else text.rsplit("=", 1)[-1].split()[-1]) for text, secret in out]


ZW = ["\u200b", "\u00ad", "\u200c", "\u200d", "\u2060", "\ufeff", "\U000e0041", "\u180e"]
LOOKALIKE = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "i": "і", "s": "ѕ", "y": "у"}
FULL = {ch: chr(ord(ch) + 0xFEE0) for ch in string.ascii_letters + string.digits + ":="}


def _pw(rng: random.Random) -> str:
    """A password a person would pick: a word, digits and maybe a symbol."""
    return rng.choice(WORDS).capitalize() + str(rng.randint(10, 9999)) + rng.choice(["", "!", "#", "$", "%"])


def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def _card(rng: random.Random) -> str:
    """A Luhn-valid 16-digit number starting with 4, in four groups."""
    body = [4] + [rng.randint(0, 9) for _ in range(14)]
    total = sum((d * 2 - 9 if d * 2 > 9 else d * 2) if i % 2 == 0 else d for i, d in enumerate(reversed(body)))
    digits = "".join(map(str, body)) + str((10 - total % 10) % 10)
    return " ".join(digits[i : i + 4] for i in range(0, 16, 4))


def _hide(word: str, rng: random.Random) -> str:
    cut = rng.randint(1, len(word) - 1)
    return word[:cut] + rng.choice(ZW) + word[cut:]


def _lookalike(word: str, rng: random.Random) -> str:
    spots = [i for i, ch in enumerate(word) if ch in LOOKALIKE]
    chosen = set(rng.sample(spots, min(len(spots), rng.randint(1, 2))))
    return "".join(LOOKALIKE[ch] if i in chosen else ch for i, ch in enumerate(word))


def tricky_forms(seed: int = 20261217) -> dict[str, list[tuple[str, str]]]:
    """Issue 17's classes, each a list of (text, secret)."""
    rng = random.Random(seed)
    out: dict[str, list[tuple[str, str]]] = {}
    zh_keys = ["密码", "银行卡密码", "wifi密码", "邮箱的密码", "支付密码", "口令", "登录密码", "路由器密码"]
    zh_cons = [
        "是：",
        "是:",
        "是 ",
        "就是",
        "就是 ",
        "叫",
        "叫做 ",
        "为",
        "为：",
        "：",
        ": ",
        " ",
        "其实是",
        "一直是",
        "改成了",
        "设成",
    ]
    out["zh_connectors"] = [(f"我的{rng.choice(zh_keys)}{con}{(v := _pw(rng))}，别告诉别人", v) for con in zh_cons]
    out["fullwidth"] = []
    for i in range(12):
        v = _digits(rng, 6) if i % 3 else _pw(rng)
        wide = "".join(FULL.get(ch, ch) for ch in v)
        form = ["支付密码是{}", "ｐａｓｓｗｏｒｄ：{}", "PIN：{}", "my password is {}", "密码{}"][i % 5]
        out["fullwidth"].append((form.format(wide), wide))
    for _ in range(4):
        card = _card(rng)
        wide = "".join(FULL.get(ch, "\u3000" if ch == " " else ch) for ch in card)
        out["fullwidth"].append((rng.choice(["卡号 {} 下月到期", "card {} expires soon"]).format(wide), wide))
    en_keys = ["password", "passcode", "passphrase", "api_key", "token", "secret"]
    out["invisible"] = [(f"the {_hide(rng.choice(en_keys[:3]), rng)} is {(v := _pw(rng))}", v) for _ in range(8)]
    out["invisible"] += [(f"{_hide(k, rng)}={(v := 'a8' + _rand(rng, 14))} for ci", v) for k in en_keys[3:]]
    out["invisible"] += [(f"{_hide('密码', rng)}是 {(v := _pw(rng))}", v) for _ in range(3)]
    out["invisible"] += [(f"my {_hide('PIN', rng)} is {(v := _digits(rng, 4))}", v) for _ in range(2)]
    out["lookalike"] = [
        (f"{_lookalike(rng.choice(['password', 'passcode', 'passphrase']), rng)}: {(v := _pw(rng))}", v)
        for _ in range(8)
    ]
    out["lookalike"] += [(f"my {_lookalike(k, rng)} is {(v := _pw(rng))}", v) for k in ("password", "passcode")]
    out["lookalike"] += [(f"{_lookalike('api_secret', rng)}={(v := 'Zq' + _rand(rng, 16))}", v) for _ in range(2)]
    out["lookalike"] += [(f"the {_lookalike('cvc', rng)} is {(v := _digits(rng, 3))}", v) for _ in range(2)]
    between = [
        "the password I use everywhere is {}",
        "the password we picked for the shared drive was {}",
        "my password for the work laptop is still {}",
        "the passphrase on my old phone was {}",
        "the password that opens the garage app is {}",
        "the wifi password at grandma's is {}",
        "our team password for the printer is now {}",
        "the password is now {}",
        "the passcode I set on the tablet is {}",
        "password changed to {} yesterday",
        "the admin password was reset to {}",
        "the password for anna@example.com is {}",
    ]
    out["words_between"] = [(t.format(v := _pw(rng)), v) for t in between]
    pcv = [
        "my bank PIN is {d4}",
        "PIN: {d4}",
        "the PIN for the debit card is {d4}",
        "PIN code {d4}",
        "pin number is {d6}",
        "CVV is {d3}",
        "the cvv on the back is {d3}",
        "CVC: {d3}",
        "the security code on the back is {d3}",
        "OTP {d6}",
        "the one-time code is {d6}",
        "verification code: {d6}",
        "2FA code is {d6}",
        "backup codes: {d8}",
        "PIN码是 {d4}",
        "PIN码：{d6}",
        "银行卡PIN码就是{d4}",
        "验证码：{d6}",
        "验证码是{d6}",
        "短信验证码 {d6}",
        "安全码是 {d3}",
        "CVV码 {d3}",
        "提取码：{code}",
        "动态码为 {d6}",
    ]
    out["pin_cvv_otp"] = []
    for t in pcv:
        values = {
            "d3": _digits(rng, 3),
            "d4": _digits(rng, 4),
            "d6": _digits(rng, 6),
            "d8": _digits(rng, 8),
            "code": _rand(rng, 2, string.ascii_lowercase) + _digits(rng, 2),
        }
        key = t.split("{")[1].split("}")[0]
        out["pin_cvv_otp"].append((t.format(**values), values[key]))
    cli = [
        "mysql -u root -p{v} shop",
        "mysqldump -h db -u backup -p{v} --all-databases > all.sql",
        "mysql --password={v} -e 'show tables'",
        "psql --password {v} -h 10.0.0.5",
        "curl -u admin:{v} https://ci.example.net",
        "curl --user ops:{v} -X POST https://api.example.com",
        "sshpass -p {v} ssh pi@raspberrypi.local",
        "sshpass -p'{v}' scp a.txt host:",
        "PGPASSWORD={v} psql -h db -U app",
        "export MYSQL_PWD={v}",
        "docker login -u anna -p {v} registry.example.com",
        "redis-cli -a {v} ping",
        "wget --password={v} ftp://x.org/f",
        "openssl enc -aes-256-cbc -pass pass:{v} -in a",
        "smbclient //nas/share -U anna%{v}",
        "登录数据库用 mysql -uroot -p{v}",
        "备份脚本里写的是 PGPASSWORD={v} pg_dump app",
    ]
    out["command_line"] = [(t.format(v=(v := _pw(rng))), v) for t in cli]
    urls = [
        "postgres://app:{v}@db.internal:5432/app",
        "https://anna:{v}@git.example.com/repo.git",
        "mongodb://root:{v}@mongo:27017",
        "redis://:{v}@cache.local:6379/0",
        "ftp://bob:{v}@files.example.org/pub",
        "amqp://guest:{v}@rabbit/vhost",
        "连接串 mysql://root:{v}@127.0.0.1:3306/shop 别外传",
        "smtp://mail:{v}@smtp.example.com:587",
    ]
    out["url_password"] = []
    for i, t in enumerate(urls + urls[:4]):
        v = _pw(rng)
        v = v[:3] + ("/" if i % 2 else "@") + v[3:] + ("/x" if i % 3 == 0 else "")
        out["url_password"].append((t.format(v=v), v))
    return out


def metadata_cases(seed: int = 20261218) -> list[tuple[dict[str, Any], str]]:
    """(metadata, secret) pairs: secret-like keys, numbers under them, in several spellings."""
    rng = random.Random(seed)
    keys = [
        "cvv",
        "CVC",
        "otp",
        "otpCode",
        "creds",
        "credentials",
        "pin",
        "pinCode",
        "passcode",
        "pass_code",
        "token",
        "authToken",
        "api-key",
        "secret",
        "one_time_code",
        "verification_code",
        "backup_codes",
        "验证码",
        "支付密码",
        "PIN码",
        "ｐａｓｓｗｏｒｄ",
        "pass\u200bword",
        "card.cvv",
        "user.token",
    ]
    out: list[tuple[dict[str, Any], str]] = []
    for key in keys:
        number = rng.random() < 0.5
        value: Any = rng.randint(100, 99999999) if number else _pw(rng)
        out.append(({"note": "from the chat", key: value}, str(value)))
    return out


def label_cases(seed: int = 20261219) -> list[tuple[str, str]]:
    """(label, secret) pairs: a memory type or relation type that carries a token."""
    rng = random.Random(seed)
    url = string.ascii_letters + string.digits
    return (
        [
            (v, v)
            for v in (
                "ghp_" + _rand(rng, 36, url),
                "sk_live_" + _rand(rng, 24, url),
                "glpat-" + _rand(rng, 20, url),
                "hf_" + _rand(rng, 34, url),
                "xoxb-" + _digits(rng, 11) + "-" + _rand(rng, 12, url),
                "AKIA" + _rand(rng, 16, string.ascii_uppercase + string.digits),
                _rand(rng, 32, url),
            )
        ]
        + [(f"pin-{(d := _digits(rng, 4))}", d) for _ in range(2)]
        + [(f"token_{(t := 'a9' + _rand(rng, 10))}", t)]
    )


# The same words as the secrets above, in ordinary use: none may change.
NEAR_MISSES = [
    "the PIN on the map marks the trailhead",
    "Drop a pin at the cafe so I can find it.",
    "The password reset email came at 9.",
    "The password manager I use is Bitwarden.",
    "My password is too weak, the site said.",
    "The CVV field was empty on the form.",
    "OTP stands for one-time password.",
    "The verification code expired before I typed it.",
    "pin 13 is the LED on the Arduino",
    "The token limit is 4096 for this model.",
    "password length must be 12 characters",
    "The PIN pad at the store was broken.",
    "I passed the security code review on Friday.",
    "Run mysql -u root -p and type it when asked.",
    "curl -u $USER:$TOKEN https://api.example.com",
    'sshpass -p "$SSHPASS" ssh host',
    "docker run -u 1000:1000 alpine",
    "export PWD=/home/anna/projects",
    "the secret is perseverance",
    "password: see the vault",
    "我在上密码学课程，下周考试。",
    "密码学的基础是数论。",
    "密码箱放在衣柜里。",
    "密码错误三次会被锁定。",
    "密码是多少？我忘了。",
    "银行卡密码是6位数字。",
    "验证码发到了我手机上。",
    "把PIN码记在心里，不要写下来。",
    "安全码在卡背面。",
    "口令要定期更换。",
    "wifi密码改了吗？",
    "密码长度至少8位。",
    "支付密码忘了，去柜台重置。",
    "这个验证码5分钟内有效。",
    "令牌桶限流是每秒100个请求。",
    "See https://example.com:8443/docs/@anna for the profile.",
    "The ISBN is 978-0-13-468599-1, the PIN is on the receipt.",
    "密码：见保险柜里的本子",
    "ＰＩＮ码在信封里",
    "the ｐａｓｓｗｏｒｄ policy changed",
    "Password: ********",
    "api_key=${API_KEY}",
    "the password is: (see vault)",
    "password: $DB_PASS",
    "The Wi-Fi network key is printed on the router.",
    "token: <redacted>",
]


def _intact(text: str, secret: str, out: str) -> bool:
    """Whether `out` is `text` with only the secret replaced (by one or more placeholders)."""
    import re

    at = text.find(secret)
    if at < 0:
        return False
    before, after = text[:at], text[at + len(secret) :]
    if not (out.startswith(before) and out.endswith(after)):
        return False
    middle = out[len(before) : len(out) - len(after)]
    return re.fullmatch(r"(?:\[REDACTED:\w+\])+", middle) is not None


def forms_report() -> dict[str, Any]:
    classes: dict[str, Any] = {}
    for name, cases in tricky_forms().items():
        outs = [(text, secret, redact_secrets(text)[0]) for text, secret in cases]
        missed = [(t, o) for t, s, o in outs if leaked(s, o)]
        classes[name] = {
            "cases": len(cases),
            "redacted_share": round(1 - len(missed) / len(cases), 3),
            "intact_share": round(sum(_intact(t, s, o) for t, s, o in outs) / len(cases), 3),
            "misses": missed,
        }
    meta = [(m, s, json.dumps(redact_tree(m)[0], ensure_ascii=False)) for m, s in metadata_cases()]
    missed_meta = [(json.dumps(m, ensure_ascii=False), o) for m, s, o in meta if s in o]
    classes["metadata"] = {
        "cases": len(meta),
        "redacted_share": round(1 - len(missed_meta) / len(meta), 3),
        "misses": missed_meta,
    }
    labels = label_cases()
    missed_labels = [(lab, lab) for lab, s in labels if redact_label is None or s in redact_label(lab)[0]]
    classes["labels"] = {
        "cases": len(labels),
        "redacted_share": round(1 - len(missed_labels) / len(labels), 3),
        "misses": missed_labels,
    }
    near = [(t, redact_secrets(t)[0]) for t in NEAR_MISSES]
    meta_near = {
        "max_tokens": 4096,
        "prompt_tokens": 12,
        "tokens": 88,
        "pinned": True,
        "pin_color": "red",
        "otp_enabled": True,
        "tag": "password-reset",
    }
    return {
        "classes": classes,
        "near_misses": len(near),
        "near_miss_changed": [(t, o) for t, o in near if t != o],
        "metadata_near_changed": redact_tree(meta_near)[0] != meta_near,
    }


def redos_report() -> list[dict[str, Any]]:
    """The growth ratio of every redaction pattern on its worst hostile input (see support/redos.py)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from support import redos  # noqa: PLC0415

    from hindsight_desktop.core.redact import detectors  # noqa: PLC0415

    sites = [s for s in redos.collect() if s.name.startswith("redact.")]
    sites += [redos.Site(f"detect_secrets[{i}]", d.pattern) for i, d in enumerate(detectors.detectors())]
    rows = []
    for site in sites:
        found = redos.worst(site.name, redos.finditer_all(site.pattern), redos.inputs(site.pattern))
        rows.append(
            {"pattern": site.name, "ratio": round(found.ratio, 1), "flagged": found.flagged, "case": found.describe()}
        )
    # The end-to-end cases the guard (tests/unit/test_redos_guard.py) gives every write step.
    cases = [(u, redos.PLAIN) for u in redos.FIXED_UNITS] + redos.WRAPPED + redos.DENSE
    cases += list(dict.fromkeys(c for d in detectors.detectors() for c in redos.headed(d.pattern)[:4]))
    for name, fn in (
        ("redact_secrets", redact_secrets),
        ("redact_secrets(personal)", lambda t: redact_secrets(t, True)),
        ("detectors.find", lambda t: list(detectors.find(t))),
    ):
        found = redos.worst(name, fn, cases)
        rows.append(
            {"pattern": name, "ratio": round(found.ratio, 1), "flagged": found.flagged, "case": found.describe()}
        )
    return sorted(rows, key=lambda r: -r["ratio"])


def leaked(secret: str, redacted: str, run: int = 6) -> bool:
    """True when any `run` consecutive characters of the secret are still in the output."""
    secret = secret.strip()
    if len(secret) <= run:
        return secret in redacted
    return any(
        secret[i : i + run] in redacted
        for i in range(0, len(secret) - run + 1)
        if not secret[i : i + run].isspace() and " " not in secret[i : i + run]
    )


def ordinary_texts() -> list[str]:
    texts: list[str] = []
    for path in ORDINARY_FILES:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                text = row.get("text") or row.get("question")
                if text:
                    texts.append(text)
    return texts + LOOK_ALIKES


def timing(texts: list[str], personal: bool, rounds: int = 5) -> dict[str, float]:
    samples = []
    for _ in range(rounds):
        for text in texts:
            start = time.perf_counter()
            redact_secrets(text, personal)
            samples.append((time.perf_counter() - start) * 1e6)
    samples.sort()
    return {"median_us": round(statistics.median(samples), 1), "p95_us": round(samples[int(len(samples) * 0.95)], 1)}


def evaluate() -> dict[str, Any]:
    secrets = held_out_secrets()
    misses = [(text, redact_secrets(text)[0]) for text, secret in secrets if leaked(secret, redact_secrets(text)[0])]
    ordinary = ordinary_texts()
    flagged = [(text, redact_secrets(text)[0]) for text in ordinary if redact_secrets(text)[1]]
    sized = [t for t in ordinary + [s for s, _ in secrets] if 100 <= len(t) <= 300]
    sized += [(t + " ") * (100 // max(1, len(t)) + 1) for t in ordinary[:200] if len(t) < 100]
    return {
        "secrets": len(secrets),
        "redacted_share": round(1 - len(misses) / len(secrets), 4),
        "ordinary": len(ordinary),
        "false_positives": len(flagged),
        "false_positive_share": round(len(flagged) / len(ordinary), 4),
        "changed_with_personal_ids_on": sum(bool(redact_secrets(text, True)[1]) for text in ordinary),
        "speed_100_300_chars": {
            "sentences": len(sized),
            "default": timing(sized, False),
            "personal_ids_on": timing(sized, True),
        },
        "misses": misses,
        "flagged": flagged,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--redos", action="store_true", help="time every redaction pattern on hostile input")
    args = parser.parse_args()
    if args.redos:
        for row in redos_report():
            print(f"{row['ratio']:6.1f} {'FLAGGED' if row['flagged'] else '       '} {row['case']}")
        return
    report = evaluate()
    report["forms"] = forms_report()
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return
    print(f"secrets redacted: {report['redacted_share']:.1%} of {report['secrets']} (held out)")
    print(
        f"false positives: {report['false_positives']} of {report['ordinary']} ordinary sentences "
        f"({report['false_positive_share']:.2%})"
    )
    print(f"with personal ids on, {report['changed_with_personal_ids_on']} of them change (phone and ID numbers)")
    speed = report["speed_100_300_chars"]
    print(
        f"speed over {speed['sentences']} sentences of 100-300 chars: median {speed['default']['median_us']} µs, "
        f"p95 {speed['default']['p95_us']} µs; with personal ids on: median "
        f"{speed['personal_ids_on']['median_us']} µs"
    )
    for text, out in report["misses"]:
        print(f"  MISSED  {text[:100]!r}\n       -> {out[:100]!r}")
    for text, out in report["flagged"]:
        print(f"  CHANGED {text[:100]!r}\n       -> {out[:100]!r}")
    forms = report["forms"]
    print("tricky forms (issue 17):")
    for name, row in forms["classes"].items():
        intact = f", intact {row['intact_share']:.0%}" if "intact_share" in row else ""
        print(f"  {name:15s} {row['redacted_share']:6.1%} of {row['cases']}{intact}")
        for text, out in row["misses"]:
            print(f"      MISSED  {text[:90]!r}\n           -> {out[:90]!r}")
    print(
        f"near misses changed: {len(forms['near_miss_changed'])} of {forms['near_misses']}; "
        f"metadata near misses changed: {forms['metadata_near_changed']}"
    )
    for text, out in forms["near_miss_changed"]:
        print(f"  CHANGED {text[:100]!r}\n       -> {out[:100]!r}")


if __name__ == "__main__":
    main()

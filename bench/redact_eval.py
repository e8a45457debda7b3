"""How many secrets does redaction catch, how often does it touch ordinary text, and what does it cost?

Secrets: a held-out set generated here (not the ones in tests/unit/test_redact.py) from a fixed seed: made-up
tokens in the shapes of 30-odd services, labelled values, spoken and multi-word passwords, Chinese
forms, key blocks and bare random tokens, each set in a sentence. A secret counts as redacted when no
run of 6 or more of its characters is left in the output.
Ordinary text: every message in tests/data/gate_*.jsonl and bench/data/zh_*.jsonl (English and
Chinese, written for other benches) plus a list of look-alikes kept here (hashes, UUIDs, paths,
URLs, order, tracking and phone numbers). A false positive is any sentence that comes back changed.
Speed: median and p95 microseconds per call over sentences of 100-300 characters.

    python bench/redact_eval.py            # readable report (misses and false positives listed)
    python bench/redact_eval.py --json     # one JSON object
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

ORDINARY_FILES = [ROOT / "tests" / "data" / "gate_labelled.jsonl", ROOT / "tests" / "data" / "gate_sequences.jsonl",
                  ROOT / "bench" / "data" / "zh_memories.jsonl", ROOT / "bench" / "data" / "zh_questions.jsonl"]
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
WORDS = ["river", "stone", "lantern", "maple", "orbit", "copper", "velvet", "thunder", "meadow", "pepper", "cobalt",
         "harbor", "saffron", "glacier", "tulip", "ember", "falcon", "willow", "quartz", "nectar"]
SERVICES = ["staging database", "billing API", "home router", "build server", "analytics", "Grafana", "VPN",
            "mail relay", "NAS", "payment gateway"]


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
            "sk-" + _rand(rng, 48), "sk-proj-" + _rand(rng, 56, url), "sk-ant-api03-" + _rand(rng, 90, url),
            "sk_live_" + _rand(rng, 34), "rk_live_" + _rand(rng, 24), "sk_test_" + _rand(rng, 24),
            "ghp_" + _rand(rng, 36), "gho_" + _rand(rng, 36), "github_pat_11" + _rand(rng, 80, string.ascii_letters
                                                                                      + string.digits + "_"),
            "glpat-" + _rand(rng, 20, url), "hf_" + _rand(rng, 34), "npm_" + _rand(rng, 36),
            f"xoxb-{_rand(rng, 12, string.digits)}-{_rand(rng, 13, string.digits)}-{_rand(rng, 24)}",
            f"xapp-1-A{_rand(rng, 10, string.ascii_uppercase + string.digits)}-{_rand(rng, 13, string.digits)}-"
            + _rand(rng, 64, hexa),
            "AKIA" + _rand(rng, 16, string.ascii_uppercase + string.digits), "AIza" + _rand(rng, 35, url),
            f"SG.{_rand(rng, 22, url)}.{_rand(rng, 43, url)}", "hsd_" + _rand(rng, 43, url),
            "pypi-AgEIcHlwaS5vcmc" + _rand(rng, 90, url), "shpat_" + _rand(rng, 32, hexa),
            "dop_v1_" + _rand(rng, 64, hexa), "whsec_" + _rand(rng, 32),
            f"{rng.choice('MNO')}{_rand(rng, 23)}.{_rand(rng, 6, url)}.{_rand(rng, 38, url)}",
            f"{_rand(rng, 10, string.digits)}:AA{_rand(rng, 33, url)}",
            "eyJhbGciOiJIUzI1NiJ9." + _rand(rng, 40, url) + "." + _rand(rng, 43, url),
            _rand(rng, 32), _rand(rng, 40, b64), _rand(rng, 43, url),
        ]
        templates = ["use {t} for the {s} integration", "{s} token: {t}", "remember {t} for {s}",
                     "the {s} key is {t}, rotate it in spring", '{{"{s}": "{t}"}}', "{s} 的令牌是 {t}"]
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


def leaked(secret: str, redacted: str, run: int = 6) -> bool:
    """True when any `run` consecutive characters of the secret are still in the output."""
    secret = secret.strip()
    if len(secret) <= run:
        return secret in redacted
    return any(secret[i:i + run] in redacted for i in range(0, len(secret) - run + 1)
               if not secret[i:i + run].isspace() and " " not in secret[i:i + run])


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
        "secrets": len(secrets), "redacted_share": round(1 - len(misses) / len(secrets), 4),
        "ordinary": len(ordinary), "false_positives": len(flagged),
        "false_positive_share": round(len(flagged) / len(ordinary), 4),
        "changed_with_personal_ids_on": sum(bool(redact_secrets(text, True)[1]) for text in ordinary),
        "speed_100_300_chars": {"sentences": len(sized), "default": timing(sized, False),
                                "personal_ids_on": timing(sized, True)},
        "misses": misses, "flagged": flagged,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    report = evaluate()
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return
    print(f"secrets redacted: {report['redacted_share']:.1%} of {report['secrets']} (held out)")
    print(f"false positives: {report['false_positives']} of {report['ordinary']} ordinary sentences "
          f"({report['false_positive_share']:.2%})")
    print(f"with personal ids on, {report['changed_with_personal_ids_on']} of them change (phone and ID numbers)")
    speed = report["speed_100_300_chars"]
    print(f"speed over {speed['sentences']} sentences of 100-300 chars: median {speed['default']['median_us']} µs, "
          f"p95 {speed['default']['p95_us']} µs; with personal ids on: median "
          f"{speed['personal_ids_on']['median_us']} µs")
    for text, out in report["misses"]:
        print(f"  MISSED  {text[:100]!r}\n       -> {out[:100]!r}")
    for text, out in report["flagged"]:
        print(f"  CHANGED {text[:100]!r}\n       -> {out[:100]!r}")


if __name__ == "__main__":
    main()

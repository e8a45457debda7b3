"""Secret redaction on its own: every kind of secret the trust review listed, ordinary text left alone,
personal identifiers only when the person asks. All secrets below are made up, in realistic shapes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.secrets import SECRETS

from hindsight_desktop.config import Settings
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.redact.detectors import detectors, plugin_classes
from hindsight_desktop.core.redact.entropy import looks_random
from hindsight_desktop.core.redact.personal_ids import iban_ok, resident_id_ok
from hindsight_desktop.core.redact.records import redact_session_id, redact_tree
from hindsight_desktop.core.redact.text import redact_secrets

# (text, parts that must not survive, a label that must stay readable or "")


@pytest.mark.parametrize(("text", "leaks", "label"), SECRETS, ids=[s[0][:32] for s in SECRETS])
def test_every_secret_is_redacted(text: str, leaks: list[str], label: str) -> None:
    redacted, kinds = redact_secrets(text)
    assert kinds and "[REDACTED:" in redacted
    for leak in leaks:
        assert leak not in redacted, redacted
    assert label in redacted, "the label around a secret stays readable"


def test_enough_secrets_are_tried() -> None:
    assert len(SECRETS) >= 40


@pytest.mark.parametrize(("text", "_leaks", "_label"), SECRETS, ids=[s[0][:32] for s in SECRETS])
def test_redacting_twice_changes_nothing(text: str, _leaks: list[str], _label: str) -> None:
    once, _ = redact_secrets(text)
    assert redact_secrets(once) == (once, [])


_PIECES = st.sampled_from(
    [
        "password: ",
        "pwd=",
        "api_key=",
        "密码是",
        "token ",
        " ",
        ", ",
        ". ",
        "\n",
        "sk-",
        "ghp_",
        "hunter2",
        "correct horse",
        "AKIA",
        "://u:",
        "@h",
        "[",
        "]",
        "REDACTED",
        "eyJ",
        "=",
        "/",
        "4111 1111 1111 1111",
        "13800138000",
        "Xk9#mq2!vLp",
        "sNOBAGx5diFoNPcbdaKwtgHwIoALtLin",
        "is ",
        "口令：",
        "Bearer ",
        "-----BEGIN RSA PRIVATE KEY-----",
        "eyJabcdefgh.",
        "A1b2C3d4E5f6G7h8",
        "//h:p@",
        "xoxb-1-",
        "AccountKey=",
        "PIN: ",
        "=>",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=8)), max_size=15).map("".join), st.booleans())
def test_any_text_redacts_to_a_fixed_point(text: str, personal: bool) -> None:
    once, _ = redact_secrets(text, personal)
    assert redact_secrets(once, personal) == (once, [])


def test_every_private_key_header_detect_secrets_knows_is_redacted() -> None:
    headers = [p.pattern for p in plugin_classes()["PrivateKeyDetector"].denylist]
    assert len(headers) >= 8
    for header in headers:
        text = f"-----{header}-----\nMIIEowIBAAKCAQEAx9Zk2Lm\n-----{header.replace('BEGIN', 'END')}-----\nafter"
        if "BEGIN" not in header:  # PuTTY's format: the key ends with its MAC line
            text = f"{header}: ssh-rsa\nPrivate-Lines: 1\nMIIEowIBAAKCAQEAx9Zk2Lm\nPrivate-MAC: 8f3a2b\nafter"
        assert redact_secrets(text) == ("[REDACTED:private_key]\nafter", ["private_key"]), header


def test_detect_secrets_patterns_are_in_use() -> None:
    assert len(detectors()) >= 20
    # A shape only detect-secrets knows (a Twilio API key), unlabelled in a sentence.
    assert redact_secrets("twilio SK14c2b54b95523cf6941fa1c257c6f561 for sms") == (
        "twilio [REDACTED:api_key] for sms",
        ["api_key"],
    )


def test_a_multi_word_password_is_hidden_up_to_the_end_of_its_clause() -> None:
    assert redact_secrets("password: correct horse battery staple") == ("password: [REDACTED:password]", ["password"])
    assert redact_secrets("the password is blue sky morning, use it for the router") == (
        "the password is [REDACTED:password], use it for the router",
        ["password"],
    )


ORDINARY = [
    "My new address is 1428 Elm Street, Apt 3B, Springfield, IL 62704.",
    "Order #A1B2-C3D4-E5F6 ships on 2026-12-03; tracking 1Z999AA10123456784.",
    "Amazon order 112-7384920-1938475 arrived yesterday.",
    "Call me at +1 (415) 555-0132 or 138 0013 8000 after 6pm.",
    "The release v2.14.3-rc.1 fixes the crash in build 20241105.",
    "Fixed in commit 3f9c2a1b7e4d8f6a0c5b9e2d1f3a4b5c6d7e8f90 on branch feature/ABC-1234-add-login-page.",
    "See https://github.com/pallets/flask/blob/main/src/flask/app.py#L1420 for details.",
    "The video is at https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s",
    "The doc lives at https://docs.google.com/document/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit",
    "Logs are in /var/log/nginx/access.log and ~/Library/Application Support/HindsightDesktop/logs.",
    "The config file is C:\\Users\\Anna\\AppData\\Roaming\\Code\\User\\settings.json",
    "Request id 550e8400-e29b-41d4-a716-446655440000 failed with HTTP 503 at 14:32:07.",
    "Use the getUserAccountSettingsById method from UserAccountServiceImpl.",
    "I bought an iPhone15ProMax with 256GB for 8999 yuan on 11/11.",
    "The password policy requires 12 characters and a digit.",
    "I changed my password yesterday because the old one expired.",
    "Remember the token bucket rate limit is 100 requests per minute.",
    "The secret to good bread is a long, slow rise.",
    "Flight CA981 departs Beijing at 13:00 and lands in New York at 14:30 local time.",
    "The meeting moved to Thursday 2026-12-10 at 09:30 in room 4B-201.",
    "Docker image python:3.12-slim-bookworm runs our tests; the digest starts with e3b0c442.",
    "Kubernetes pod api-server-7d9f8b6c5d-x2k4p restarted 3 times.",
    "The ISBN of the book is 978-0-13-468599-1.",
    "Base rent is $2,450.00/month; deposit of $4,900 paid by check #1043.",
    "My passport expires in March, renew it before the Tokyo trip.",
    "The API key rotation happens every 90 days.",
    "Run pytest -x -q tests/test_redact.py -k secrets before merging.",
    "ProductKey lookups go through LicenseManagerServiceV2Client in the admin module.",
    "My password is too long for that form, so I use a shorter one there.",
    "我家地址是北京市海淀区中关村大街27号3单元502室。",
    "订单号 20261201123456789 已发货，预计12月5日送达。",
    "我的手机号是13800138000，有事打给我。",
    "版本 3.2.1 修复了登录问题，提交号 a1b2c3d。",
    "密码是多少？我忘了。",
    "明天下午三点在会议室A开会，记得带笔记本电脑。",
    "我的护照快过期了，要在下个月续签。",
    "把文件放在 /home/zhang/projects/notes/2026-12.md 里。",
    "快递单号SF1234567890123，顺丰的。",
    "身份证明天要带去银行办业务。",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact_secrets(text) == (text, [])


def test_enough_ordinary_sentences_are_tried() -> None:
    assert len(ORDINARY) >= 30


@pytest.mark.parametrize(
    ("text", "identifier", "kind"),
    [
        ("身份证号 11010519491231002X，请保管好", "11010519491231002X", "id_number"),
        ("my passport number is E12345678", "E12345678", "passport"),
        ("我的护照号码是G87654321", "G87654321", "passport"),
        ("pay to IBAN DE89 3704 0044 0532 0130 00 by Friday", "DE89 3704 0044 0532 0130 00", "iban"),
        ("IBAN GB82WEST12345698765432", "GB82WEST12345698765432", "iban"),
        ("call the landlord on +44 20 7946 0958", "+44 20 7946 0958", "phone"),
        ("我的手机号是13800138000，有事打给我", "13800138000", "phone"),
        ("office (415) 555-0132", "(415) 555-0132", "phone"),
    ],
)
def test_personal_identifiers_only_when_asked(text: str, identifier: str, kind: str) -> None:
    assert redact_secrets(text) == (text, []), "kept by default"
    redacted, kinds = redact_secrets(text, personal=True)
    assert identifier not in redacted and kinds == [kind]
    assert f"[REDACTED:{kind}]" in redacted


@pytest.mark.parametrize(
    "text",
    [
        "身份证号 110105194912310021",  # wrong check character
        "IBAN DE89 3704 0044 0532 0130 01",  # fails mod 97
        "order 20261201123456789 shipped on 2026-12-01",
        "the passport office opens at 9",
    ],
)
def test_personal_switch_checks_more_than_the_shape(text: str) -> None:
    assert redact_secrets(text, personal=True) == (text, [])


def test_identifier_checks() -> None:
    assert resident_id_ok("11010519491231002X") and not resident_id_ok("11010519491331002X")
    assert iban_ok("GB82 WEST 1234 5698 7654 32") and not iban_ok("GB83WEST12345698765432")


def test_randomness_check_keeps_names_hashes_and_ids() -> None:
    for word in (
        "getUserAccountSettingsById",
        "3f9c2a1b7e4d8f6a0c5b9e2d1f3a4b5c6d7e8f90",
        "550e8400-e29b-41d4-a716-446655440000",
        "SN-2024-AB12-CD34-EF56-GH78",
        "my-long-file-name-with-many-parts-2024",
    ):
        assert not looks_random(word), word
    assert looks_random("sNOBAGx5diFoNPcbdaKwtgHwIoALtLin")


def test_metadata_values_and_keys_are_redacted() -> None:
    meta = {
        "password": "correct horse",
        "DB_TOKEN": "abc",
        "pin": 4821,
        "max_tokens": 100,
        "note": "key sk-proj-cqe28_ajY75FnCttn6kfaqDeMqG3omjMyXHCabM6JOF8EFd0",
        "ghp_AVHnyrvWdFrK9xiRGHOY32nfr5pyzPCB9t20": True,
        "nested": [{"数据库密码": "abc123"}],
        "tag": "work",
    }
    out, kinds = redact_tree(meta)
    assert out == {
        "password": "[REDACTED:password]",
        "DB_TOKEN": "[REDACTED:api_key]",
        "pin": "[REDACTED:pin]",
        "max_tokens": 100,
        "note": "key [REDACTED:api_key]",
        "[REDACTED:api_key]": True,
        "nested": [{"数据库密码": "[REDACTED:password]"}],
        "tag": "work",
    }
    assert len(kinds) == 6


def test_metadata_named_personal_identifiers_follow_the_setting() -> None:
    meta = {"passport": "E12345678", "mobile": 13800138000, "护照号码": "G87654321", "phone_model": "Pixel 9"}
    assert redact_tree(meta) == (meta, [])
    out, kinds = redact_tree(meta, personal=True)
    assert out == {
        "passport": "[REDACTED:passport]",
        "mobile": "[REDACTED:phone]",
        "护照号码": "[REDACTED:passport]",
        "phone_model": "Pixel 9",
    }
    assert kinds == ["passport", "phone", "passport"]


def test_session_ids_keep_their_randomness_but_lose_secrets() -> None:
    assert redact_session_id("sess_sNOBAGx5diFoNPcbdaKwtgHwIoALtLin") == ("sess_sNOBAGx5diFoNPcbdaKwtgHwIoALtLin", [])
    assert redact_session_id("ghp_AVHnyrvWdFrK9xiRGHOY32nfr5pyzPCB9t20") == ("[REDACTED:api_key]", ["api_key"])
    assert redact_session_id(None) == (None, [])


def test_personal_ids_setting_is_validated_and_saved(tmp_path) -> None:
    assert Settings().redact_personal_ids is False
    with pytest.raises(InvalidInput, match="redact_personal_ids"):
        Settings(redact_personal_ids="yes").validate()  # type: ignore[arg-type]
    path = tmp_path / "settings.json"
    Settings(redact_personal_ids=True).save(path)
    assert Settings.load(path).redact_personal_ids is True

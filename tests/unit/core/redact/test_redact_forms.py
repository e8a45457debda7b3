"""Secrets in the forms issue 17 found stored in clear: Chinese connectors, full-width forms, hidden
characters and look-alike letters inside the keyword, words between keyword and value, PINs, CVVs and
one-time codes, command lines, URL passwords with "/", secret metadata keys and numbers, labels.
Each secret below is made up; each sentence is redacted to exactly the expected text, so what the
person wrote outside the secret is checked byte for byte."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hindsight_desktop.core import validate
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.redact.normalise import INVISIBLE, view
from hindsight_desktop.core.redact.records import redact_label, redact_tree
from hindsight_desktop.core.redact.text import redact_secrets

P = "[REDACTED:password]"
PIN = "[REDACTED:pin]"
CVV = "[REDACTED:cvv]"
OTP = "[REDACTED:otp]"
URL = "[REDACTED:connection_string]"
CARD = "[REDACTED:card_number]"
KEY = "[REDACTED:api_key]"

# (text, the text after redaction)
FORMS = [
    # Chinese keyword + connector, with or without colon and spaces
    ("我的银行卡密码是：hunter2", f"我的银行卡密码是：{P}"),
    ("wifi密码 Xk9mq2zz", f"wifi密码 {P}"),
    ("邮箱密码就是qwe!@#456，别外传", f"邮箱密码就是{P}，别外传"),
    ("门禁密码叫 Lotus2024", f"门禁密码叫 {P}"),
    ("路由器的管理密码为admin@123", f"路由器的管理密码为{P}"),
    ("服务器密码一直是 Zq81kk!m", f"服务器密码一直是 {P}"),
    ("网盘密码改成了Velvet6636#", f"网盘密码改成了{P}"),
    ("PIN码是 9527", f"PIN码是 {PIN}"),
    ("银行卡PIN码就是0815", f"银行卡PIN码就是{PIN}"),
    ("短信验证码：553201，五分钟有效", f"短信验证码：{OTP}，五分钟有效"),
    ("信用卡背面的安全码是 739", f"信用卡背面的安全码是 {CVV}"),
    # full-width forms
    ("支付密码是１２３４５６", f"支付密码是{P}"),
    ("ｐａｓｓｗｏｒｄ：Ｈｕｎｔｅｒ２", f"ｐａｓｓｗｏｒｄ：{P}"),
    ("卡号 ４１１１　１１１１　１１１１　１１１１ 下月到期", f"卡号 {CARD} 下月到期"),
    # invisible characters and look-alike letters inside the keyword
    ("the pass\u200bword is Orbit6804", f"the pass\u200bword is {P}"),
    ("pass\u00adcode: Maple2291", f"pass\u00adcode: {P}"),
    ("api\U000e0041_key=a8f3k2m9q1z7x9", f"api\U000e0041_key={KEY}"),
    ("密\u200d码是 Ember1641", f"密\u200d码是 {P}"),
    ("раssword: Tulip7781", f"раssword: {P}"),  # Cyrillic р and а
    ("my ΡΙΝ is 4821", f"my ΡΙΝ is {PIN}"),  # Greek capitals
    # English "is"/"was", words between keyword and value
    ("my bank PIN is 4821", f"my bank PIN is {PIN}"),
    ("the password I use everywhere is Quartz4594", f"the password I use everywhere is {P}"),
    (
        "the password we picked for the shared drive was Orbit1836%",
        f"the password we picked for the shared drive was {P}",
    ),
    ("the admin password was reset to Nectar3746", f"the admin password was reset to {P}"),
    ("my email pw is kitty123", f"my email pw is {P}"),
    ("my password's hunter2", f"my password's {P}"),
    ("密码设置成了 abc12345", f"密码设置成了 {P}"),
    ("Password for the NAS -> Blu3Moon", f"Password for the NAS -> {P}"),
    ("CVV is 123", f"CVV is {CVV}"),
    ("card ending 4242, cvc 019", f"card ending 4242, cvc {CVV}"),
    ("the one-time code is 482913", f"the one-time code is {OTP}"),
    ("OTP 918273 expires in 5 minutes", f"OTP {OTP} expires in 5 minutes"),
    ("recovery code: 7hk2-9xq3", f"recovery code: {OTP}"),
    ("the door code is 5512", f"the door code is {PIN}"),
    # command lines and shell variables
    ("mysql -u root -pS3cr3t shop", f"mysql -u root -p{P} shop"),
    ("mysql --password=S3cr3t -e 'show tables'", f"mysql --password={P} -e 'show tables'"),
    ("curl -u admin:S3cr3t https://ci.example.net", f"curl -u admin:{P} https://ci.example.net"),
    ("sshpass -p 'Tr0ub4dor' ssh pi@raspberrypi.local", f"sshpass -p '{P}' ssh pi@raspberrypi.local"),
    ("PGPASSWORD=S3cr3t psql -h db", f"PGPASSWORD={P} psql -h db"),
    ("docker login -u anna -p Hunter2go registry.example.com", f"docker login -u anna -p {P} registry.example.com"),
    ("redis-cli -a Cache9pass ping", f"redis-cli -a {P} ping"),
    # URL passwords with "/" or "@"
    (
        "git clone https://anna:gh0st/pass@github.com/org/repo.git",
        f"git clone https://anna:{URL}@github.com/org/repo.git",
    ),
    ("mysql://root:Nec@tar64/x@127.0.0.1:3306/shop", f"mysql://root:{URL}@127.0.0.1:3306/shop"),
    # other languages
    ("пароль: hunter2", f"пароль: {P}"),
    ("パスワードは hunter2です", f"パスワードは {P}です"),
]


@pytest.mark.parametrize(("text", "expected"), FORMS, ids=[f[0][:30] for f in FORMS])
def test_each_form_is_redacted_and_nothing_else_changes(text: str, expected: str) -> None:
    out, kinds = redact_secrets(text)
    assert out == expected
    assert kinds
    assert redact_secrets(out) == (out, []), "redacting twice changes nothing"


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
    "the wifi password at grandma's is on the fridge",
    "Run mysql -u root -p and type it when asked.",
    "curl -u $USER:$TOKEN https://api.example.com",
    'sshpass -p "$SSHPASS" ssh host',
    "docker run -u 1000:1000 alpine",
    "export PWD=/home/anna/projects",
    "See https://example.com:8443/docs/@anna for the profile.",
    "IBAN DE89 3704 0044 0532 0130 01",
    "我在上密码学课程，下周考试。",
    "密码学的基础是数论。",
    "密码箱放在衣柜里。",
    "密码错误三次会被锁定。",
    "银行卡密码是6位数字。",
    "验证码发到了我手机上。",
    "把PIN码记在心里，不要写下来。",
    "安全码在卡背面。",
    "wifi密码改了吗？",
    "密码长度至少8位。",
    "这个验证码5分钟内有效。",
    "ＰＩＮ码在信封里",
    "the ｐａｓｓｗｏｒｄ policy changed",
    "пароль не менять",
    "\u200bhidden\u2060 marks stay in ordinary text\u00ad",
    "Password: ********",
    "api_key=${API_KEY}",
    "the password is: (see vault)",
    "password: $DB_PASS",
    "The Wi-Fi network key is printed on the router.",
    "token: <redacted>",
    "the password's length is 12",
]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_ordinary_text_with_the_same_words_is_untouched(text: str) -> None:
    assert redact_secrets(text) == (text, [])


def test_invisible_characters_outside_the_secret_are_kept_byte_for_byte() -> None:
    text = "\u200bnote\U000e0020: the pass\u00adword is Xk9mq2zz\u2060 — 密\u200b码：Lotus2024\ufeff ok"
    out, kinds = redact_secrets(text)
    assert out == f"\u200bnote\U000e0020: the pass\u00adword is {P}\u2060 — 密\u200b码：{P}\ufeff ok"
    assert kinds == ["password", "password"]
    assert out.encode("utf-8").replace(P.encode(), b"") == text.encode("utf-8").replace(b"Xk9mq2zz", b"").replace(
        b"Lotus2024", b""
    )


def test_a_hidden_character_inside_the_value_is_redacted_with_it() -> None:
    assert redact_secrets("password: Xk9\u200bmq2zz for the NAS") == (f"password: {P} for the NAS", ["password"])


def test_the_invisible_class_holds_every_format_character_python_knows() -> None:
    missing = [
        f"U+{c:04X}"
        for c in range(sys.maxunicode + 1)
        if unicodedata.category(chr(c)) == "Cf" and not INVISIBLE.match(chr(c))
    ]
    assert not missing


def test_the_view_maps_every_character_back() -> None:
    text = "ｐａｓ\u200bｓ：１２"
    seen = view(text)
    assert seen.text == "pass:12"
    assert seen.original(0, len(seen.text)) == (0, len(text))
    assert seen.original(5, 7) == (len(text) - 2, len(text))


def test_secret_metadata_keys_and_numbers_are_redacted() -> None:
    meta = {
        "cvv": 123,
        "otpCode": "482913",
        "creds": "admin/hunter2",
        "pin": 4821,
        "passcode": 9921,
        "token": 918273645501,
        "user.authToken": 77,
        "ｐａｓｓｗｏｒｄ": "Xk9",
        "验证码": 553201,
        "pass\u200bword": "x",
    }
    out, kinds = redact_tree(meta)
    assert all(isinstance(v, str) and v.startswith("[REDACTED:") for v in out.values()), out
    assert len(kinds) == len(meta)
    counts = {
        "max_tokens": 4096,
        "prompt_tokens": 12,
        "tokens": 88,
        "pinned": True,
        "otp_enabled": True,
        "pin_color": "red",
        "n": 3,
    }
    assert redact_tree(counts) == (counts, [])


@pytest.mark.parametrize(
    "token",
    [
        "ghp_AVHnyrvWdFrK9xiRGHOY32nfr5pyzPCB9t20",
        "sk_live_4Qwb8DwkNhFdnXsiVpzz63Ff",
        "glpat-SU8po_799NksnRH9ucAU",
        "sNOBAGx5diFoNPcbdaKwtgHwIoALtLin",
    ],
)
def test_a_label_that_carries_a_token_is_redacted(token: str) -> None:
    for field in ("type", "relation_type"):
        label = validate.label(token, field)
        assert label is not None and token.lower() not in label and label.startswith("redacted")
    assert redact_label("pin-4821") == ("pin-redacted", ["pin"])


@pytest.mark.parametrize("label", ["note", "related_to", "password-reset", "api_key_2", "derived_from", "pinned"])
def test_ordinary_labels_are_kept(label: str) -> None:
    assert validate.label(label, "type") == label


_PIECES = st.sampled_from(
    [
        "密码",
        "是：",
        "就是",
        "叫",
        "PIN码",
        "验证码",
        "CVV",
        " is ",
        "password",
        "pin",
        "the",
        "\u200b",
        "\u00ad",
        "\U000e0041",
        "ｐａｓｓ",
        "１２３４",
        "４１１１　",
        "р",
        "а",
        "-p",
        "mysql ",
        "curl -u a:",
        "sshpass -p ",
        "PGPASSWORD=",
        "://u:",
        "/",
        "@h.io",
        "hunter2",
        "4821",
        " ",
        "，",
        "\n",
        "$X",
        "[REDACTED:pin]",
        "Xk9mq2zz",
        "one-time code ",
        "->",
        "=",
        ":",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=6)), max_size=14).map("".join))
def test_any_mix_of_the_new_forms_redacts_to_a_fixed_point(text: str) -> None:
    once, _ = redact_secrets(text)
    assert redact_secrets(once) == (once, [])


def test_a_refused_label_is_not_echoed_with_its_token() -> None:
    token = "ghp_AVHnyrvWdFrK9xiRGHOY32nfr5pyzPCB9t20"
    with pytest.raises(InvalidInput) as refused:
        validate.label(f"my token is {token}", "type")
    assert token not in str(refused.value) and token.lower() not in str(refused.value)

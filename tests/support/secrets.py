"""Secrets of many kinds, each with what must not leak and the label that must stay readable: the
redaction tests and the storage tests (no secret reaches any file) use the same list."""

from __future__ import annotations

SECRETS: list[tuple[str, list[str], str]] = [
    ("DATABASE_PASSWORD=Xk9#mq2!vLp", ["Xk9#mq2!vLp"], "DATABASE_PASSWORD="),
    (
        "AWS_SECRET_ACCESS_KEY=PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA+",
        ["PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA"],
        "AWS_SECRET_ACCESS_KEY=",
    ),
    ("export MY_API_KEY=a8f3k2m9q1z7", ["a8f3k2m9q1z7"], "MY_API_KEY="),
    (
        "my aws secret key is 2O76UMFxFkM+R5Kjp1vRt/1fjORS+6ilI8ihN5KX, keep it safe",
        ["2O76UMFxFkM+R5Kjp1vRt/1fjORS+6ilI8ihN5KX"],
        "keep it safe",
    ),
    ("aws_access_key_id = AKIAZ4Q7B3KX9LMN2PRT", ["AKIAZ4Q7B3KX9LMN2PRT"], ""),
    ("stripe live key sk_live_4Qwb8DwkNhFdnXsiVpzz63Ff", ["4Qwb8DwkNhFdnXsiVpzz63Ff"], "stripe live key"),
    (
        "new stripe key sk_live_kCzJr4i0B3JrTAwR4y9ojfljoQoaF1LlqsajAIxNKu8iS2G8NPRVdD53X83RZJzzzzgEOzdmen",
        ["kCzJr4i0B3JrTAwR4y9ojfljoQ", "RZJzzzzgEOzdmen"],
        "",
    ),
    ("webhook signing secret whsec_ukB4geqNfngAFTCloiADN5RpVI2XQWhX", ["ukB4geqNfngAFTCloiADN5RpVI2XQWhX"], ""),
    ("gitlab ci token glpat-SU8po_799NksnRH9ucAU", ["SU8po_799NksnRH9ucAU"], "gitlab ci token"),
    ("hugging face token hf_jSI6bWHtP3fS2qHx6kwXoIIXGvOoNZYW2m", ["jSI6bWHtP3fS2qHx6kwXoIIXGvOoNZYW2m"], ""),
    (
        "//registry.npmjs.org/:_authToken=npm_Zp0zVZomHFwUbbYrEqmSM9wCZ7Uw9xfogoEm",
        ["Zp0zVZomHFwUbbYrEqmSM9wCZ7Uw9xfogoEm"],
        "registry.npmjs.org",
    ),
    (
        "publish with npm_Zp0zVZomHFwUbbYrEqmSM9wCZ7Uw9xfogoEm please",
        ["Zp0zVZomHFwUbbYrEqmSM9wCZ7Uw9xfogoEm"],
        "please",
    ),
    ("slack bot xoxb-53799075116-3726516761222-bjL5DZPjN0MEQ7wjJJibaZUP", ["bjL5DZPjN0MEQ7wjJJibaZUP"], ""),
    (
        "slack user xoxp-18263304348-395486205798-6828288072902-54f31af3176813e02ea68ef786e4d3ce",
        ["54f31af3176813e02ea68ef786e4d3ce"],
        "",
    ),
    (
        "alerts go to https://hooks.slack.com/services/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 today",
        ["kQ1okTBGzvAmwufUxbvJDCTb"],
        "hooks.slack.com",
    ),
    (
        "DefaultEndpointsProtocol=https;AccountName=photos;AccountKey=XQLioDnkHIfxIq2HZt/PlJhx2jIclHkCiHp6bR1IqfE"
        "ouHgxzNNAL5wIScGebcy8F5n3/YNBDRzrZSgqbjG3uh==;EndpointSuffix=core.windows.net",
        ["XQLioDnkHIfxIq2HZt", "YNBDRzrZSgqbjG3uh"],
        "AccountKey=",
    ),
    (
        "discord bot token MfQ1y3GQsMpSscDlkrCaqx9v.Jupc94.NBTxaQWk8JzFalHlsZfYcMMDktX",
        ["MfQ1y3GQsMpSscDlkrCaqx9v", "NBTxaQWk8JzFalHlsZfYcMMDktX"],
        "",
    ),
    (
        "https://discord.com/api/webhooks/572492086828890931/dfrUnW5gcF_Ha6ili8GjHEAD6-Wj9KfzjsQGMrb9h_ImB_LK777pzN",
        ["dfrUnW5gcF_Ha6ili8GjHEAD6"],
        "discord.com",
    ),
    ("telegram bot 8452984153:AA-_Ydua_5ZMs1SWOpQaPRYpzbLGViYXjU2", ["Ydua_5ZMs1SWOpQaPRYpzbLGViYXjU2"], ""),
    (
        "curl https://api.telegram.org/bot8452984153:AA-_Ydua_5ZMs1SWOpQaPRYpzbLGViYXjU2/getMe",
        ["Ydua_5ZMs1SWOpQaPRYpzbLGViYXjU2"],
        "getMe",
    ),
    (
        "sendgrid 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",
        ["JgJngKtFI3OyV2dZAkg05r", "K_gqv81RKMGHZEM9YpvujA"],
        "",
    ),
    (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGV3pLkBCADk2vQ9xZmT\n=Qk7d\n"
        "-----END PGP PRIVATE KEY BLOCK-----\nok",
        ["lQOYBGV3pLkBCADk2vQ9xZmT", "=Qk7d"],
        "\nok",
    ),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUtZWQ\n-----END OPENSSH PRIVATE KEY-----",
        ["b3BlbnNzaC1rZXktdjEAAAAABG5vbmUtZWQ"],
        "",
    ),
    ("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkq9dPzT4mNwL8", ["MHcCAQEEIBkq9dPzT4mNwL8"], ""),  # no END line
    (
        "PuTTY-User-Key-File-2: ssh-rsa\nPrivate-Lines: 1\nAAAAgQC1x9Zk2Lm\nPrivate-MAC: 8f3a2b9c",
        ["AAAAgQC1x9Zk2Lm"],
        "",
    ),
    (
        "the desktop client token is hsd_1f3BJvc_tWYWRPL2WMM1SKP91TdotTUEZIPQpnVu8rA",
        ["1f3BJvc_tWYWRPL2WMM1SKP91TdotTUEZIPQpnVu8rA"],
        "client token",
    ),
    ("password: correct horse battery staple", ["correct", "horse", "battery", "staple"], "password: "),
    ("the wifi password is purple monkey dishwasher. see you at 8", ["purple", "monkey", "dishwasher"], "see you at 8"),
    ("my password is Tr0ub4dor&3, do not share it", ["Tr0ub4dor&3"], "do not share it"),
    ('{"password": "hunter2000", "user": "anna"}', ["hunter2000"], '"user": "anna"'),
    ("DB_PASS=hunter2000 and PIN: 4821", ["hunter2000", "4821"], ""),
    ("我的密码是 Tr0ub4dor&3，别告诉别人", ["Tr0ub4dor&3"], "别告诉别人"),
    ("保险箱口令：open sesame 42", ["sesame"], "保险箱口令"),
    ("服务器的密钥是 9f8e7d6c5b4a3x", ["9f8e7d6c5b4a3x"], "服务器的密钥是"),
    (
        "OpenAI 的 API key 是 sk-proj-cqe28_ajY75FnCttn6kfaqDeMqG3omjMyXHCabM6JOF8EFd0",
        ["cqe28_ajY75FnCttn6kfaqDeMqG3omjMyXHCabM6JOF8EFd0"],
        "API key 是",
    ),
    ("测试环境 API key 是 a8f3k2m9q1z7", ["a8f3k2m9q1z7"], "测试环境"),
    ("github token ghp_AVHnyrvWdFrK9xiRGHOY32nfr5pyzPCB9t20", ["AVHnyrvWdFrK9xiRGHOY32nfr5pyzPCB9t20"], ""),
    (
        "claude key sk-ant-api03-Nhcy-1kGD2VD-eR1UYzaLiA-zNyD7CHLn-xC_1hsYgBds1ghxY5OokvQyx7eNWVQ4vnak",
        ["Nhcy-1kGD2VD-eR1UYzaLiA"],
        "",
    ),
    ("maps key AIzafWe7ihGyiRUIQfHOJMaidDn87XG3-q-xbMt", ["fWe7ihGyiRUIQfHOJMaidDn87XG3"], ""),
    (
        "id token eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.LLJIVGHz4FxFEtKyPiYGFDm7ena8D5VfLDpgyy.xNjAe-9i0mYtluYI0KN1gNT1",
        ["LLJIVGHz4FxFEtKyPiYGFDm7ena8D5VfLDpgyy"],
        "",
    ),
    ("mailchimp c5cb347611a3ce9d97dcbee500fe7ee5-us14", ["c5cb347611a3ce9d97dcbee500fe7ee5"], ""),
    ("square oauth sq0csp-nuSsddfrfifiUziXnFAAoeelK9mqmALOR2HcSGKgVP8", ["nuSsddfrfifiUziXnFAAoeelK9mqmALOR2"], ""),
    ("groq 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", ["2sNVbYAbBHXgwETdIKnT30fK0skBaHmsWWda"], ""),
    ("shopify admin 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", ["5967f532f3ab3cc2d0b698d5c7e41ba4"], ""),
    (
        "session cookie sNOBAGx5diFoNPcbdaKwtgHwIoALtLin for staging",
        ["sNOBAGx5diFoNPcbdaKwtgHwIoALtLin"],
        "for staging",
    ),
    ("reset link https://example.com/reset?user=anna&token=Zx81kq0Lm2Pz9&next=/home", ["Zx81kq0Lm2Pz9"], "&next=/home"),
    ("db is postgres://admin:s3cr3t-Pa55@db.example.com:5432/app", ["s3cr3t-Pa55"], "@db.example.com"),
    ("Authorization: Bearer U8urbFt5misIZHbhS4-FvafhdZxE", ["U8urbFt5misIZHbhS4"], "Bearer "),
    ("card 4111 1111 1111 1111 expires 12/29", ["4111 1111 1111 1111"], "expires 12/29"),
]

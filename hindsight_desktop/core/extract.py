"""Rule-based extraction for the write pipeline: secrets, entities, dates and single-valued facts.

Everything here is plain regular expressions and small word lists, in English and Chinese, so it is
fast, deterministic and private. Date rules and week semantics live in extract_dates.py, secret
rules in redact.py; this module re-exports the public functions.

Entity values: names and places are lower-cased as written (北京 stays 北京, Beijing becomes
"beijing"). Entities are deduplicated by (kind, value) and returned in text order. Fact values
(fact_key) for residence/employer map known Chinese places and companies to their English name,
so that "I live in Beijing" and "我住在北京" are the same fact rather than a contradiction.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.extract_dates import Found, cn_to_int, find_dates, find_times
from hindsight_desktop.core.models import Entity
from hindsight_desktop.core.redact import redact_secrets

__all__ = ["extract_entities", "fact_key", "redact_secrets", "resolve_dates"]

CJK = "\u4e00-\u9fff"


def _words(text: str) -> list[str]:
    """A word list written as one string, for readability."""
    return text.split()


# ---- word lists ----------------------------------------------------------------------------------

_PLACES_EN = _words(
    "Beijing Shanghai Shenzhen Guangzhou Hangzhou Chengdu Wuhan Nanjing Chongqing Tianjin Suzhou Xi'an Xiamen "
    "Qingdao Taipei Macau Tokyo Osaka Kyoto Seoul Singapore Bangkok Hanoi Jakarta Manila Mumbai Delhi Sydney "
    "Melbourne Auckland Paris London Berlin Munich Rome Milan Madrid Barcelona Lisbon Amsterdam Vienna Zurich "
    "Geneva Prague Stockholm Copenhagen Oslo Dublin Moscow Istanbul Dubai Cairo Seattle Chicago Boston Toronto "
    "Vancouver Montreal China Japan Korea Taiwan India Australia France Germany Italy Spain Portugal Canada "
    "Mexico Brazil Russia Thailand Vietnam Switzerland Netherlands Sweden Norway Ireland Egypt Greece America "
    "England Britain Scotland USA UK NYC"
) + [
    "New York", "San Francisco", "Los Angeles", "Hong Kong", "Las Vegas", "Washington DC", "Mexico City",
    "United States", "United Kingdom", "New Zealand", "South Korea", "Silicon Valley",
]
_PLACES_ZH = _words(
    "北京 上海 深圳 广州 杭州 成都 武汉 南京 重庆 天津 苏州 西安 厦门 青岛 香港 澳门 台北 东京 大阪 京都 首尔 新加坡 曼谷 "
    "悉尼 墨尔本 巴黎 伦敦 柏林 慕尼黑 罗马 米兰 马德里 巴塞罗那 阿姆斯特丹 维也纳 莫斯科 迪拜 纽约 旧金山 洛杉矶 西雅图 "
    "芝加哥 波士顿 多伦多 温哥华 中国 日本 韩国 美国 英国 法国 德国 意大利 西班牙 加拿大 澳大利亚 印度 俄罗斯 巴西 泰国 越南 "
    "瑞士 荷兰 新西兰"
)
_ORGS = _words(
    "Google Microsoft Apple Amazon Meta Facebook OpenAI Anthropic Netflix Tesla Nvidia NVIDIA IBM Intel Samsung "
    "Sony Huawei Tencent Alibaba ByteDance Baidu Xiaomi Meituan DeepMind Uber Airbnb Spotify Oracle Adobe "
    "Salesforce Toyota NetEase TikTok 华为 腾讯 阿里巴巴 阿里 字节跳动 字节 百度 小米 美团 京东 网易 拼多多 微软 谷歌 苹果公司 亚马逊"
)
# Chinese -> English for the bilingual entries, so fact values agree across languages
# ("I live in Beijing" and "我住在北京" must not look like a contradiction).
_ZH_TO_EN = dict(
    pair.split("=")
    for pair in _words(
        "北京=beijing 上海=shanghai 深圳=shenzhen 广州=guangzhou 杭州=hangzhou 成都=chengdu 武汉=wuhan 南京=nanjing "
        "重庆=chongqing 天津=tianjin 苏州=suzhou 西安=xi'an 厦门=xiamen 青岛=qingdao 香港=hong_kong 澳门=macau "
        "台北=taipei 东京=tokyo 大阪=osaka 京都=kyoto 首尔=seoul 新加坡=singapore 曼谷=bangkok 悉尼=sydney "
        "墨尔本=melbourne 巴黎=paris 伦敦=london 柏林=berlin 慕尼黑=munich 罗马=rome 米兰=milan 马德里=madrid "
        "巴塞罗那=barcelona 阿姆斯特丹=amsterdam 维也纳=vienna 莫斯科=moscow 迪拜=dubai 纽约=new_york "
        "旧金山=san_francisco 洛杉矶=los_angeles 西雅图=seattle 芝加哥=chicago 波士顿=boston 多伦多=toronto "
        "温哥华=vancouver 中国=china 日本=japan 韩国=korea 美国=usa 英国=uk 法国=france 德国=germany "
        "意大利=italy 西班牙=spain 加拿大=canada 澳大利亚=australia 印度=india 俄罗斯=russia 巴西=brazil "
        "泰国=thailand 越南=vietnam 瑞士=switzerland 荷兰=netherlands 新西兰=new_zealand 华为=huawei "
        "腾讯=tencent 阿里巴巴=alibaba 阿里=alibaba 字节跳动=bytedance 字节=bytedance 百度=baidu 小米=xiaomi "
        "美团=meituan 京东=jd 网易=netease 微软=microsoft 谷歌=google 亚马逊=amazon 苹果公司=apple"
    )
)
_ORG_SUFFIX_EN = (
    r"Inc\.?|Incorporated|Corp\.?|Corporation|Ltd\.?|Limited|LLC|GmbH|PLC|Co\.|Company|University|College|"
    r"Institute|Bank|Group|Foundation|Hospital|Labs?|Technologies|Airlines|Agency|Association|Studios?|Ventures"
)
_ORG_SUFFIX_ZH = "有限公司|公司|大学|银行|集团|医院|学院|研究院|研究所|中学|小学|事务所|工作室"
_PLACE_SUFFIX_EN = (
    r"Street|Road|Avenue|Park|Airport|Station|Beach|Lake|River|Mountains?|Island|Bay|Square|Bridge|Museum|"
    r"Hotel|Valley|County|Province|City|Village|Falls|Temple|Palace|Tower|Mall|Gardens?|Zoo|Cathedral"
)
# Capitalised words that are not names: sentence starters, pronouns, time words, languages...
_NOT_NAMES = frozenset(
    _words("""The A An I Me My Mine We Our Us You Your He His Him She Her It Its They Their Them This That These Those
    There Here What When Where Which Who Whom Whose Why How If Then So But And Or Nor Yet Also Just Still
    Maybe Perhaps Please Thanks Thank Hi Hello Hey Dear Yes No Not Ok Okay Oh Well Sure Sorry Today Tonight
    Tomorrow Yesterday Now Later Soon Next Last Every Each Some Any All Both Many Much Most More Few Other
    Another Such After Before During Since Until While Because Although Though However Anyway Actually Also
    Let Lets Remember Note Update Reminder Do Does Did Don't Is Are Was Were Be Been Am Has Have Had Can
    Could Would Should Will Shall May Might Must In On At To From For With Without About Into Over Under
    Between Through By Of Off Up Down Out Around Near Monday Tuesday Wednesday Thursday Friday Saturday
    Sunday January February March April June July August September October November December Morning
    Evening Afternoon Night Week Month Year English Chinese French German Japanese Spanish Italian Korean
    American British European Asian Christmas Easter Thanksgiving Halloween Internet God Mr Mrs Ms Dr
    Prof Went Got Met Called Told Said Asked Went Had Made Took Saw Bought Moved Started Finished Visited
    Love Like Need Want Going Meet Meeting Call Email Check Buy Get Make Take Send Tell Ask Find Try Use""")
)
# After a sentence-initial capitalised word these mark an imperative ("Pick up", "Order the"), not a name.
_OBJECT_WORDS = frozenset(
    _words(
        "the a an my your his her our their up out off some this that these those me him them us it to all more "
        "next last at on in with for by before after today tonight tomorrow again back soon later"
    )
)
_CN_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范"
    "金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
)
_CN_COMPOUND = ("欧阳", "司马", "诸葛", "上官", "东方", "慕容", "令狐")
_CN_BEFORE = (
    "朋友", "同事", "老板", "老师", "同学", "哥哥", "姐姐", "弟弟", "妹妹", "老婆", "老公", "女朋友", "男朋友", "妻子",
    "丈夫", "太太", "室友", "邻居", "经理", "和", "跟", "与", "给", "叫", "见了", "遇到", "遇见", "告诉", "认识", "陪",
)
_CN_AFTER_STRONG = ("说", "告诉", "问", "觉得", "认为", "让", "打电话", "发消息")
_CN_AFTER = _CN_AFTER_STRONG + (
    "是", "的", "和", "跟", "来", "去", "在", "要", "想", "给", "买", "送", "也", "还", "都", "今天", "明天", "昨天",
    "刚", "已经", "一起", "住", "喜欢", "知道", "约", "开", "吃", "见", "聊", "玩", "看", "做", "回", "出", "到", "走",
    "聚", "结婚", "分手",
)
_CN_NOT_IN_NAME = frozenset("的了是在和跟与说去来也都还就要想我你他她它们这那个不没很吗呢吧啊给把被从到对让用有地得着过")
_CN_COMMON_WORDS = frozenset(
    _words(
        "马上 高兴 方便 白天 任何 于是 万一 夏天 黄色 白色 金色 程序 江湖 向前 许多 高中 高速 石头 毛病 钱包 方法 方面 方向 史上 "
        "黄金 金融 余额 马路 高铁 曾经 严重 范围 何时 周围 周年 周期 叶子 孙子 董事 常常 关于 龙虾 程度 高级 白菜 万元 钱都"
    )
)
_AIRLINES = frozenset(
    _words(
        "CA MU CZ HU ZH FM MF HO 3U 9C SC UA AA DL WN AS B6 BA LH AF KL LX OS SK AY IB AZ TK EK QR EY SQ CX KA JL NH "
        "KE OZ TG VN MH CI BR QF NZ AC AI"
    )
)
_CURRENCY = {
    "$": "usd", "€": "eur", "£": "gbp", "¥": "cny", "￥": "cny", "元": "cny", "块": "cny", "块钱": "cny",
    "人民币": "cny", "美元": "usd", "欧元": "eur", "英镑": "gbp", "日元": "jpy", "usd": "usd", "dollars": "usd",
    "dollar": "usd", "bucks": "usd", "euros": "eur", "euro": "eur", "rmb": "cny", "yuan": "cny",
}


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


# ---- patterns ------------------------------------------------------------------------------------

_EMAIL = re.compile(r"(?<![\w.%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_URL = re.compile(
    r"\b(?:https?://|www\.)[^\s<>\"'，。）]+"
    r"|(?<![@\w.-])(?:[a-z0-9][a-z0-9-]*\.)+(?:com|org|net|io|ai|dev|cn|app)\b(?:/[^\s<>\"'，。）]*)?"
)
_PHONE = re.compile(
    r"(?<![\d+])(?:\+?86[\s-]?)?1[3-9]\d(?:[\s-]?\d{4}){2}(?!\d)"
    r"|(?<![\w+])\+\d{1,3}[\s.-]?(?:\(\d{1,4}\)[\s.-]?)?\d{1,4}(?:[\s.-]?\d{2,4}){1,4}(?!\d)"
    r"|(?<!\d)(?:\(\d{3}\)\s?|\d{3}[.-])\d{3}[.-]\d{4}(?!\d)"
)
_FLIGHT = re.compile(r"\b(?P<a>[A-Z]{2}|[A-Z]\d|\d[A-Z])(?P<sp>\s?)(?P<n>\d{2,4})(?![A-Za-z0-9])")
_ROOM = re.compile(
    r"\b(?P<k>[Rr]oom|[Rr]m\.?|[Ss]uite|[Gg]ate|[Ss]eat|[Aa]pt\.?|[Aa]partment|[Uu]nit|[Pp]latform|[Tt]erminal)"
    r"\s*#?\s?(?P<n>[A-Z]?\d{1,5}[A-Z]?)(?![A-Za-z0-9])"
    r"|(?<![A-Za-z0-9])(?P<n2>[A-Z]?\d{1,5}[A-Z]?)\s*(?P<k2>号房间|号房|房间|室|号登机口|登机口)"
    r"|(?P<k3>房间|登机口)\s*(?P<n3>[A-Z]?\d{1,5}[A-Z]?)(?![A-Za-z0-9])"
)
_VERSION = re.compile(
    r"(?<![\w.])(?:[vV](?P<a>\d+(?:\.\d+){0,3})|(?P<b>\d+\.\d+\.\d+(?:\.\d+)?)"
    r"|(?:[Vv]ersion|ver\.?)\s+(?P<c>\d+(?:\.\d+)*))(?!\.?\w)"
)
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_MONEY = re.compile(
    r"(?P<cur>[$€£¥￥])\s?(?P<n>" + _NUMBER + r")(?:\s?(?P<mult>[kKmM]|million|billion)\b)?"
    r"|(?<![A-Za-z0-9.])(?P<n2>" + _NUMBER + r")\s?(?P<cur2>块钱|人民币|美元|欧元|英镑|日元|元|块|(?i:usd|dollars?|bucks|euros?|rmb|yuan)(?![A-Za-z]))"
)
_UNIT = re.compile(
    r"(?<![A-Za-z0-9.])(?P<n>" + _NUMBER + r")\s?(?P<u>%|(?i:percent|kgs?|mg|g|lbs?|km|miles?|mi|cm|mm|ml|m|l|gb|mb|tb|kb"
    r"|hours?|hrs?|minutes?|mins?|seconds?|secs?|days?|weeks?|months?|years?|yrs?|people|times|steps|kcal|calories)"
    r"(?![A-Za-z])|°[CF]|公斤|千克|克|公里|千米|厘米|米|斤|岁|个|人|次|小时|分钟|天|年|页|本)"
)
# A token with both letters and digits (booking refs, order numbers); the length check is in _numbers.
_ORDER = re.compile(
    r"(?<![A-Za-z0-9-])(?=[A-Za-z0-9-]*[A-Za-z])(?=[A-Za-z0-9-]*\d)[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9](?![A-Za-z0-9-])"
)
_PLAIN_NUMBER = re.compile(r"(?<![A-Za-z0-9.,])(?:" + _NUMBER + r")(?![A-Za-z0-9]|[.,]\d)")
_KNOWN_ORG = re.compile(r"(?<![A-Za-z])(?:" + _alternation(_ORGS) + r")(?![A-Za-z])")
_ORG_EN = re.compile(
    r"\b(?:[A-Z][a-z]+\s+)?(?:University|Bank|Institute|College) of(?:\s+[A-Z][a-z]+){1,3}"
    r"|\b(?:[A-Z][A-Za-z&'-]*\s+){1,4}(?:" + _ORG_SUFFIX_EN + r")(?![A-Za-z])"
)
_KNOWN_PLACE = re.compile(
    r"(?<![A-Za-z])(?:" + _alternation(_PLACES_EN) + r")(?![A-Za-z])|" + _alternation(_PLACES_ZH)
)
_PLACE_CONTEXT = re.compile(r"\b(?:[A-Z][a-z]+\s+){1,3}(?:" + _PLACE_SUFFIX_EN + r")\b")
_PLACE_CUE = re.compile(
    r"\b(?:live[sd]?|living|based|born|located|moved|moving|relocated|travel(?:l)?ed|flew|flying|trip|"
    r"vacation|holiday|arrived|landed|I'm|I am|comes?|came)\s+(?:back\s+)?(?:in|to|from)\s+"
    r"(?P<p>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)(?!['’]s)\b"
)
_TITLE_NAME = re.compile(r"\b(?:Mr|Mrs|Ms|Miss|Dr|Prof|Professor|Sir|Aunt|Uncle)\.?\s+[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?")
_CAP_RUN = re.compile(r"\b[A-Z][a-z]+(?:-[A-Z][a-z]+)?(?:\s+[A-Z][a-z]+(?:-[A-Z][a-z]+)?){0,2}\b")


# ---- entity extraction ---------------------------------------------------------------------------


class _Collector:
    """Collects entities while remembering which characters are already claimed by an earlier kind."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.taken: list[tuple[int, int]] = []
        self.found: list[tuple[int, Entity]] = []

    def free(self, start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in self.taken)

    def add(self, kind: str, start: int, end: int, value: str) -> bool:
        if start >= end or not value or not self.free(start, end):
            return False
        self.taken.append((start, end))
        self.found.append((start, Entity(kind, self.text[start:end], value)))
        return True

    def entities(self) -> list[Entity]:
        seen: set[tuple[str, str]] = set()
        result = []
        for _, entity in sorted(self.found, key=lambda item: item[0]):
            if (entity.kind, entity.value) not in seen:
                seen.add((entity.kind, entity.value))
                result.append(entity)
        return result


def _strip_trailing(text: str, start: int, end: int, chars: str = ".,;:!?)]}'\"") -> int:
    while end > start and text[end - 1] in chars:
        end -= 1
    return end


def _contacts(c: _Collector) -> None:
    for m in _EMAIL.finditer(c.text):
        c.add("email", m.start(), m.end(), m.group(0).lower())
    for m in _URL.finditer(c.text):
        end = _strip_trailing(c.text, m.start(), m.end())
        url = c.text[m.start() : end]
        # Scheme and host are case-insensitive, the path is not.
        scheme, sep, rest = url.rpartition("://")
        host, slash, path = rest.partition("/")
        c.add("url", m.start(), end, f"{scheme.lower()}{sep}{host.lower()}{slash}{path}")
    for m in _PHONE.finditer(c.text):
        digits = re.sub(r"\D", "", m.group(0))
        c.add("phone", m.start(), m.end(), ("+" if m.group(0).startswith("+") else "") + digits)


def _codes(c: _Collector) -> None:
    for m in _FLIGHT.finditer(c.text):
        # "UA 857" only for known airlines; "CA981" (no space) for any two-character prefix.
        if m.group("sp") and m.group("a") not in _AIRLINES:
            continue
        c.add("code", m.start(), m.end(), (m.group("a") + m.group("n")).lower())
    for m in _ROOM.finditer(c.text):
        kind = (m.group("k") or m.group("k2") or m.group("k3")).lower().rstrip(".")
        kind = {"rm": "room", "apt": "apartment", "号房间": "room", "号房": "room", "房间": "room", "室": "room"}.get(kind, kind)
        kind = "gate" if "登机口" in kind else kind
        c.add("code", m.start(), m.end(), f"{kind} {(m.group('n') or m.group('n2') or m.group('n3')).lower()}")
    for m in _VERSION.finditer(c.text):
        version = m.group("a") or m.group("b") or m.group("c")
        is_ip = m.group("b") and version.count(".") == 3  # 192.168.1.1 is an address, not a version
        c.add("code", m.start(), m.end(), version if is_ip else "v" + version)


def _numbers(c: _Collector) -> None:
    for m in _MONEY.finditer(c.text):
        amount = (m.group("n") or m.group("n2")).replace(",", "")
        currency = _CURRENCY[(m.group("cur") or m.group("cur2")).lower()]
        mult = (m.group("mult") or "").lower()
        c.add("number", m.start(), m.end(), f"{amount}{mult[:1] if mult else ''} {currency}")
    for m in _UNIT.finditer(c.text):
        amount, unit = m.group("n").replace(",", ""), m.group("u")
        value = f"{amount}%" if unit in ("%", "percent") else f"{amount} {unit.lower()}"
        c.add("number", m.start(), m.end(), value)
    for m in _ORDER.finditer(c.text):
        word = m.group(0)
        if len(word) >= 5 and not re.fullmatch(r"\d+(?:st|nd|rd|th|s)", word, re.I):
            c.add("code", m.start(), m.end(), word.lower())
    for m in _PLAIN_NUMBER.finditer(c.text):
        if sum(ch.isdigit() for ch in m.group(0)) >= 2:
            c.add("number", m.start(), m.end(), m.group(0).replace(",", ""))


def _org_char(ch: str) -> bool:
    return bool(re.match(f"[{CJK}]", ch)) and ch not in _CN_NOT_IN_NAME and ch not in "家所位一"


def _orgs_and_places(c: _Collector) -> None:
    text = c.text
    for m in _ORG_EN.finditer(text):
        start = m.start()
        words = m.group(0).split()
        while len(words) > 2 and words[0] in _NOT_NAMES:  # "Yesterday Acme Corp" -> "Acme Corp"
            start = text.index(words[1], start + len(words[0]))
            words.pop(0)
        c.add("org", start, m.end(), text[start : m.end()].lower().rstrip("."))
    for m in re.finditer(_ORG_SUFFIX_ZH, text):
        # Walk back over the name part, stopping at function characters (在/的/我...).
        start = m.start()
        while start > max(0, m.start() - 8) and _org_char(text[start - 1]) and c.free(start - 1, start):
            start -= 1
        if m.start() - start >= 2:
            c.add("org", start, m.end(), text[start : m.end()])
    for m in _KNOWN_ORG.finditer(text):
        c.add("org", m.start(), m.end(), m.group(0).lower())
    for m in _KNOWN_PLACE.finditer(text):
        c.add("place", m.start(), m.end(), m.group(0).lower())
    for m in _PLACE_CONTEXT.finditer(text):
        words = m.group(0).split()
        start = m.start() + (len(words[0]) + 1 if words[0] in _NOT_NAMES and len(words) > 2 else 0)
        c.add("place", start, m.end(), text[start : m.end()].lower())
    for m in _PLACE_CUE.finditer(text):
        if m.group("p").split()[0] not in _NOT_NAMES:
            c.add("place", m.start("p"), m.end("p"), m.group("p").lower())


def _sentence_initial(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return not before or before[-1] in ".!?\"'\n:;"


def _looks_like_subject(text: str, end: int) -> bool:
    """After a sentence-initial word: a name is followed by a verb, an imperative by its object."""
    word = text[:end].split()[-1]
    if len(word) >= 6 and word.endswith(("ing", "ed")):
        return False  # "Running late", "Walked home"
    rest = text[end:]
    if rest[:1] in ("'", "’"):
        return True  # "Caroline's ..."
    nxt = re.match(r"\s*([a-z]+)\b", rest)
    return bool(nxt) and nxt.group(1) not in _OBJECT_WORDS


def _english_people(c: _Collector) -> None:
    text = c.text
    for m in _TITLE_NAME.finditer(text):
        c.add("person", m.start(), m.end(), m.group(0).lower())
    for m in _CAP_RUN.finditer(text):
        # Split the run on non-name words ("Yesterday Caroline" -> "Caroline").
        words = [(w.start() + m.start(), w.end() + m.start(), w.group(0)) for w in re.finditer(r"\S+", m.group(0))]
        run: list[tuple[int, int, str]] = []
        for word in [*words, (0, 0, "The")]:
            if word[2] not in _NOT_NAMES:
                run.append(word)
                continue
            if run:
                start, end = run[0][0], run[-1][1]
                single_initial = len(run) == 1 and _sentence_initial(text, start)
                # "in Lisbon": an unknown capitalised word after "in" is more likely a place than a person.
                after_in = len(run) == 1 and text[max(0, start - 3) : start].lower() == "in "
                if not after_in and not (single_initial and not _looks_like_subject(text, end)):
                    c.add("person", start, end, text[start:end].lower())
            run = []


def _chinese_people(c: _Collector) -> None:
    text = c.text
    for i, ch in enumerate(text):
        if ch in "小老阿" and i + 1 < len(text) and text[i + 1] in _CN_SURNAMES:
            forms = [i + 2]
        elif text.startswith(_CN_COMPOUND, i):
            forms = [i + 3, i + 4]
        elif ch in _CN_SURNAMES:
            forms = [i + 2, i + 3]
        else:
            continue
        before = any(text.endswith(cue, 0, i) for cue in _CN_BEFORE)
        for end in forms:
            name = text[i:end]
            if end > len(text) or not re.fullmatch(f"[{CJK}]+", name) or _CN_NOT_IN_NAME & set(name[1:]):
                continue
            if name in _CN_COMMON_WORDS or not c.free(i, end):
                continue
            boundary = end == len(text) or not re.match(f"[{CJK}]", text[end])
            if (before and (boundary or text.startswith(_CN_AFTER, end))) or text.startswith(_CN_AFTER_STRONG, end):
                c.add("person", i, end, name)
                break


def _check(text: object, reference: object = None, need_reference: bool = False) -> None:
    if not isinstance(text, str):
        raise InvalidInput(f"text must be a string, not {type(text).__name__}")
    if need_reference and not (
        isinstance(reference, datetime) and reference.tzinfo is not None and reference.utcoffset() is not None
    ):
        raise InvalidInput("reference must be a timezone-aware datetime (UTC)")


def _ref_day(reference: datetime) -> date:
    return reference.astimezone(UTC).date()


def resolve_dates(text: str, reference: datetime) -> list[tuple[str, str]]:
    """(text as written, ISO value) for every date expression, relative ones resolved against `reference`."""
    _check(text, reference, need_reference=True)
    return [(f.text, f.value) for f in find_dates(text, _ref_day(reference))]


def extract_entities(text: str, reference: datetime) -> list[Entity]:
    """People, places, organisations, dates, times, numbers, codes, emails, urls and phones in `text`."""
    _check(text, reference, need_reference=True)
    c = _Collector(text)
    _contacts(c)
    found: list[tuple[str, Found]] = [("date", f) for f in find_dates(text, _ref_day(reference))]
    found += [("time", f) for f in find_times(text)]
    for kind, f in sorted(found, key=lambda item: item[1].start):
        c.add(kind, f.start, f.end, f.value)
    _codes(c)
    _numbers(c)
    _orgs_and_places(c)
    _english_people(c)
    _chinese_people(c)
    return c.entities()


# ---- fact keys (contradiction detection) ---------------------------------------------------------

_FAVORITE_NOUNS = {
    "colour": "color", "color": "color", "颜色": "color", "food": "food", "dish": "food", "meal": "food",
    "食物": "food", "菜": "food", "美食": "food", "movie": "movie", "film": "movie", "电影": "movie",
    "book": "book", "novel": "book", "书": "book", "sport": "sport", "运动": "sport", "drink": "drink",
    "beverage": "drink", "饮料": "drink", "music": "music", "音乐": "music", "animal": "animal",
    "动物": "animal", "song": "song", "歌": "song", "fruit": "fruit", "水果": "fruit", "city": "city",
    "城市": "city", "season": "season", "季节": "season",
}
_PETS = {"dog": "dog", "puppy": "dog", "狗": "dog", "狗狗": "dog", "小狗": "dog", "cat": "cat",
         "kitten": "cat", "猫": "cat", "猫咪": "cat", "小猫": "cat", "rabbit": "rabbit", "兔子": "rabbit",
         "hamster": "hamster", "parrot": "parrot", "bird": "bird", "fish": "fish", "horse": "horse", "pet": "pet"}
_JOB_WORDS = frozenset(
    _words("""nurse chef cook pilot judge clerk barista model dentist surgeon physician nanny plumber architect
    accountant consultant attorney analyst intern student teacher doctor vet ceo cto cfo founder manager
    officer soldier firefighter paramedic tutor professor poet artist engineer programmer developer designer
    scientist researcher writer author editor journalist lawyer farmer driver freelancer retiree musician
    photographer actor actress cashier waiter waitress bartender mechanic electrician carpenter pharmacist
    therapist psychologist lecturer librarian banker broker agent coach trainer secretary receptionist
    assistant entrepreneur executive director supervisor housewife homemaker midwife""")
)
# Words with a job-like ending that describe a person, not an occupation ("a big fan", "a fast learner").
_NOT_JOBS = frozenset(
    _words("""fan lover believer member mother father brother sister daughter son parent beginner learner dreamer
    loner winner loser fighter survivor person customer user resident citizen patient owner leader thinker
    reader player gamer runner swimmer smoker drinker sleeper worrier introvert extrovert perfectionist
    optimist pessimist romantic regular vegetarian vegan pescatarian christian bit lot genius idiot friend
    partner adult teenager foreigner newcomer stranger volunteer""")
)
_CN_JOBS = (
    "师", "员", "医生", "护士", "学生", "博士", "警察", "司机", "记者", "律师", "老板", "会计", "作家", "画家", "歌手",
    "教授", "经理", "总监", "主管", "工人", "农民", "模特", "销售", "主播", "学者", "秘书", "保安", "军人", "作者",
)
_DIETS = r"vegetarian|vegan|pescatarian|pescetarian|keto|halal|kosher|gluten[- ]free|lactose[- ]intolerant"

_S = r"(?P<subj>I|(?:[Mm]y|[Oo]ur)\s+[a-z]+\s+[A-Z][a-z]+|[A-Z][a-z]+(?:\s[A-Z][a-z]+)?)"
_P = r"(?P<subj>[Mm]y|[A-Z][a-z]+(?:\s[A-Z][a-z]+)?'s)"
_ADV = r"(?:\s+(?:now|currently|still|also|just|recently|finally|actually|already|officially))*"
_BE = r"\s+(?:am|is)" + _ADV
_HAVE = _ADV + r"(?:\s+(?:have|has))?" + _ADV
_NAME = r"(?P<v>[A-Z][a-z]+(?:\s[A-Z][a-z]+)?)"
_SPOUSE = r"(?:wife|husband|girlfriend|boyfriend|partner|fianc[ée]e?|spouse)"
_PET_EN = r"(?P<pet>" + "|".join(k for k in _PETS if k.isascii()) + ")"
_PHONE_WORD = r"(?:(?:phone|mobile|cell|telephone)\s+)?(?:number|phone|mobile|cell)(?:\s+number)?"
_EN_FACTS: list[tuple[str, re.Pattern[str]]] = [
    (attr, re.compile("^" + pattern + r"\s*$")) for attr, pattern in [
        ("diet", _S + _BE + r"\s+(?:an?\s+)?(?:strict\s+)?(?P<v>" + _DIETS + r")\b.*"),
        ("residence", _S + _ADV + r"\s+(?:live|lives|am living|is living|reside|resides)\s+in\s+(?P<v>.+)"),
        ("residence", _S + _HAVE + r"\s+(?:moved|relocated)\s+(?:back\s+)?to\s+(?P<v>.+)"),
        ("residence", _S + _BE + r"\s+based\s+in\s+(?P<v>.+)"),
        ("residence", _P + r"\s+home\s+is" + _ADV + r"\s+in\s+(?P<v>.+)"),
        ("job", _S + _ADV + r"\s+(?:work|works|am working|is working)\s+as\s+(?:an?\s+)?(?P<v>.+)"),
        ("employer", _S + _ADV + r"\s+(?:work|works|am working|is working)\s+(?:at|for)\s+(?P<v>.+)"),
        ("employer", _S + _HAVE + r"\s+joined\s+(?P<v>[A-Z].*)"),
        ("employer", _S + _BE + r"\s+(?:employed|working)\s+(?:at|by|for)\s+(?P<v>.+)"),
        ("employer", _P + r"\s+(?:employer|company)\s+is\s+(?P<v>.+)"),
        ("job", _P + r"\s+(?:job|occupation|profession)\s+is\s+(?:an?\s+)?(?P<v>.+)"),
        ("name", _P + r"\s+(?:full\s+)?name\s+is\s+(?P<v>.+)"),
        ("name", r"(?:[Pp]lease\s+)?(?P<subj>[Cc]all)\s+me\s+(?P<v>.+)"),
        ("name", _S + r"\s+(?:am|is)\s+called\s+(?P<v>.+)"),
        ("age", _S + _BE + r"\s+(?P<v>\d{1,3})(?:\s*(?:years?|yrs?)(?:[\s-]+old)?|\s*y/?o)?"),
        ("age", _S + r"(?:\s+just)?\s+turned\s+(?P<v>\d{1,3})\b.*"),
        ("favorite", _P + r"\s+(?:favou?rite|fave|fav)\s+(?P<thing>[a-z]+(?:\s[a-z]+)?)\s+(?:is|are|was)\s+(?P<v>.+)"),
        ("phone", _P + r"\s+" + _PHONE_WORD + r"\s+is\s+(?P<v>\+?\d[\d\s().-]{4,}\d).*"),
        ("email", _P + r"\s+e-?mail(?:\s+address)?\s+is\s+(?P<v>\S+@\S+?)\.?"),
        ("birthday", _P + r"\s+(?:birthday|date of birth|birth date|bday)\s+is\s+(?:on\s+)?(?P<v>.+)"),
        ("birthday", _S + r"\s+was\s+born\s+on\s+(?P<v>.+)"),
        ("partner", _P + r"\s+" + _SPOUSE + r"(?:'s\s+name)?\s+is\s+(?:called\s+|named\s+)?" + _NAME + r"\b.*"),
        ("partner", _P + r"\s+" + _SPOUSE + r"\s+(?:is\s+)?(?:called|named)\s+" + _NAME + r"\b.*"),
        ("partner", _S + _BE + r"\s+married\s+to\s+" + _NAME + r"\b.*"),
        ("pet", _P + r"\s+" + _PET_EN + r"(?:'s\s+name\s+is|\s+is\s+(?:called|named))\s+" + _NAME + r"\b.*"),
        ("pet", _S + r"\s+(?:have|has)\s+an?\s+" + _PET_EN + r"\s+(?:called|named)\s+" + _NAME + r"\b.*"),
        ("job_noun", _S + _BE + r"\s+an?\s+(?P<v>.+)"),  # checked against the job word lists
    ]
]

_CN_SUBJ = f"(?P<subj>我|[小老阿][{_CN_SURNAMES}]|(?:{'|'.join(_CN_COMPOUND)}|[{_CN_SURNAMES}])[{CJK}]{{1,2}}?)"
_CN_ADV = "(?:现在|目前|已经|刚刚|刚|也|还|一直|今年|正式)*"
_CN_NUM = r"(?:\d{1,3}|[一二两三四五六七八九十百]{1,4})"
_ZH_FACTS: list[tuple[str, re.Pattern[str]]] = [
    (attr, re.compile("^" + _CN_SUBJ + pattern + "$")) for attr, pattern in [
        ("diet", _CN_ADV + "(?:吃素|是素食者|是素食主义者|是素食的|不吃肉)(?P<v>)"),
        ("diet", _CN_ADV + "是(?P<v>纯素)(?:食者|主义者)?"),
        ("residence", _CN_ADV + "(?:住在|住|居住在|生活在|定居在|定居)(?P<v>.+)"),
        ("residence", _CN_ADV + "(?:搬到了|搬到|搬去了|搬去|搬家到|移居到|移居)(?P<v>.+)"),
        ("residence", _CN_ADV + "在(?P<v>.+?)(?:住|生活|定居).*"),
        ("employer", _CN_ADV + "在(?P<v>.+?)(?:工作|上班|任职|打工|实习|当|做).*"),
        ("employer", _CN_ADV + "(?:加入了|加入|入职了|入职)(?P<v>.+)"),
        ("employer", "的?(?:公司|单位|雇主)是(?P<v>.+)"),
        ("job", "的?(?:工作|职业)是(?P<v>.+)"),
        ("name", "(?:叫|的名字是|的名字叫)(?P<v>.+)"),
        ("age", _CN_ADV + "(?P<v>" + _CN_NUM + ")岁了?"),
        ("age", "的?年龄是(?P<v>" + _CN_NUM + ")岁?"),
        ("favorite", "最喜欢的(?P<thing>[" + CJK + "]{1,4}?)是(?P<v>.+)"),
        ("phone", r"的?(?:手机号码|手机号|手机|电话号码|电话|号码)是(?P<v>\+?\d[\d\s-]{4,}\d)"),
        ("email", r"的?(?:邮箱地址|邮箱|电子邮件|电邮|邮件地址)是(?P<v>\S+@\S+?)"),
        ("birthday", "的?生日是(?P<v>.+)"),
        ("partner", "的?(?:老婆|老公|妻子|丈夫|太太|女朋友|男朋友|女友|男友|爱人|对象|未婚妻|未婚夫)(?:的名字)?叫(?P<v>.+)"),
        ("pet", "(?:的|家的?|养的)?(?P<pet>狗狗|小狗|狗|猫咪|小猫|猫|兔子)(?:的名字)?叫(?P<v>.+)"),
        ("job", _CN_ADV + "是(?:一名|一个|一位|名|个)?(?P<v>[^的]+)"),
    ]
]
_ZH_CALL_ME = re.compile("^(?:请)?叫我(?P<v>.+)$")

_EN_QUESTION = re.compile(
    r"^(?:where|what|who|whom|when|why|how|which|do|does|did|is|are|am|was|were|can|could|would|will|should|have|has)\b", re.I
)
_EN_NEGATION = re.compile(r"\b(?:not|never|no\s+longer|don't|doesn't|didn't|isn't|aren't|wasn't|ain't|won't|can't|cannot)\b|n't\b", re.I)
_ZH_QUESTION = re.compile(r"[?？]|哪|什么|谁|几岁|多少|多大|怎么|[吗么呢]$")
_EN_FILLER = re.compile(
    r"^(?:(?:so|well|actually|btw|by the way|also|and|oh|ok|okay|yeah|yes|fyi|just so you know|note|update|anyway"
    r"|remember(?: that)?|for the record)[,:]?\s+)+",
    re.I,
)
_ZH_FILLER = re.compile("^(?:其实|对了|另外|顺便说一下|顺便说|嗯|哦|那个|记住)[，,：:]?")
# Values are whitespace-normalised first, so single spaces suffice (and no run of blanks can backtrack).
_EN_CUT = re.compile(
    r" (?:and|but|because|since|so|as|with|where|which|who|when|while|after|before|until|for|though) .*$"
    r"|[,;:!?(].*$|\. .*$",
    re.I,
)
_EN_TRAILING = re.compile(
    r" (?:now|currently|these days|at the moment|again|already|recently|today|yesterday|anymore|for now"
    r"|(?:last|this|next) \w+|in \d{4}|\d+ \w+ ago|a \w+ ago|a while ago)$",
    re.I,
)
_ZH_CUT = re.compile(r"[，,；;：:（(、].*$")
_ZH_TRAILING = re.compile(
    "(?:了|啦|呢|啊|哦|呀|的|现在|" + _CN_NUM + "(?:年|个月|天|周|个星期)(?:了|多了)?|好几年了|很久了|一段时间了)$"
)


def _clean(value: str, chinese: bool) -> str:
    """Cut a value at clause boundaries and drop trailing time words ("now", "了", "last year")."""
    if chinese:
        value = _ZH_CUT.sub("", value.strip())
        for _ in range(3):
            value = _ZH_TRAILING.sub("", value).strip()
    else:
        value = _EN_CUT.sub("", " ".join(value.split())).rstrip(" .")
        for _ in range(3):
            value = _EN_TRAILING.sub("", value).strip()
    return value.strip(" .。!！\"'“”")


def _english_job(value: str) -> str | None:
    words = value.split()
    head = words[-1] if words else ""
    if not words or len(words) > 3 or head.lower() in _NOT_JOBS:
        return None
    if head.lower() in _JOB_WORDS:
        return value.lower()
    # Suffix rule only for lower-case heads: "an Italian" / "a Christian" are not occupations.
    if head.islower() and head.endswith(("er", "or", "ist", "ian", "ant", "ent", "eer", "ess")):
        return value.lower()
    return None


def _birthday(value: str) -> str:
    found = find_dates(value, date(2000, 1, 1), relative=False)
    if not found:
        return value
    has_year = re.search(r"\d{4}|[零〇一二三四五六七八九]{4}年|'\d{2}|/\d{2}$", found[0].text)
    return found[0].value if has_year else found[0].value[5:]


def _fact_value(attr: str, m: re.Match[str], chinese: bool) -> tuple[str, str] | None:
    groups = m.groupdict()
    raw = groups.get("v") or ""
    if attr == "diet":
        value = raw.lower().replace(" ", "-") if raw else "vegetarian"
        return attr, {"纯素": "vegan", "pescetarian": "pescatarian"}.get(value, value)
    if attr in ("phone", "email"):
        digits = ("+" if raw.startswith("+") else "") + re.sub(r"\D", "", raw)
        return attr, digits if attr == "phone" else raw.lower().rstrip(".")
    cased = _clean(raw, chinese)
    value = cased.lower()
    if not value:
        return None
    if attr == "favorite":
        thing = groups["thing"].lower()
        return f"favorite_{_FAVORITE_NOUNS.get(thing, thing.replace(' ', '_'))}", value
    if attr == "pet":
        return f"{_PETS[groups['pet'].lower()]}_name", value
    if attr == "age":
        age = cn_to_int(value)
        return (attr, str(age)) if age is not None and 0 < age < 130 else None
    if attr == "birthday":
        return attr, _birthday(cased).lower()
    if attr == "job" and chinese:
        return (attr, value) if value.endswith(_CN_JOBS) else None
    if attr == "job_noun":  # "I'm a/an X": X must look like an occupation
        job = _english_job(re.sub(r"\s+(?:at|in|for|of|from|on)\s.*$", "", cased))
        return ("job", job) if job else None
    if attr in ("employer", "residence"):
        if value in ("home", "myself", "家", "家里", "这里", "那里"):
            return None
        value = _ZH_TO_EN.get(value, value).replace("_", " ")
    if attr == "name" and (len(value.split()) > 3 or value.startswith("了")):
        return None
    return attr, value


def _subject(raw: str) -> str | None:
    if raw in ("我", "I", "my", "My", "call", "Call"):
        return "user"
    name = re.sub(r"^(?:[Mm]y|[Oo]ur)\s+[a-z]+\s+", "", raw).removesuffix("'s")
    if name.split()[0] in _NOT_NAMES:
        return None  # "He lives in Paris": we do not know who "he" is
    return name.lower()


def _sentence_fact(sentence: str) -> tuple[str, str, str] | None:
    chinese = bool(re.search(f"[{CJK}]", sentence))
    if chinese:
        sentence = _ZH_FILLER.sub("", re.sub(r"\s+", "", sentence)).rstrip("。！!.")
        if not sentence or _ZH_QUESTION.search(sentence):
            return None
        m = _ZH_CALL_ME.match(sentence)
        if m:
            value = _clean(m.group("v"), chinese=True)
            return ("user", "name", value) if value else None
        rules = _ZH_FACTS
        negated = bool(re.search("不|没", sentence))
    else:
        sentence = _EN_FILLER.sub("", " ".join(sentence.replace("’", "'").split()))
        sentence = re.sub(r"\bi\b", "I", re.sub(r"\b[Ii]'m\b", "I am", sentence)).rstrip(" !.")
        if not sentence or sentence.endswith("?") or _EN_QUESTION.match(sentence):
            return None
        rules = _EN_FACTS
        negated = bool(_EN_NEGATION.search(sentence))
    for attr, pattern in rules:
        m = pattern.match(sentence)
        if not m or (negated and attr != "diet"):
            continue
        subject = _subject(m.group("subj"))
        result = _fact_value(attr, m, chinese)
        if subject and result:
            return subject, result[0], result[1]
    return None


_SENTENCE_SPLIT = re.compile(r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<!\bMrs\.)(?<=[.!?])\s+|(?<=[。！？])|\n+")


def fact_key(text: str) -> tuple[str, str, str] | None:
    """(subject, attribute, value) for a statement that sets a single-valued attribute, else None.

    Subject is "user" for first-person statements, the lower-cased name for third-person ones.
    The first matching sentence wins; questions and negated statements give None.
    """
    _check(text)
    for sentence in _SENTENCE_SPLIT.split(text):
        if sentence and sentence.strip():
            result = _sentence_fact(sentence)
            if result:
                return result
    return None

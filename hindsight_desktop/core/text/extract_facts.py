"""Single-valued facts ("I live in Beijing") for contradiction detection: fact_key(text)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

from hindsight_desktop.core.text.event_facts import event_fact
from hindsight_desktop.core.text.extract_dates import cn_to_int, find_dates, find_times
from hindsight_desktop.core.text.extract_lexicon import (
    _CN_COMPOUND,
    _CN_SURNAMES,
    _NOT_NAMES,
    _ZH_TO_EN,
    CJK,
    _check,
    _words,
)
from hindsight_desktop.core.text.relations import ZH_RELATIONS, relation_alternation

# ---- fact keys (contradiction detection) ---------------------------------------------------------

_FAVORITE_NOUNS = {
    "colour": "color",
    "color": "color",
    "颜色": "color",
    "food": "food",
    "dish": "food",
    "meal": "food",
    "食物": "food",
    "菜": "food",
    "美食": "food",
    "movie": "movie",
    "film": "movie",
    "电影": "movie",
    "book": "book",
    "novel": "book",
    "书": "book",
    "sport": "sport",
    "运动": "sport",
    "drink": "drink",
    "beverage": "drink",
    "饮料": "drink",
    "music": "music",
    "音乐": "music",
    "animal": "animal",
    "动物": "animal",
    "song": "song",
    "歌": "song",
    "fruit": "fruit",
    "水果": "fruit",
    "city": "city",
    "城市": "city",
    "season": "season",
    "季节": "season",
}
_PETS = {
    "dog": "dog",
    "puppy": "dog",
    "狗": "dog",
    "狗狗": "dog",
    "小狗": "dog",
    "cat": "cat",
    "kitten": "cat",
    "猫": "cat",
    "猫咪": "cat",
    "小猫": "cat",
    "rabbit": "rabbit",
    "兔子": "rabbit",
    "hamster": "hamster",
    "parrot": "parrot",
    "bird": "bird",
    "fish": "fish",
    "horse": "horse",
    "pet": "pet",
}
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
    "师",
    "员",
    "医生",
    "护士",
    "学生",
    "博士",
    "警察",
    "司机",
    "记者",
    "律师",
    "老板",
    "会计",
    "作家",
    "画家",
    "歌手",
    "教授",
    "经理",
    "总监",
    "主管",
    "工人",
    "农民",
    "模特",
    "销售",
    "主播",
    "学者",
    "秘书",
    "保安",
    "军人",
    "作者",
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
    (attr, re.compile("^" + pattern + r"\s*$"))
    for attr, pattern in [
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
        (
            "codename",
            r"(?P<subj>[Mm]y|[Oo]ur)\s+(?:current\s+|new\s+)?(?:project(?:'s)?\s+)?code\s?name\s+is"
            + _ADV
            + r"\s+(?P<v>.+)",
        ),
        (
            "manager",
            _P
            + r"\s+(?:new\s+)?(?:manager|boss|supervisor|line manager)(?:\s+at\s+\S+)?\s+is"
            + _ADV
            + r"\s+"
            + _NAME
            + r"\b.*",
        ),
        ("job_noun", _S + _BE + r"\s+an?\s+(?P<v>.+)"),  # checked against the job word lists
    ]
]

# A family member named by relation ("我老婆住在上海") is a subject of its own (relations.py).
_RELATION = relation_alternation()
_CN_SUBJ = (
    f"(?P<subj>我|我的?(?:{_RELATION})(?![{CJK}]?叫)|[小老阿][{_CN_SURNAMES}]"
    f"|(?:{'|'.join(_CN_COMPOUND)}|[{_CN_SURNAMES}])[{CJK}]{{1,2}}?)"
)
_CN_ADV = "(?:现在|目前|已经|刚刚|刚|也|还|一直|今年|正式|今天|昨天|上周|这周|本周|最近|终于|下个?月)*"
_CN_NUM = r"(?:\d{1,3}|[一二两三四五六七八九十百]{1,4})"
_PLATE = r"(?P<v>[\u4e00-\u9fff][A-Za-z](?:·?[A-Za-z0-9]){5,6})"  # 京N·7K2M9, and new-energy 京AD·35721
_PHONE_CN = r"(?P<v>\+?\d[\d\s-]{4,}\d)"
_CHANGED = "(?:换成了|换成|改成了|改成|变成了|变成|换到了|换到|是)"
_ZH_FACTS: list[tuple[str, re.Pattern[str]]] = [
    (attr, re.compile("^" + _CN_SUBJ + pattern + "$"))
    for attr, pattern in [
        ("diet", _CN_ADV + "(?:吃素|是素食者|是素食主义者|是素食的|不吃肉)(?P<v>)"),
        ("diet", _CN_ADV + "是(?P<v>纯素)(?:食者|主义者)?"),
        ("residence", _CN_ADV + "(?:住在|住|居住在|生活在|定居在|定居)(?P<v>.+)"),
        ("residence", _CN_ADV + "(?:搬到了|搬到|搬去了|搬去|搬家到|移居到|移居)(?P<v>.+)"),
        ("residence", _CN_ADV + "在(?P<v>.+?)(?:住|生活|定居).*"),
        ("residence", "的?(?:家|新家)(?:住|搬)?在(?P<v>.+)"),
        ("residence", _CN_ADV + "(?:搬家了|搬了家)[，,]?(?:新家|现在)?(?:住)?在(?P<v>.+)"),
        (
            "school",
            _CN_ADV + "在(?P<v>.+?)(?:上学|读书|念书|读大学|上大学|读研究生|读研|读博士|读博|读高中|读初中|读小学"
            "|上小学|上中学|上初中|上高中|上幼儿园)(?![\u4e00-\u9fff]{0,24}(?:工作|上班)).*",
        ),  # bounded: checked at every end of v
        (
            "school",
            _CN_ADV
            + "(?:考上了|考上|考进了|考进|转学到了|转学到|转学去了|转到了|转到)(?P<v>.+?(?:大学|学院|中学|小学|学校|幼儿园))",  # noqa: E501 (one alternation; Chinese counts double)
        ),
        ("employer", _CN_ADV + "(?:跳槽到了|跳槽到|跳槽去了|跳槽去|跳到了|跳到)(?P<v>.+?)(?:工作|上班)?"),
        ("employer", _CN_ADV + "换工作了?[，,]?(?:去了|去|到了|到|在)(?P<v>.+?)(?:工作|上班)?"),
        ("employer", _CN_ADV + "(?:去|到)(?P<v>.+?)(?:工作|上班)了"),
        ("employer", _CN_ADV + "在(?P<v>.+?)(?:工作|上班|任职|打工|实习|当|做).*"),
        ("employer", _CN_ADV + "(?:加入了|加入|入职了|入职)(?P<v>.+)"),
        ("employer", "的?(?:公司|单位|雇主)是(?P<v>.+)"),
        ("job", "的?(?:工作|职业)是(?P<v>.+)"),
        ("name", "(?:叫|的名字是|的名字叫)(?P<v>.+)"),
        ("age", _CN_ADV + "(?P<v>" + _CN_NUM + ")岁了?"),
        ("age", "的?年龄是(?P<v>" + _CN_NUM + ")岁?"),
        ("favorite", "最喜欢的(?P<thing>[" + CJK + "]{1,4}?)是(?P<v>.+)"),
        ("phone", r"的?(?:手机号码|手机号|手机|电话号码|电话|号码)" + _CHANGED + _PHONE_CN),
        (
            "phone",
            _CN_ADV
            + r"换了?(?:新的?)?(?:手机号码|手机号|电话号码|号码)(?:[，,：:]?(?:新号码?|号码)?(?:是)?)"
            + _PHONE_CN,
        ),
        ("plate", r"的?(?:新车的?)?车牌(?:号码|号)?" + _CHANGED + "?" + _PLATE),
        ("car", _CN_ADV + r"(?:买了|换了|新买了|开上了|提了)(?:一)?辆(?:新的?)?(?P<v>.+)"),
        ("car", r"的?(?:车|新车)(?:是|换成了?)(?:一辆)?(?P<v>.+)"),
        ("doctor", r"的?(?:医生|主治医生|家庭医生|主治大夫|大夫)" + _CHANGED + "(?P<v>.+)"),
        ("dentist", r"的?(?:牙医|牙科医生)" + _CHANGED + "(?P<v>.+)"),
        ("dentist", _CN_ADV + r"换了?(?:个|新的?)?(?:牙医|牙科医生|看牙的地方)[，,]?(?:现在|改)?(?:去|在|看)(?P<v>.+)"),
        ("manager", r"的?(?:新)?(?:领导|上司|老板|经理|主管|直属领导)(?:换成了?|改成了?|变成了?|是|叫)(?P<v>.+)"),
        ("codename", r"的?(?:新)?(?:项目的?)?代号" + _CHANGED + '?(?:叫)?[“"「]?(?P<v>[^”"」]+)[”"」]?.*'),
        ("therapist", r"的?(?:心理医生|心理咨询师|咨询师)" + _CHANGED + "(?P<v>.+)"),
        (
            "weight",
            _CN_ADV + r"的?体重(?:现在|目前|已经)?(?:是|有|为|降到了?|涨到了?|减到了?|变成了?)?"
            r"(?P<v>\d+(?:\.\d+)?)\s*(?P<unit>公斤|千克|kg|斤|磅|lbs?)(?:左右)?了?",
        ),
        ("height", _CN_ADV + r"的?身高(?:是|有|为)?(?P<v>\d(?:\.\d+)?米\d{0,2}|\d{3}(?:厘米|公分|cm)?|\d\.\d+m)"),
        (
            "schedule",
            _CN_ADV
            + r"(?:改成了?|改到了?|换成了?|变成了?)?(?P<every>每(?:周|星期|礼拜|个?星期)[一二三四五六日天](?:和[一二三四五六日天])?"  # noqa: E501 (one alternation; Chinese counts double)
            r"|每天|每晚|每早|每个?工作日|每个?周末)(?P<v>.+)",
        ),
        ("email", r"的?(?:邮箱地址|邮箱|电子邮件|电邮|邮件地址)是(?P<v>\S+@\S+?)"),
        ("birthday", "的?生日是(?P<v>.+)"),
        (
            "partner",
            "的?(?:老婆|老公|妻子|丈夫|太太|女朋友|男朋友|女友|男友|爱人|对象|未婚妻|未婚夫)(?:的名字)?叫(?P<v>.+)",
        ),
        ("relative", "的?(?P<rel>儿子|女儿|爸爸|父亲|妈妈|母亲|哥哥|姐姐|弟弟|妹妹)(?:的名字)?叫(?P<v>.+)"),
        ("pet", "(?:的|家的?|养的)?(?P<pet>狗狗|小狗|狗|猫咪|小猫|猫|兔子)(?:的名字)?叫(?P<v>.+)"),
        ("job", _CN_ADV + "是(?:一名|一个|一位|名|个)?(?P<v>[^的]+)"),
    ]
]
_ZH_CALL_ME = re.compile("^(?:请)?叫我(?P<v>.+)$")

_EN_QUESTION = re.compile(
    r"^(?:where|what|who|whom|when|why|how|which|do|does|did|is|are|am|was|were|can|could|would|will|should|have|has)\b",
    re.I,
)
_EN_NEGATION = re.compile(
    r"\b(?:not|never|no\s+longer|don't|doesn't|didn't|isn't|aren't|wasn't|ain't|won't|can't|cannot)\b|n't\b", re.I
)
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


def _weight(raw: str, unit: str) -> tuple[str, str] | None:
    kilos = float(raw) * {"斤": 0.5, "磅": 0.4536, "lb": 0.4536, "lbs": 0.4536}.get(unit.lower(), 1.0)
    return ("weight", f"{kilos:.1f} kg") if 2 <= kilos <= 400 else None


def _height(raw: str, unit: str) -> tuple[str, str] | None:
    """1米75, 1.75米, 1.75m, 175, 175厘米 -> "175 cm"."""
    metres, _, rest = raw.partition("米")
    if rest:  # 1米75
        cm = int(metres) * 100 + int(rest.ljust(2, "0"))
    elif "." in raw:
        cm = round(float(re.sub(r"[^\d.]", "", raw)) * 100)
    else:
        cm = int(re.sub(r"\D", "", raw))
    return ("height", f"{cm} cm") if 40 <= cm <= 250 else None


_MEASURES = {"weight": _weight, "height": _height}
_SCHEDULE_LEAD = re.compile("^(?:都|会|要|就|去|来|固定|一般|通常|按时|准时|坚持)+")


def _schedule(every: str, rest: str) -> tuple[str, str] | None:
    """每周二晚上七点去打羽毛球 -> ("schedule_打羽毛球", "每周二 19:00"): the activity is the attribute,
    so a new day or time for the same activity replaces the old one."""
    every = re.sub("星期|礼拜|个星期", "周", every).replace("每个", "每")
    times = find_times(rest)
    when = times[0].value if times else ""
    for found in reversed(times):
        rest = rest[: found.start] + rest[found.end :]
    rest = re.sub("^(?:早上|上午|中午|下午|晚上|傍晚|夜里)", "", rest)
    activity = _SCHEDULE_LEAD.sub("", rest).strip()
    if not activity or activity.startswith(("很", "挺", "非常", "比较", "太", "特别", "有点", "好")):
        return None  # 每天都很忙 describes, it schedules nothing
    return f"schedule_{activity.lower()}", f"{every} {when}".strip()


def _fact_value(attr: str, m: re.Match[str], chinese: bool) -> tuple[str, str] | None:
    groups = m.groupdict()
    raw = groups.get("v") or ""
    if attr == "diet":
        value = raw.lower().replace(" ", "-") if raw else "vegetarian"
        return attr, {"纯素": "vegan", "pescetarian": "pescatarian"}.get(value, value)
    if attr in ("phone", "email"):
        digits = ("+" if raw.startswith("+") else "") + re.sub(r"\D", "", raw)
        return attr, digits if attr == "phone" else raw.lower().rstrip(".")
    if attr in _MEASURES:
        return _MEASURES[attr](raw, groups.get("unit") or "")
    if attr == "plate":
        return attr, re.sub(r"[·\s]", "", raw).upper()
    cased = _clean(raw, chinese)
    value = cased.lower()
    if not value:
        return None
    if attr == "relative":
        return f"{ZH_RELATIONS[groups['rel']]}_name", value
    if attr == "schedule":
        return _schedule(groups["every"], cased)
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
        if attr == "residence" and value.endswith(_LODGING):
            return None
        value = _ZH_TO_EN.get(value, value).replace("_", " ")
    if attr == "name" and (len(value.split()) > 3 or value.startswith("了")):
        return None
    return attr, value


def _subject(raw: str) -> str | None:
    if raw in ("我", "I", "my", "My", "our", "Our", "call", "Call"):
        return "user"
    if raw.startswith("我"):
        return ZH_RELATIONS.get(raw[1:].removeprefix("的"))
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
        for reading, allowed in _chinese_readings(sentence):
            found = _match(_ZH_FACTS, reading, bool(re.search("不|没", reading)), chinese=True, allowed=allowed)
            if found:
                return found
        return event_fact(sentence)
    else:
        sentence = _EN_FILLER.sub("", " ".join(sentence.replace("’", "'").split()))
        sentence = re.sub(r"\bi\b", "I", re.sub(r"\b[Ii]'m\b", "I am", sentence)).rstrip(" !.")
        if not sentence or sentence.endswith("?") or _EN_QUESTION.match(sentence):
            return None
        negated = bool(_EN_NEGATION.search(sentence))
        found = _match(_EN_FACTS, sentence, negated, chinese=False)
        return found or (None if negated else event_fact(sentence))


def _match(
    rules: list[tuple[str, re.Pattern[str]]],
    sentence: str,
    negated: bool,
    chinese: bool,
    allowed: frozenset[str] | None = None,
) -> tuple[str, str, str] | None:
    for attr, pattern in rules:
        if allowed is not None and attr not in allowed:
            continue
        m = pattern.match(sentence)
        if not m or (negated and attr != "diet"):
            continue
        subject = _subject(m.group("subj"))
        result = _fact_value(attr, m, chinese)
        if subject and result:
            return subject, result[0], result[1]
    return None


_ZH_CLAUSE = re.compile("[，,；;]")
# Attributes a later clause may set without naming its subject: a sentence that starts elsewhere
# ("正式从星图离职了，今天入职蓝鲸云") still speaks of the writer's job or number. Not a name, an age or a
# home: "…叫半岛咖啡", "…三岁了", "去大理玩，住在洱海边" are about something else the sentence named.
_LATER_CLAUSE_ATTRS = frozenset(
    {"employer", "phone", "plate", "weight", "height", "dentist", "doctor", "manager", "codename"}
)
# A place one stays on a trip is not where one lives.
_LODGING = ("民宿", "酒店", "宾馆", "旅馆", "客栈", "青旅", "hotel", "hostel", "airbnb")


def _chinese_readings(sentence: str) -> Iterator[tuple[str, frozenset[str] | None]]:
    """Readings of a sentence to match, each with the attributes it may set (None: any).

    A note to oneself drops the "I" ("搬家了！现在住在五道口", "换了新手机号 186…"), and the fact often sits
    in one clause ("新车上牌了，车牌号京AD·35721，绿牌"). So: the sentence and each clause as written; the
    sentence and its first clause with the subject supplied; later clauses with the subject supplied
    for a few attributes only.
    """
    clauses = [c for c in _ZH_CLAUSE.split(sentence) if c]
    for text in dict.fromkeys([sentence, *clauses]):
        yield text, None
    for i, text in enumerate(dict.fromkeys([sentence, *clauses])):
        if not text.startswith("我"):
            yield "我" + text, None if i < 2 else _LATER_CLAUSE_ATTRS


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

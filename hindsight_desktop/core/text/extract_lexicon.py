"""Word lists shared by the entity and fact extractors (extract.py, extract_facts.py)."""

from __future__ import annotations

from datetime import datetime

from hindsight_desktop.core.errors import InvalidInput

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
    "New York",
    "San Francisco",
    "Los Angeles",
    "Hong Kong",
    "Las Vegas",
    "Washington DC",
    "Mexico City",
    "United States",
    "United Kingdom",
    "New Zealand",
    "South Korea",
    "Silicon Valley",
]
_PLACES_ZH = _words(
    "北京 上海 深圳 广州 杭州 成都 武汉 南京 重庆 天津 苏州 西安 "
    "厦门 青岛 香港 澳门 台北 东京 大阪 京都 首尔 新加坡 曼谷 "
    "悉尼 墨尔本 巴黎 伦敦 柏林 慕尼黑 罗马 米兰 马德里 "
    "巴塞罗那 阿姆斯特丹 维也纳 莫斯科 迪拜 纽约 旧金山 洛杉矶 西雅图 "
    "芝加哥 波士顿 多伦多 温哥华 中国 日本 韩国 美国 英国 法国 "
    "德国 意大利 西班牙 加拿大 澳大利亚 印度 俄罗斯 巴西 泰国 越南 "
    "瑞士 荷兰 新西兰"
)
_ORGS = _words(
    "Google Microsoft Apple Amazon Meta Facebook OpenAI Anthropic Netflix Tesla Nvidia NVIDIA IBM Intel Samsung "
    "Sony Huawei Tencent Alibaba ByteDance Baidu Xiaomi Meituan DeepMind Uber Airbnb Spotify Oracle Adobe "
    "Salesforce Toyota NetEase TikTok 华为 腾讯 阿里巴巴 阿里 字节跳动 字节 "
    "百度 小米 美团 京东 网易 拼多多 微软 谷歌 苹果公司 亚马逊"
) + _words(
    # Apps, payment services and shops people name in passing ("paid via Stripe", "Notion doc"): several are
    # ordinary words too, and none is a person.
    "Stripe Notion Slack Zoom Figma GitHub GitLab Jira Trello Asana Dropbox PayPal Venmo Shopify WhatsApp WeChat "
    "Telegram Discord Reddit LinkedIn Twitter Instagram YouTube Gmail Outlook Airtable Canva Duolingo Peloton "
    "Strava Fitbit Garmin Lyft DoorDash Instacart Etsy eBay IKEA Costco Walmart Starbucks Nike Adidas Revolut "
    "Monzo Klarna Coinbase Robinhood Alipay ChatGPT Zelle Calendly Evernote Obsidian Todoist Grammarly "
    "支付宝 微信 淘宝 天猫 抖音 快手 小红书 滴滴 知乎 钉钉 飞书 哔哩哔哩 携程 饿了么 大众点评 闲鱼"
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
    Sunday Mondays Tuesdays Wednesdays Thursdays Fridays Saturdays Sundays
    January February March April June July August September October November December Morning
    Evening Afternoon Night Week Month Year English Chinese French German Japanese Spanish Italian Korean
    American British European Asian Christmas Easter Thanksgiving Halloween Internet God Mr Mrs Ms Dr
    Prof Went Got Met Called Told Said Asked Went Had Made Took Saw Bought Moved Started Finished Visited
    Love Like Need Want Going Meet Meeting Call Email Check Buy Get Make Take Send Tell Ask Find Try Use""")
)
# Given names among them: a name only where the words around it say so ("my sister May", "Will said").
_NAMES_AMONG_NOT_NAMES = frozenset(_words("Will May April June August"))
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
    "朋友",
    "同事",
    "老板",
    "老师",
    "同学",
    "哥哥",
    "姐姐",
    "弟弟",
    "妹妹",
    "老婆",
    "老公",
    "女朋友",
    "男朋友",
    "妻子",
    "丈夫",
    "太太",
    "室友",
    "邻居",
    "经理",
    "和",
    "跟",
    "与",
    "给",
    "叫",
    "见了",
    "遇到",
    "遇见",
    "告诉",
    "认识",
    "陪",
)
_CN_AFTER_STRONG = ("说", "告诉", "问", "觉得", "认为", "让", "打电话", "发消息")
_CN_AFTER = _CN_AFTER_STRONG + (
    "是",
    "的",
    "和",
    "跟",
    "来",
    "去",
    "在",
    "要",
    "想",
    "给",
    "买",
    "送",
    "也",
    "还",
    "都",
    "今天",
    "明天",
    "昨天",
    "刚",
    "已经",
    "一起",
    "住",
    "喜欢",
    "知道",
    "约",
    "开",
    "吃",
    "见",
    "聊",
    "玩",
    "看",
    "做",
    "回",
    "出",
    "到",
    "走",
    "聚",
    "结婚",
    "分手",
)
_CN_NOT_IN_NAME = frozenset(
    "的了是在和跟与说去来也都还就要想我你他她它们这那个不没很吗呢吧啊给把被从到对让用有地得着过"
)
_CN_COMMON_WORDS = frozenset(
    _words(
        "马上 高兴 方便 白天 任何 于是 万一 夏天 黄色 白色 金色 程序 "
        "江湖 向前 许多 高中 高速 石头 毛病 钱包 方法 方面 方向 史上 "
        "黄金 金融 余额 马路 高铁 曾经 严重 范围 何时 周围 周年 "
        "周期 叶子 孙子 董事 常常 关于 龙虾 程度 高级 白菜 万元 钱都"
    )
)
_AIRLINES = frozenset(
    _words(
        "CA MU CZ HU ZH FM MF HO 3U 9C SC UA AA DL WN AS B6 BA LH AF KL LX OS SK AY IB AZ TK EK QR EY SQ CX KA JL NH "
        "KE OZ TG VN MH CI BR QF NZ AC AI"
    )
)
_CURRENCY = {
    "$": "usd",
    "€": "eur",
    "£": "gbp",
    "¥": "cny",
    "￥": "cny",
    "元": "cny",
    "块": "cny",
    "块钱": "cny",
    "人民币": "cny",
    "美元": "usd",
    "欧元": "eur",
    "英镑": "gbp",
    "日元": "jpy",
    "usd": "usd",
    "dollars": "usd",
    "dollar": "usd",
    "bucks": "usd",
    "euros": "eur",
    "euro": "eur",
    "rmb": "cny",
    "yuan": "cny",
}


def _check(text: object, reference: object = None, need_reference: bool = False) -> None:
    if not isinstance(text, str):
        raise InvalidInput(f"text must be a string, not {type(text).__name__}")
    if need_reference and not (
        isinstance(reference, datetime) and reference.tzinfo is not None and reference.utcoffset() is not None
    ):
        raise InvalidInput("reference must be a timezone-aware datetime (UTC)")

"""Japanese: decimal point, thousands grouped by a comma, numbers said in kanji numerals by myriads
(一万, 百万), the yen sign before the amount (¥1,000) or 円 after it. A noun after a number does not
change, so every form is ``other``. Japanese writes no space between a number and its counter: a
counter written after the digits (1999年, 3時, 第2回, 1,000円) is read by the cardinal before it, so
years, dates written with 年月日 and ordinals with 第 or 番目 need no rule of their own. CLDR's year
rule set reads a year digit by digit (一九九九), where a year is said as a cardinal (千九百九十九年)."""

from ..number_locale import Currency, Noun, NumberLocale

LOCALE = NumberLocale(
    spacing="",  # Japanese writes no space between words
    lang="ja",
    score_word="対",  # 二対一: a score or a ratio
    decimal_mark=".",
    group_marks=",",
    decimal_word="点",  # 3.5: 三点五
    minus_word="マイナス",
    plural="invariant",
    cardinal="spellout-cardinal",
    year=None,
    currencies={
        "¥": Currency(Noun("円")),
        "￥": Currency(Noun("円")),
        "円": Currency(Noun("円")),
        "JPY": Currency(Noun("円")),
        "€": Currency(Noun("ユーロ"), Noun("セント")),
        "EUR": Currency(Noun("ユーロ"), Noun("セント")),
        "$": Currency(Noun("ドル"), Noun("セント")),
        "USD": Currency(Noun("ドル"), Noun("セント")),
    },
    money="{major}{unit}",
    money_with_minor="{major}{unit}{minor}{subunit}",
    units={
        "%": Noun("パーセント"),
        "km/h": Noun("キロメートル毎時"),
        "km": Noun("キロメートル"),
        "m": Noun("メートル"),
        "cm": Noun("センチメートル"),
        "mm": Noun("ミリメートル"),
        "kg": Noun("キログラム"),
        "g": Noun("グラム"),
        "l": Noun("リットル"),
        "ml": Noun("ミリリットル"),
        "°C": Noun("度"),
        "°": Noun("度"),
        "h": Noun("時間"),
        "min": Noun("分"),
        "s": Noun("秒"),
    },
    # 14:30 is said 十四時三十分, 9:00 九時.
    time="{hour}時{minute}分",
    time_on_the_hour="{hour}時",
    # A numeric date is written year first (2026/08/24), which the date rules cannot read (they keep
    # what comes before the day as written); 2026年8月24日 is read by the cardinals before 年, 月 and 日.
    symbols={"&": "アンド", "+": "プラス", "=": "イコール", "№": "ナンバー", "%": "パーセント", "°": "度"},
)

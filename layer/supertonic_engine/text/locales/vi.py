"""Vietnamese: decimal comma, thousands grouped by a dot, the đồng sign after the amount (50.000 ₫,
50.000đ), as Vietnamese texts write them (Thông tư 01/2011/TT-BNV on administrative documents
writes 1.000.000 and 3,5). A noun after a number does not change (năm ki-lô-mét), so every form is
``other``. A loanword unit is written in hyphenated syllables as the dictionaries spell it."""

from ..number_locale import Currency, Noun, NumberLocale

LOCALE = NumberLocale(
    keeps=("ordinal",),
    kept=(
        r"\bthứ \d+",
    ),  # thứ 1 is thứ nhất, thứ 4 thứ tư: not the cardinal  # said in ways these rules cannot: their digits stay (tests/number_readings)
    lang="vi",
    decimal_mark=",",
    group_marks=". ",
    decimal_word="phẩy",
    minus_word="âm",  # âm năm độ: below zero
    plural="invariant",
    year=None,
    year_cues=("năm", "từ năm", "đến năm"),
    currencies={
        "₫": Currency(Noun("đồng")),
        "đ": Currency(Noun("đồng")),
        "VND": Currency(Noun("đồng")),
        "€": Currency(Noun("euro"), Noun("xu")),
        "EUR": Currency(Noun("euro"), Noun("xu")),
        "$": Currency(Noun("đô la"), Noun("xu")),
        "USD": Currency(Noun("đô la"), Noun("xu")),
    },
    units={
        "%": Noun("phần trăm"),
        "km/h": Noun("ki-lô-mét trên giờ"),
        "km": Noun("ki-lô-mét"),
        "m": Noun("mét"),
        "cm": Noun("xen-ti-mét"),
        "mm": Noun("mi-li-mét"),
        "kg": Noun("ki-lô-gam"),
        "g": Noun("gam"),
        "l": Noun("lít"),
        "ml": Noun("mi-li-lít"),
        "°C": Noun("độ C"),
        "°": Noun("độ"),
        "h": Noun("giờ"),
        "min": Noun("phút"),
        "s": Noun("giây"),
    },
    # 14:30 and 14h30 are said mười bốn giờ ba mươi phút.
    time="{hour} giờ {minute} phút",
    time_on_the_hour="{hour} giờ",
    time_marks=":h",
    dates=((r"(?<![\d/])(?P<d>[0-3]?\d)/(?P<m>[01]?\d)/(?P<y>\d{4})(?!\d)", "spellout-cardinal"),),
    # ngày 24/8/2026: ngày hai mươi tư tháng tám năm hai nghìn không trăm hai mươi sáu.
    date="{day} {month} năm {year}",
    # The fourth month is tháng tư, not tháng bốn.
    months=(
        "tháng một",
        "tháng hai",
        "tháng ba",
        "tháng tư",
        "tháng năm",
        "tháng sáu",
        "tháng bảy",
        "tháng tám",
        "tháng chín",
        "tháng mười",
        "tháng mười một",
        "tháng mười hai",
    ),
    symbols={"&": "và", "+": "cộng", "=": "bằng", "№": "số", "%": "phần trăm", "°": "độ"},
)

"""Turkish: decimal comma, thousands grouped by a dot, the percent sign before the number (%50, yüzde
elli), ordinals written 3. or 3'üncü (TDK, Yazım Kılavuzu: Sayıların Yazımı). A noun after a number
stays singular (beş kilometre), so every form is ``other``. A year is said as a cardinal (bin dokuz
yüz doksan dokuz) and usually followed by a suffix (1999'da, 1999 yılında), not preceded by a cue
word, so the cardinal reads it."""

from ..number_locale import Currency, Noun, NumberLocale

LOCALE = NumberLocale(
    lang="tr",
    decimal_mark=",",
    group_marks=". ",
    decimal_word="virgül",
    minus_word="eksi",
    plural="invariant",
    year=None,
    # 3,25 is said üç virgül yirmi beş.
    fraction_as_number=True,
    percent_before=True,
    currencies={
        "₺": Currency(Noun("lira"), Noun("kuruş")),
        "TL": Currency(Noun("lira"), Noun("kuruş")),
        "€": Currency(Noun("avro"), Noun("sent")),
        "EUR": Currency(Noun("avro"), Noun("sent")),
        "$": Currency(Noun("dolar"), Noun("sent")),
        "USD": Currency(Noun("dolar"), Noun("sent")),
    },
    units={
        "%": Noun("yüzde"),
        # Unsure: a speaker may also say "saatte doksan kilometre"; "bölü saat" is how the unit itself is read.
        "km/h": Noun("kilometre bölü saat"),
        "km/sa": Noun("kilometre bölü saat"),
        "km": Noun("kilometre"),
        "m": Noun("metre"),
        "cm": Noun("santimetre"),
        "mm": Noun("milimetre"),
        "kg": Noun("kilogram"),
        "g": Noun("gram"),
        "l": Noun("litre"),
        "ml": Noun("mililitre"),
        "°C": Noun("santigrat derece"),
        "°": Noun("derece"),
        "h": Noun("saat"),
        "sa": Noun("saat"),
        "min": Noun("dakika"),
        "dk": Noun("dakika"),
        "s": Noun("saniye"),
        "sn": Noun("saniye"),
    },
    # TDK: 3'üncü with the suffix after an apostrophe, or 3. with a dot; a dot before a capital that
    # starts a sentence is a full stop, so only a dot before a lower-case word is an ordinal.
    ordinals=(
        (r"(?<![\d.,])(?P<n>\d{1,4})'?(?:inci|ıncı|uncu|üncü|nci|ncı|ncu|ncü)(?!\w)", "spellout-ordinal"),
        (r"(?<![\d.,])(?P<n>\d{1,4})\.(?=\s[a-zçğıöşü])", "spellout-ordinal"),
    ),
    # 14:30 is said on dört otuz. TDK writes the time with a dot too (14.30), which a text also
    # uses for a decimal written the English way, so only the colon is read as a time.
    time="{hour} {minute}",
    time_on_the_hour="{hour}",
    dates=(
        (r"(?<![\d.])(?P<d>[0-3]?\d)\.(?P<m>[01]?\d)\.(?P<y>\d{4})(?!\d)", "spellout-cardinal"),
        (r"(?<![\d/])(?P<d>[0-3]?\d)/(?P<m>[01]?\d)/(?P<y>\d{4})(?!\d)", "spellout-cardinal"),
    ),
    # The day is a cardinal and the month capitalized in a full date (TDK: 24 Ağustos 2026).
    date="{day} {month} {year}",
    months=("Ocak", "Şubat", "Mart", "Nisan", "Mayıs", "Haziran", "Temmuz", "Ağustos", "Eylül", "Ekim", "Kasım", "Aralık"),
    symbols={"&": "ve", "+": "artı", "=": "eşittir", "№": "numara", "%": "yüzde", "°": "derece"},
)

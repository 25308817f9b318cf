"""Hindi: decimal point, the rupee sign before the amount (₹500), numbers said by lakh and crore (एक लाख).
Thousands are grouped the Indian way (1,00,000), which the shared number pattern (groups of three)
does not take: such a number keeps its digits; 100,000 and 100000 are read. 0 and 1 take the
singular (एक घंटा, दो घंटे). Devanagari digits (२५) are digits too."""

from ..number_locale import Currency, Noun, NumberLocale

_RUPEE = Currency(Noun("रुपये", one="रुपया"), Noun("पैसे", one="पैसा"))

LOCALE = NumberLocale(
    keeps=("year",),  # said in ways these rules cannot: their digits stay (tests/number_readings)
    lang="hi",
    decimal_mark=".",
    group_marks=",",
    decimal_word="दशमलव",  # 3.5: तीन दशमलव पाँच
    minus_word="माइनस",  # as news and weather reports say it (माइनस पाँच डिग्री); mathematics says ऋण
    plural="zero_one_other",
    cardinal="spellout-cardinal",
    currencies={
        "₹": _RUPEE,
        "रु.": _RUPEE,
        "Rs.": _RUPEE,
        "Rs": _RUPEE,
        "INR": _RUPEE,
        "€": Currency(Noun("यूरो"), Noun("सेंट")),
        "EUR": Currency(Noun("यूरो"), Noun("सेंट")),
        "$": Currency(Noun("डॉलर"), Noun("सेंट")),
        "USD": Currency(Noun("डॉलर"), Noun("सेंट")),
    },
    units={
        "%": Noun("प्रतिशत"),
        "km/h": Noun("किलोमीटर प्रति घंटा"),
        "km": Noun("किलोमीटर"),
        "m": Noun("मीटर"),
        "cm": Noun("सेंटीमीटर"),
        "mm": Noun("मिलीमीटर"),
        "kg": Noun("किलोग्राम"),
        "g": Noun("ग्राम"),
        "l": Noun("लीटर"),
        "ml": Noun("मिलीलीटर"),
        "°C": Noun("डिग्री सेल्सियस"),
        "°": Noun("डिग्री"),
        "h": Noun("घंटे", one="घंटा"),
        "min": Noun("मिनट"),
        "s": Noun("सेकंड"),
    },
    # 1ला, 2रा, 3रा, 4था, 6ठा (and 1ली ... 6ठी) are written with the ending of the word they stand for;
    # from 5 on the ending is वाँ / वीं after the cardinal (5वाँ, 21वीं सदी), which the cardinal
    # followed by the written ending already says (पाँचवाँ, इक्कीसवीं). CLDR's feminine rule set
    # writes those without the nasal mark (पाँचवी), so it reads only the irregular ones.
    ordinals=(
        (r"(?<![\d.,])(?P<n>[1-46])(?:(?<=1)ला|(?<=[23])रा|(?<=4)था|(?<=6)ठा)(?!\w)", "spellout-ordinal-masculine"),
        (r"(?<![\d.,])(?P<n>[1-46])(?:(?<=1)ली|(?<=[23])री|(?<=4)थी|(?<=6)ठी)(?!\w)", "spellout-ordinal-feminine"),
    ),
    # 14:30 is said चौदह बजकर तीस मिनट, 9:00 नौ बजे.
    time="{hour} बजकर {minute} मिनट",
    time_on_the_hour="{hour} बजे",
    dates=(
        (r"(?<![\d/])(?P<d>[0-3]?\d)/(?P<m>[01]?\d)/(?P<y>\d{4})(?!\d)", "spellout-cardinal"),
        (r"(?<![\d-])(?P<d>[0-3]?\d)-(?P<m>[01]?\d)-(?P<y>\d{4})(?!\d)", "spellout-cardinal"),
    ),
    date="{day} {month} {year}",
    months=("जनवरी", "फ़रवरी", "मार्च", "अप्रैल", "मई", "जून", "जुलाई", "अगस्त", "सितंबर", "अक्टूबर", "नवंबर", "दिसंबर"),
    symbols={"&": "और", "+": "धन", "=": "बराबर", "№": "नंबर", "%": "प्रतिशत", "°": "डिग्री"},
)

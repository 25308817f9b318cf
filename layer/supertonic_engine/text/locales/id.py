"""Indonesian: decimal comma, thousands grouped by a dot, the rupiah sign before the amount (Rp50.000),
ordinals written ke-2 (PUEBI/EYD V, Penulisan Angka dan Bilangan). A noun after a number does not
change (lima kilometer), so every form is ``other``. Cent amounts of the rupiah are not said (the sen
is out of use)."""

from ..number_locale import Currency, Noun, NumberLocale

LOCALE = NumberLocale(
    time_cues=("pukul", "Pukul", "jam", "Jam"),  # a dot time is read after these
    lang="id",
    decimal_mark=",",
    group_marks=". ",
    decimal_word="koma",
    minus_word="minus",
    plural="invariant",
    year=None,
    year_cues=("tahun", "sejak", "hingga", "sampai", "pada"),
    currencies={
        "Rp": Currency(Noun("rupiah")),
        "IDR": Currency(Noun("rupiah")),
        "€": Currency(Noun("euro"), Noun("sen")),
        "EUR": Currency(Noun("euro"), Noun("sen")),
        "$": Currency(Noun("dolar"), Noun("sen")),
        "USD": Currency(Noun("dolar"), Noun("sen")),
    },
    units={
        "%": Noun("persen"),
        "km/jam": Noun("kilometer per jam"),
        "km/h": Noun("kilometer per jam"),
        "km": Noun("kilometer"),
        "m": Noun("meter"),
        "cm": Noun("sentimeter"),
        "mm": Noun("milimeter"),
        "kg": Noun("kilogram"),
        "g": Noun("gram"),
        "l": Noun("liter"),
        "ml": Noun("mililiter"),
        "°C": Noun("derajat Celsius"),
        "°": Noun("derajat"),
        "h": Noun("jam"),
        "jam": Noun("jam"),
        "min": Noun("menit"),
        "s": Noun("detik"),
    },
    # "ke-2" needs no rule of its own: the cardinal after the hyphen says kedua (ke-dua), as written.
    # 14:30 is said empat belas tiga puluh. PUEBI writes the time with a dot (pukul 14.30), which a
    # text also uses for a decimal written the English way, so only the colon is read as a time.
    time="{hour} {minute}",
    time_on_the_hour="{hour} tepat",
    dates=(
        (r"(?<![\d/])(?P<d>[0-3]?\d)/(?P<m>[01]?\d)/(?P<y>\d{4})(?!\d)", "spellout-cardinal"),
        (r"(?<![\d-])(?P<d>[0-3]?\d)-(?P<m>[01]?\d)-(?P<y>\d{4})(?!\d)", "spellout-cardinal"),
    ),
    date="{day} {month} {year}",
    months=("Januari", "Februari", "Maret", "April", "Mei", "Juni", "Juli", "Agustus", "September", "Oktober", "November", "Desember"),
    symbols={"&": "dan", "+": "tambah", "=": "sama dengan", "№": "nomor", "%": "persen", "°": "derajat"},
)

"""Japanese: kanji numerals by myriads (一万, 百万), the decimal point said 点, the counter written after
the digits (年, 月, 日, 時, 円, 第…回) kept as written after its cardinal; years are said as cardinals
(千九百九十九年), not digit by digit. Arabic digits are what the readings leave none of; kanji
numerals are words."""

READINGS = [
    ("cardinal", "私は25歳です。", "私は二十五歳です。"),
    ("cardinal", "人口は1,000,000人です。", "人口は百万人です。"),
    ("cardinal", "参加者は12,000人。", "参加者は一万二千人。"),
    ("cardinal", "2:1で勝った。", "二 対 一で勝った。"),
    ("decimal", "円周率は3.14です。", "円周率は三点一四です。"),
    ("other convention", "重さは3,5です。", "重さは三点五です。"),
    ("ordinal", "第3回の大会です。", "第三回の大会です。"),
    ("ordinal", "2番目の駅です。", "二番目の駅です。"),
    ("negative", "最低気温：-5度", "最低気温：マイナス 五度"),
    ("percent", "売上は50%。", "売上は五十パーセント。"),
    ("currency", "値段は¥1,000です。", "値段は千円です。"),
    ("currency", "値段は1,500円です。", "値段は千五百円です。"),
    ("currency", "値段は$3.50です。", "値段は三ドル五十セントです。"),
    ("year", "1999年に生まれました。", "千九百九十九年に生まれました。"),
    ("time", "14:30に出発します。", "十四時三十分に出発します。"),
    ("time", "9:00に開店します。", "九時に開店します。"),
    ("date", "2026年8月24日に会いましょう。", "二千二十六年八月二十四日に会いましょう。"),
    ("unit", "毎日10 km。", "毎日十キロメートル。"),
    ("unit", "体重は60 kg。", "体重は六十キログラム。"),
    ("symbol", "A & B", "A アンド B"),
]
KEPT: dict[str, str] = {}

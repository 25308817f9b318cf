"""Greek: ordinals written with their ending, which gives their gender (1ος, 2η, 3ο)."""

READINGS = [
    ("ordinal", "Βγήκε 2ος στον αγώνα.", "Βγήκε δεύτερος στον αγώνα."),
    ("ordinal", "Ήρθε 1η στη σειρά.", "Ήρθε πρώτη στη σειρά."),
    ("ordinal", "Το 3ο κεφάλαιο λείπει.", "Το τρίτο κεφάλαιο λείπει."),
    ("ordinal", "Ο 21ος αιώνας άρχισε.", "Ο εικοστός πρώτος αιώνας άρχισε."),
    ("ordinal", "Η 4η θέση είναι δική της.", "Η τέταρτη θέση είναι δική της."),
    ("ordinal", "Το 10ο βιβλίο του.", "Το δέκατο βιβλίο του."),
    ("ordinal", "Η 13η Μαΐου.", "Η δέκατη τρίτη Μαΐου."),
    ("ordinal", "Ο 5ος όροφος.", "Ο πέμπτος όροφος."),
    ("ordinal", "Το 2ο μισό.", "Το δεύτερο μισό."),
    ("ordinal", "Η 30η επέτειος.", "Η τριακοστή επέτειος."),
    ("ordinal", "Ο 11ος παίκτης.", "Ο ενδέκατος παίκτης."),
    ("symbol", "Παπαδόπουλος & υιοί", "Παπαδόπουλος και υιοί"),
    ("symbol", "α + β", "α συν β"),
    ("symbol", "α = β", "α ίσον β"),
    ("symbol", "Φάκελος №", "Φάκελος αριθμός"),
]
_WORDS = "CLDR's Greek words misspell two thousand and more (χίλιάδες) and ninety (εννενήντα) in every rule set"
KEPT = {
    "cardinal": _WORDS,
    "decimal": _WORDS,
    "other convention": _WORDS,
    "negative": _WORDS,
    "percent": _WORDS,
    "currency": _WORDS,
    "unit": _WORDS,
    "year": _WORDS,
    "date": _WORDS,
    "time": "CLDR writes thirteen without its accent (δεκατρεις for δεκατρείς) in the feminine an hour takes",
}

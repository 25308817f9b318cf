"""Indonesian, from PUEBI/EYD V (Penulisan Angka dan Bilangan: the decimal comma, the dot grouping
thousands, ordinals ke-2, Rp before the amount); a noun after a number does not change."""

READINGS = [
    ("cardinal", "Ada 25 siswa.", "Ada dua puluh lima siswa."),
    ("cardinal", "Kota itu dihuni 1.000.000 orang.", "Kota itu dihuni satu juta orang."),
    ("cardinal", "Saya punya 11 buku.", "Saya punya sebelas buku."),
    ("decimal", "Tingginya 1,75 meter.", "Tingginya satu koma tujuh lima meter."),
    ("other convention", "Nilainya 3.5 poin.", "Nilainya tiga koma lima poin."),
    ("ordinal", "Dia juara ke-2.", "Dia juara ke-dua."),
    ("negative", "Suhunya -5 derajat.", "Suhunya minus lima derajat."),
    ("percent", "Harga naik 50%.", "Harga naik lima puluh persen."),
    ("currency", "Harganya Rp50.000.", "Harganya lima puluh ribu rupiah."),
    ("currency", "Harganya $3,50.", "Harganya tiga dolar lima puluh sen."),
    ("year", "Saya lahir tahun 1999.", "Saya lahir tahun seribu sembilan ratus sembilan puluh sembilan."),
    ("time", "Kereta berangkat pukul 14:30.", "Kereta berangkat pukul empat belas tiga puluh."),
    ("time", "Kami buka pukul 09:00.", "Kami buka pukul sembilan tepat."),
    ("date", "Tanggal 24/08/2026", "Tanggal dua puluh empat Agustus dua ribu dua puluh enam"),
    ("unit", "Saya lari 10 km.", "Saya lari sepuluh kilometer."),
    ("unit", "Beratnya 2 kg.", "Beratnya dua kilogram."),
    ("symbol", "Budi & Ani", "Budi dan Ani"),
]
KEPT: dict[str, str] = {}

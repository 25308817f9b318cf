"""Turkish, from TDK's Yazım Kılavuzu (Sayıların Yazımı: the decimal comma, the dot grouping thousands,
%50 read yüzde elli, ordinals 3. and 3'üncü, dates 24.08.2026); a noun after a number stays singular."""

READINGS = [
    ("cardinal", "Sınıfta 25 öğrenci var.", "Sınıfta yirmi beş öğrenci var."),
    ("cardinal", "Şehirde 1.000.000 kişi yaşıyor.", "Şehirde bir milyon kişi yaşıyor."),
    ("decimal", "Boyu 1,75 metre.", "Boyu bir virgül yetmiş beş metre."),
    ("other convention", "Oran 3.5 oldu.", "Oran üç virgül beş oldu."),
    ("ordinal", "Yarışta 3. oldu.", "Yarışta üçüncü oldu."),
    ("ordinal", "Bu 2'nci denemem.", "Bu ikinci denemem."),
    ("negative", "Hava -5 derece.", "Hava eksi beş derece."),
    ("percent", "Fiyatlar %50 arttı.", "Fiyatlar yüzde elli arttı."),
    ("percent", "Satışlar 50% arttı.", "Satışlar yüzde elli arttı."),  # the sign written after, as in English texts
    ("currency", "Bilet 3,50 TL.", "Bilet üç lira elli kuruş."),
    ("currency", "Kitap 20 ₺.", "Kitap yirmi lira."),
    ("currency", "Toplam $15.", "Toplam on beş dolar."),
    ("year", "Ben 1999 yılında doğdum.", "Ben bin dokuz yüz doksan dokuz yılında doğdum."),
    ("time", "Tren 14:30'da kalkıyor.", "Tren on dört otuz'da kalkıyor."),
    ("time", "Saat 09:00.", "Saat dokuz."),
    ("date", "Tarih: 24.08.2026", "Tarih: yirmi dört Ağustos iki bin yirmi altı"),
    ("unit", "Her gün 10 km koşuyorum.", "Her gün on kilometre koşuyorum."),
    ("unit", "Paket 2 kg.", "Paket iki kilogram."),
    ("symbol", "Ali & Veli", "Ali ve Veli"),
]
KEPT: dict[str, str] = {}

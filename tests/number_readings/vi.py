"""Vietnamese: the decimal comma and the dot grouping thousands as administrative texts write them
(Thông tư 01/2011/TT-BNV), the đồng after the amount, hours giờ and minutes phút; a noun after a
number does not change."""

READINGS = [
    ("cardinal", "Lớp có 25 học sinh.", "Lớp có hai mươi lăm học sinh."),
    ("cardinal", "Thành phố có 1.000.000 dân.", "Thành phố có một triệu dân."),
    ("cardinal", "Nhà số 105.", "Nhà số một trăm lẻ năm."),
    ("decimal", "Cao 1,5 mét.", "Cao một phẩy năm mét."),
    ("other convention", "Điểm 3.5 thôi.", "Điểm ba phẩy năm thôi."),
    ("negative", "Trời -5 độ.", "Trời âm năm độ."),
    ("percent", "Giá tăng 50%.", "Giá tăng năm mươi phần trăm."),
    ("currency", "Giá 50.000 ₫.", "Giá năm mươi nghìn đồng."),
    ("currency", "Giá $20.", "Giá hai mươi đô la."),
    ("year", "Tôi sinh năm 1999.", "Tôi sinh năm một nghìn chín trăm chín mươi chín."),
    ("time", "Tàu chạy lúc 14:30.", "Tàu chạy lúc mười bốn giờ ba mươi phút."),
    ("time", "Mở cửa lúc 9h00.", "Mở cửa lúc chín giờ."),
    ("date", "Ngày 24/08/2026", "Ngày hai mươi tư tháng tám năm hai nghìn không trăm hai mươi sáu"),
    ("unit", "Tôi chạy 10 km.", "Tôi chạy mười ki-lô-mét."),
    ("unit", "Nặng 2 kg.", "Nặng hai ki-lô-gam."),
    ("symbol", "Nam & Lan", "Nam và Lan"),
]
KEPT = {
    "ordinal": "thứ 1 and thứ 4 are said thứ nhất and thứ tư; CLDR's ordinal rule set says them with its own "
    "thứ, which the written thứ before the digits would double, so the cardinal after it says thứ một",
}

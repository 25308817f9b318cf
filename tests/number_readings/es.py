"""Spanish, from the RAE's Ortografía (2010) 8.1.3 (the decimal comma, thousands) and the Diccionario
panhispánico de dudas (ordinals 1.º/1.ª, the time, "por ciento"); the euro sign after the amount."""

READINGS = [
    ("cardinal", "Tengo 25 años.", "Tengo veinticinco años."),
    ("cardinal", "Vinieron 1.000.000 de personas.", "Vinieron un millón de personas."),
    ("cardinal", "Hay 22 sillas.", "Hay veintidós sillas."),
    ("decimal", "Pesa 3,5 kg.", "Pesa tres coma cinco kilos."),
    ("other convention", "Pesa 3.5 kg.", "Pesa tres coma cinco kilos."),
    ("other convention", "Llegaron 1.000 cartas.", "Llegaron mil cartas."),
    ("other convention", "Costó 15,000 pesos.", "Costó quince mil pesos."),
    ("ordinal", "Quedó en 1.er lugar.", "Quedó en primer lugar."),
    ("ordinal", "Es la 2.ª vez.", "Es la segunda vez."),
    ("negative", "Estamos a -5 grados.", "Estamos a menos cinco grados."),
    ("percent", "Subió un 50 %.", "Subió un cincuenta por ciento."),
    ("currency", "Cuesta 3,50 €.", "Cuesta tres euros con cincuenta céntimos."),
    ("currency", "Son $20.", "Son veinte dólares."),
    ("year", "Nací en 1999.", "Nací en mil novecientos noventa y nueve."),
    ("time", "Salimos a las 14:30.", "Salimos a las catorce treinta."),
    ("time", "Abrimos a las 9:00.", "Abrimos a las nueve en punto."),
    ("date", "Llego el 24/08/2026.", "Llego el veinticuatro de agosto de dos mil veintiséis."),
    ("unit", "Recorrí 10 km.", "Recorrí diez kilómetros."),
    ("unit", "Tardó 1 h.", "Tardó una hora."),
    ("symbol", "Pérez & Hijos", "Pérez y Hijos"),
    ("symbol", "Los precios en € subieron.", "Los precios en euros subieron."),
    ("currency", "Ganó 1.000.000 €.", "Ganó un millón de euros."),  # de after a round million (RAE: un millón de euros)
    ("cardinal", "Tengo 1 casa.", "Tengo una casa."),  # a number agrees with the noun it counts
    ("cardinal", "Leí 21 páginas.", "Leí veintiuna páginas."),  # DPD: veintiuna before a feminine noun
    ("cardinal", "Vinieron 200 personas.", "Vinieron doscientas personas."),
    ("cardinal", "Lo dijo 21 veces.", "Lo dijo veintiuna veces."),
    ("cardinal", "Fue 1 día.", "Fue un día."),  # día, problema, mapa: masculine in -a
    ("cardinal", "Hay 1 problema.", "Hay un problema."),
    ("cardinal", "Tarda 3-5 días.", "Tarda tres a cinco días."),  # a range is read with a (de 3 a 5 días)
    ("cardinal", "El Madrid ganó 2:0.", "El Madrid ganó dos a cero."),
]
KEPT: dict[str, str] = {}

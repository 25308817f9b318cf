"""Portuguese in the Brazilian norm CLDR's "pt" follows (dezesseis, quilômetro), from the Academia
Brasileira de Letras' VOLP and the Acordo Ortográfico de 1990 (lower-case months, 1º / 1.ª), with the
reading of prices (três reais e cinquenta centavos) and of dates (primeiro de maio) as Brazilian
grammars give them."""

READINGS = [
    ("cardinal", "Tenho 25 anos.", "Tenho vinte e cinco anos."),
    ("cardinal", "Vieram 1.000.000 de pessoas.", "Vieram um milhão de pessoas."),
    ("cardinal", "Comprei 16 livros.", "Comprei dezesseis livros."),
    ("decimal", "Pesa 3,5 kg.", "Pesa três vírgula cinco quilos."),
    ("decimal", "Pi vale cerca de 3,14.", "Pi vale cerca de três vírgula catorze."),
    ("other convention", "O valor é 3.5 segundo o relatório.", "O valor é três vírgula cinco segundo o relatório."),
    ("ordinal", "Ficou em 1º lugar.", "Ficou em primeiro lugar."),
    ("ordinal", "É a 2.ª vez.", "É a segunda vez."),
    ("negative", "Fazia -5 graus.", "Fazia menos cinco graus."),
    ("percent", "Subiu 50 %.", "Subiu cinquenta por cento."),
    ("currency", "Custa R$ 3,50.", "Custa três reais e cinquenta centavos."),
    ("currency", "Custa 20 €.", "Custa vinte euros."),
    ("currency", "São US$ 2.", "São dois dólares."),
    ("year", "Nasci em 1999.", "Nasci em mil novecentos e noventa e nove."),
    ("time", "Saímos às 14:30.", "Saímos às catorze e trinta."),
    ("time", "Chego às 14h30.", "Chego às catorze e trinta."),
    ("time", "Abrimos às 9:00.", "Abrimos às nove em ponto."),
    ("date", "Chego no dia 24/08/2026.", "Chego no dia vinte e quatro de agosto de dois mil e vinte e seis."),
    ("date", "O 1/5/2026 é feriado.", "O primeiro de maio de dois mil e vinte e seis é feriado."),
    ("unit", "Corri 10 km.", "Corri dez quilômetros."),
    ("unit", "Demorou 2 h.", "Demorou duas horas."),
    ("symbol", "Silva & Filhos", "Silva e Filhos"),
    ("cardinal", "Tenho 1 casa.", "Tenho uma casa."),  # a number agrees with the noun it counts
    ("cardinal", "Comprei 2 casas.", "Comprei duas casas."),
    ("cardinal", "Foi 1 dia.", "Foi um dia."),  # dia, problema, mapa: masculine in -a
    ("cardinal", "Resolvi 2 problemas.", "Resolvi dois problemas."),
    ("cardinal", "Leva 3-5 dias.", "Leva três a cinco dias."),  # a range is read with a (de 3 a 5 dias)
]
KEPT: dict[str, str] = {}

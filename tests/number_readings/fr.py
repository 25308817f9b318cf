"""French, from the Imprimerie nationale's Lexique des règles typographiques (numbers grouped by a space,
the decimal comma, 1er / 1re / 2e, 14 h 30) and the Office québécois de la langue française's Banque de
dépannage linguistique (le premier mai, the singular below two); compound numbers hyphenated with "et"
as the 1990 rectifications write them (vingt-et-un)."""

READINGS = [
    ("cardinal", "J'ai 25 ans.", "J'ai vingt-cinq ans."),
    ("cardinal", "Il y avait 1 000 000 de personnes.", "Il y avait un million de personnes."),
    ("cardinal", "Elle a 80 ans.", "Elle a quatre-vingts ans."),
    ("cardinal", "Voir la page 71.", "Voir la page soixante-et-onze."),
    ("decimal", "Il pèse 3,5 kg de plus.", "Il pèse trois virgule cinq kilogrammes de plus."),
    ("decimal", "Pi vaut environ 3,14.", "Pi vaut environ trois virgule quatorze."),
    ("other convention", "La valeur est 3.5 selon le rapport.", "La valeur est trois virgule cinq selon le rapport."),
    ("other convention", "Il a reçu 1.000.000 de votes.", "Il a reçu un million de votes."),
    ("ordinal", "Il est arrivé 1er.", "Il est arrivé premier."),
    ("ordinal", "C'est la 1re fois.", "C'est la première fois."),
    ("ordinal", "J'habite au 3e étage.", "J'habite au troisième étage."),
    ("negative", "Le solde est de -5 ce mois-ci.", "Le solde est de moins cinq ce mois-ci."),
    ("percent", "Le taux est de 50 %.", "Le taux est de cinquante pour cent."),
    ("currency", "Ça coûte 3,50 €.", "Ça coûte trois euros et cinquante centimes."),
    ("currency", "Il a payé $20.", "Il a payé vingt dollars."),
    ("currency", "Le ticket coûte 1 €.", "Le ticket coûte un euro."),
    ("year", "Je suis né en 1999.", "Je suis né en mille neuf cent quatre-vingt-dix-neuf."),
    ("time", "Le train part à 14h30.", "Le train part à quatorze heures trente."),
    ("time", "On commence à 9:00.", "On commence à neuf heures."),
    ("date", "J'arrive le 24/08/2026.", "J'arrive le vingt-quatre août deux mille vingt-six."),
    ("date", "Le 01/05/2026 est férié.", "Le premier mai deux mille vingt-six est férié."),
    ("unit", "Le trajet fait 10 km.", "Le trajet fait dix kilomètres."),
    ("unit", "Il roulait à 90 km/h.", "Il roulait à quatre-vingt-dix kilomètres par heure."),
    ("unit", "Ça dure 1 h.", "Ça dure une heure."),
    ("symbol", "Dupont & Fils", "Dupont et Fils"),
    ("symbol", "Appartement n° 5", "Appartement numéro cinq"),
    ("currency", "Il a gagné 1 000 000 €.", "Il a gagné un million d'euros."),  # de, elided before a vowel
    ("time", "Le train part à 1:05.", "Le train part à une heure cinq."),  # une heure: the singular up to one
    ("time", "Ouvert de 14:00-16:00.", "Ouvert de quatorze heures à seize heures."),
    ("cardinal", "J'ai 1 maison.", "J'ai une maison."),  # a number agrees with the noun it counts
    ("cardinal", "Il y a 21 pages.", "Il y a vingt-et-une pages."),
    ("cardinal", "Je l'ai dit 1 fois.", "Je l'ai dit une fois."),
    ("cardinal", "Il a 21 ans.", "Il a vingt-et-un ans."),
    ("decimal", "Il a couru 1,5 km.", "Il a couru un virgule cinq kilomètre."),  # BDL: the singular below two
    ("decimal", "Il a couru 2,5 km.", "Il a couru deux virgule cinq kilomètres."),
    ("cardinal", "Il faut 3-5 jours.", "Il faut trois à cinq jours."),  # a range is read with à (3 à 5 jours)
    ("cardinal", "Comptez 10–20 €.", "Comptez dix à vingt euros."),
    ("cardinal", "Le PSG a gagné 3:1.", "Le PSG a gagné trois à un."),
    ("year", "La guerre de 1914-1918.", "La guerre de mille neuf cent quatorze à mille neuf cent dix-huit."),
]
KEPT: dict[str, str] = {}

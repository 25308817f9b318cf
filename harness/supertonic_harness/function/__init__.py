"""The function under RIE, as Lambda runs it: its spec and template, RIE and its log, limits, measurements, outcomes."""

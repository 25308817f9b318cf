"""One module per language, each with its ``LOCALE`` (``number_locale.NumberLocale``), imported on the language's first text."""

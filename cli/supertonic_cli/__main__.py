"""``python -m supertonic_cli``: the same as the ``supertonic-lambda`` console script."""

import sys

from .main import main

sys.exit(main())

"""``python -m supertonic_function.runtime MODULE.FUNCTION``: the streaming-capable runtime loop."""

import sys

from .loop import main

sys.exit(main(sys.argv[1:]))

"""``python -m supertonic_tools.optimize MODEL_DIR [--out DIR]``: the image build step."""

from . import main

raise SystemExit(main())

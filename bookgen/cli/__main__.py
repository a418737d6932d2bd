"""``python -m bookgen.cli``: the same as ``c4book``."""

import sys

from . import main

sys.exit(main())

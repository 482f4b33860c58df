"""``python -m lyt_toolkit.cli``: the same as the ``lyt`` command."""

import sys

from . import main

sys.exit(main())

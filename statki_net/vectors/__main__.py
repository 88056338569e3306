"""``python -m statki_net.vectors protocol/`` writes protocol/'s test vectors."""

import sys

from . import main

sys.exit(main())

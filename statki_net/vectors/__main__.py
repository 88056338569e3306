"""``python -m statki_net.vectors protocol/`` writes protocol/'s test vectors."""

import sys

from statki_net.vectors import main

sys.exit(main())

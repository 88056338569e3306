import sys

from statki_net.cli.main import main

sys.exit(main())

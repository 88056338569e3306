import sys

from statki_net.cli.main import main

# Guarded: a worker process started by "spawn" imports this module again.
if __name__ == "__main__":
    sys.exit(main())

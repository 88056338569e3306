"""The ``statki`` command line: one module a subcommand, and the line front end.

The top layer: may import everything, including the client (``statki_client``).
"""

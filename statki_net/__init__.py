"""statki: the Battleship of Polish school notebooks, played peer to peer.

The subpackages are the layers, from the bottom up; each may import only
those listed before it (tests/test_layers.py checks this):

- ``game``: squares, rules, fleets, answers, the replay check.  Pure.
- ``protocol``: messages and their encoding, the commitment, the phases and
  the state machine, a side's session and its behaviour, the log format.  Pure.
- ``referee``: judging a log.  Pure.
- ``ai``: estimates, strategies, analysis, the computer player.  Pure.
- ``store``: the log writer, history (SQLite), identity (the key).  Files.
- ``net``: listening, the connection driver, the daemon, the control socket.  asyncio.
- ``cli``: the ``statki`` command line and the line front end; it alone may
  import the full-screen client (``statki_client``).

Pure means: values in, values out; no sockets, files, clock or global
randomness (a generator or ``now`` is passed in).
"""

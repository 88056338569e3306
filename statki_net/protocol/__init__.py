"""The protocol core: messages and their encoding, the commitment, the phases and the
state machine, a side's session (sans I/O) and how it behaves, the players' talk
(outside the transcript), two sessions back to back, the log format.

Pure; imports only ``statki_net.game``.
"""

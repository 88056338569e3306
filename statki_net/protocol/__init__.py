"""The protocol core: messages and their encoding, the commitment, the state machine,
a side's session (sans I/O), the log format.

Pure; imports only ``statki_net.game``.
"""

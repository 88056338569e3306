"""What is kept on disk: the log writer, the history (SQLite), the player's key.

A shell: may import the pure layers, never ``net`` or ``cli``.
"""

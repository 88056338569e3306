"""The referee: judging a game from its log alone.

Pure (the caller reads the file); imports ``game`` and ``protocol``.
"""

"""The version of statki, in one place."""

__version__ = "0.1.0"
SOFTWARE = f"statki {__version__}"
"""How statki names itself in a hello."""

"""How the vectors are written: msgpack values as JSON, and the JSON files' layout."""

from __future__ import annotations

import json
from typing import Any


def as_json(value: Any) -> Any:
    """A msgpack value as JSON: a bin becomes ``{"bin": "<hex>"}``, the rest maps directly."""
    if isinstance(value, bytes):
        return {"bin": value.hex()}
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_json(item) for item in value]
    return value


def dump(value: Any) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode()

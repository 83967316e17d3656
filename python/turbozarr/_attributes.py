"""Attributes: the user attributes of an array or group as a mutable mapping
whose every change is written back to the store at once."""

from __future__ import annotations

import json
from collections.abc import Iterator, MutableMapping
from typing import Any


class Attributes(MutableMapping):
    """Dict-like view of a node's attributes; values must be JSON-compatible."""

    def __init__(self, node: Any):
        self._node = node  # an Array or Group of this package

    def asdict(self) -> dict[str, Any]:
        return json.loads(self._node._core.attributes_json)

    def put(self, attributes: dict[str, Any]) -> None:
        """Replaces every attribute."""
        self._node._check_writable()
        self._node._core.set_attributes(json.dumps(dict(attributes), allow_nan=True))

    def update(self, *args: Any, **kwargs: Any) -> None:  # one write, not one per key
        d = self.asdict()
        d.update(*args, **kwargs)
        self.put(d)

    def __getitem__(self, key: str) -> Any:
        return self.asdict()[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.update({key: value})

    def __delitem__(self, key: str) -> None:
        d = self.asdict()
        del d[key]
        self.put(d)

    def __iter__(self) -> Iterator[str]:
        return iter(self.asdict())

    def __len__(self) -> int:
        return len(self.asdict())

    def __repr__(self) -> str:
        return f"Attributes({self.asdict()!r})"

"""The deletion-receipt watcher: a live feed that survives dropped connections.

``GET /v1/deletion-receipts/watch`` streams server-sent events (docs/domain.md §5.3): ``receipt`` as
deletions commit, ``bookmark`` with the high-water mark while idle, ``expired`` when the cursor is below
the reclaimed floor. The watcher yields receipts in sequence order; when the connection drops it
reconnects with ``Last-Event-ID`` (the last sequence it saw, receipt or bookmark), so nothing is
missed or repeated. A cursor below the floor raises ``CursorExpiredError`` (its ``floor`` says where
to resume) — never a silent skip.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Optional

from .errors import CursorExpiredError, StatehouseError, TransportError

if TYPE_CHECKING:
    from ._transport import Transport

Json = dict[str, Any]


class ReceiptWatcher:
    """Iterate to receive receipts; ``position`` is the last sequence seen (resume point)."""

    def __init__(
        self,
        transport: "Transport",
        *,
        after: int = 0,
        filters: Optional[Mapping[str, Any]] = None,
        bookmark_seconds: int = 15,
        reconnect_delay: float = 0.5,
        max_reconnect_delay: float = 10.0,
        max_reconnects: Optional[int] = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._transport = transport
        self.position = after
        self._filters = dict(filters or {})
        self._bookmark_seconds = bookmark_seconds
        self._reconnect_delay = reconnect_delay
        self._max_reconnect_delay = max_reconnect_delay
        self._max_reconnects = max_reconnects
        self._sleep = sleep
        self._closed = False
        self.reconnects = 0
        self.high_water: Optional[int] = None

    def close(self) -> None:
        """Stops the iteration at the next event (or reconnect)."""
        self._closed = True

    def __iter__(self) -> Iterator[Json]:
        delay = self._reconnect_delay
        failures = 0
        while not self._closed:
            try:
                for event, data in self._events():
                    failures = 0
                    delay = self._reconnect_delay
                    if event == "receipt":
                        receipt = json.loads(data)
                        self.position = max(self.position, int(receipt["sequence"]))
                        yield receipt
                    elif event == "bookmark":
                        self.high_water = int(json.loads(data).get("highWater", self.position))
                        self.position = max(self.position, self.high_water)
                    elif event == "expired":
                        payload = json.loads(data) if data else {}
                        raise CursorExpiredError(
                            f"receipts after {self.position} were reclaimed; resume at the floor",
                            status=410,
                            problem={"code": "cursor_expired", **payload},
                        )
                    if self._closed:
                        return
            except CursorExpiredError:
                raise
            except TransportError:
                pass
            except StatehouseError:
                raise
            # The stream ended or dropped: reconnect after what we saw.
            if self._closed:
                return
            failures += 1
            self.reconnects += 1
            if self._max_reconnects is not None and failures > self._max_reconnects:
                raise TransportError(f"the receipt stream dropped {failures} times in a row")
            self._sleep(delay)
            delay = min(self._max_reconnect_delay, delay * 2)

    def _events(self) -> Iterator[tuple[str, str]]:
        """(event, data) pairs of one connection, parsed from the event-stream lines."""
        params = dict(self._filters)
        params["after"] = self.position
        params["bookmarkSeconds"] = self._bookmark_seconds
        headers = {"Last-Event-ID": str(self.position)}
        event = "message"
        data: list[str] = []
        for line in self._transport.stream_lines(
            "/v1/deletion-receipts/watch",
            params=params,
            headers=headers,
            timeout=self._bookmark_seconds * 3 + 5,
        ):
            if line == "":
                if data:
                    yield event, "\n".join(data)
                event, data = "message", []
            elif line.startswith(":"):
                continue
            elif line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip(" "))

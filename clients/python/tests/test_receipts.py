"""The receipt watcher: live receipts, resumption after a dropped stream, the floor as an error."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import pytest

from statehouse import CursorExpiredError
from statehouse._transport import Transport
from statehouse.receipts import ReceiptWatcher

from conftest import admin_json


def test_a_deletion_reaches_the_watcher(api, client):
    session = client.create_session(source="cli")
    start = client.list_receipts(profile=client.profile)["highWater"]
    watcher = client.watch_receipts(after=start, profile=client.profile)
    received: list[dict[str, Any]] = []

    def watch() -> None:
        for receipt in watcher:
            received.append(receipt)
            watcher.close()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    client.delete_session(session["id"])
    thread.join(timeout=30)
    assert [receipt["identities"][0]["id"] for receipt in received] == [session["id"]]
    assert watcher.position == received[0]["sequence"]
    replay = list(client.iter_receipts(after=start, profile=client.profile))
    assert [receipt["operationId"] for receipt in replay] == [received[0]["operationId"]]


def test_a_cursor_below_the_reclaimed_floor_raises_with_the_floor(api, client):
    for _ in range(2):
        client.delete_session(client.create_session(source="cli")["id"])
    high = client.list_receipts()["highWater"]
    admin_json(api, "POST", "/v1/deletion-receipts/reclaim", {"throughSequence": high, "mode": "force"})
    with pytest.raises(CursorExpiredError) as listed:
        client.list_receipts(after=0)
    assert listed.value.floor == high
    with pytest.raises(CursorExpiredError) as watched:
        next(iter(client.watch_receipts(after=0)))
    assert watched.value.floor == high


@pytest.fixture()
def flaky_stream() -> Iterator[tuple[str, list[str]]]:
    """An event stream that sends one receipt and drops the connection, then one more on reconnect."""
    seen_last_event_ids: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            seen_last_event_ids.append(self.headers.get("Last-Event-ID", ""))
            after = int(self.headers.get("Last-Event-ID") or 0)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            sequence = after + 1
            receipt = {"sequence": sequence, "operationId": f"op-{sequence}"}
            self.wfile.write(f"event: receipt\nid: {sequence}\ndata: {json.dumps(receipt)}\n\n".encode())
            self.wfile.flush()
            self.close_connection = True

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", seen_last_event_ids
    httpd.shutdown()


def test_a_dropped_stream_resumes_after_the_last_event_it_saw(flaky_stream):
    url, seen = flaky_stream
    watcher = ReceiptWatcher(Transport(url, "sh_token"), after=10, reconnect_delay=0, sleep=lambda _s: None)
    received = []
    for receipt in watcher:
        received.append(receipt["sequence"])
        if len(received) == 3:
            watcher.close()
    assert received == [11, 12, 13]
    assert seen == ["10", "11", "12"]
    assert watcher.reconnects == 2

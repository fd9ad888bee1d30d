"""Retries, backoff and keep-alive, against a scripted HTTP server (no API needed)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import pytest

from statehouse._transport import Transport
from statehouse.errors import RateLimitedError, StoreUnavailableError, TransportError


class Script:
    """Answers requests in order from a list of (status, headers, body) or callables."""

    def __init__(self) -> None:
        self.answers: list[Any] = []
        self.requests: list[dict[str, Any]] = []
        self.connections: set[tuple[str, int]] = set()


@pytest.fixture()
def server() -> Iterator[tuple[str, Script]]:
    script = Script()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def handle_one(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            script.requests.append(
                {"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body}
            )
            script.connections.add(self.client_address)
            answer = script.answers.pop(0) if script.answers else (200, {}, {"ok": True})
            if callable(answer):
                answer(self)
                return
            status, headers, payload = answer
            data = json.dumps(payload).encode()
            self.send_response(status)
            kind = "application/problem+json" if status >= 400 else "application/json"
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = handle_one

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", script
    httpd.shutdown()


def transport(url: str, slept: list[float]) -> Transport:
    return Transport(url, "sh_token", max_retries=3, sleep=slept.append)


def test_a_503_is_retried_after_retry_after_with_the_same_idempotency_key(server):
    url, script = server
    unavailable = {"code": "store_unavailable", "status": 503, "detail": "busy", "retryAfterSeconds": 2}
    script.answers = [(503, {"Retry-After": "1"}, unavailable), (503, {}, unavailable), (201, {}, {"id": "s"})]
    slept: list[float] = []
    answer = transport(url, slept).request("POST", "/v1/sessions", body={"source": "cli"})
    assert answer.status == 201 and answer.body == {"id": "s"}
    keys = {request["headers"]["Idempotency-Key"] for request in script.requests}
    assert len(script.requests) == 3 and len(keys) == 1
    # Retry-After first, then the problem's retryAfterSeconds.
    assert slept == [1.0, 2.0]
    assert script.requests[0]["headers"]["Authorization"] == "Bearer sh_token"


def test_429_backs_off_and_gives_up_after_the_retries(server):
    url, script = server
    limited = {"code": "rate_limited", "status": 429, "detail": "slow down"}
    script.answers = [(429, {"Retry-After": "0"}, limited)] * 4
    slept: list[float] = []
    with pytest.raises(RateLimitedError) as raised:
        transport(url, slept).request("GET", "/v1/sessions")
    assert raised.value.status == 429 and len(script.requests) == 4 and slept == [0.0, 0.0, 0.0]


def test_a_mutation_without_a_key_is_never_retried(server):
    url, script = server
    script.answers = [(503, {"Retry-After": "0"}, {"code": "store_unavailable", "status": 503})]
    with pytest.raises(StoreUnavailableError):
        transport(url, []).request("POST", "/v1/sessions", body={}, idempotency_key="")
    assert len(script.requests) == 1 and "Idempotency-Key" not in script.requests[0]["headers"]


def test_one_keep_alive_connection_per_thread_and_a_dropped_one_is_replaced(server):
    url, script = server
    client = transport(url, [])
    for _ in range(3):
        client.request("GET", "/v1/sessions")
    assert len(script.connections) == 1

    def drop(handler: BaseHTTPRequestHandler) -> None:
        handler.close_connection = True
        handler.connection.close()

    # The server drops the connection without answering (a keep-alive socket closed while idle).
    script.answers = [drop, (200, {}, {"again": True})]
    assert client.request("POST", "/v1/x", body={}).body == {"again": True}
    keys = [request["headers"]["Idempotency-Key"] for request in script.requests[-2:]]
    assert keys[0] == keys[1]
    assert len(script.connections) == 2


def test_an_unreachable_api_is_a_transport_error():
    with pytest.raises(TransportError) as raised:
        Transport("http://127.0.0.1:9", None, max_retries=1, sleep=lambda _s: None).request("GET", "/healthz")
    assert raised.value.code == "transport"


def test_query_strings_join_lists_and_spell_booleans(server):
    url, script = server
    transport(url, []).request("GET", "/v1/search", params={"q": "a b", "sources": ["cli", "tui"], "titles": False, "x": None})
    assert script.requests[0]["path"] == "/v1/search?q=a+b&sources=cli%2Ctui&titles=false"

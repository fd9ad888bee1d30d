"""HTTP under the client: one keep-alive connection per thread, JSON in and out, retries.

Retries follow the API's rules (docs/api.md): a ``429``/``503`` answer is retried after its
``Retry-After`` (bounded backoff with jitter when it gives none); a connection that dropped before an
answer is retried on a fresh connection. A request that is not idempotent by its method (POST, PATCH,
DELETE, PUT) is retried only when it carries an ``Idempotency-Key``: the API replays the first answer
for a repeated key, so a retry never doubles an effect. The key is chosen once per logical call and
reused by every retry of it.
"""

from __future__ import annotations

import http.client
import json
import random
import socket
import ssl
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Optional
from urllib.parse import quote, urlencode, urlsplit

from .errors import RetryableError, StatehouseError, TransportError, problem_error

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_RETRY_STATUSES = frozenset({429, 503})
# A keep-alive socket the server closed while idle fails like this on the next request.
_DROPPED = (
    http.client.RemoteDisconnected,
    http.client.BadStatusLine,
    http.client.CannotSendRequest,
    http.client.ResponseNotReady,
    ConnectionResetError,
    ConnectionAbortedError,
    BrokenPipeError,
)


@dataclass
class Response:
    status: int
    headers: Mapping[str, str]
    body: Any

    @property
    def etag_revision(self) -> Optional[int]:
        """The revision an ``ETag: "<n>"`` header carries, if any."""
        raw = self.headers.get("etag")
        if not raw:
            return None
        try:
            return int(raw.strip().strip('W/').strip('"'))
        except ValueError:
            return None


def new_idempotency_key() -> str:
    return uuid.uuid4().hex


def query_string(params: Optional[Mapping[str, Any]]) -> str:
    """``?a=1&b=x`` from a mapping; ``None`` values are left out, booleans are ``true``/``false``,
    lists are joined with commas (the API's list parameters)."""
    if not params:
        return ""
    pairs: list[tuple[str, str]] = []
    for key, value in params.items():
        if value is None:
            continue
        if isinstance(value, bool):
            pairs.append((key, "true" if value else "false"))
        elif isinstance(value, (list, tuple, set, frozenset)):
            pairs.append((key, ",".join(str(item) for item in value)))
        else:
            pairs.append((key, str(value)))
    return "?" + urlencode(pairs) if pairs else ""


def path_segment(value: str) -> str:
    return quote(value, safe="")


class Transport:
    """Sends requests to one API base URL with one bearer token; thread-safe (a connection per thread)."""

    def __init__(
        self,
        base_url: str,
        token: Optional[str],
        *,
        timeout: float = 30.0,
        max_retries: int = 4,
        max_backoff: float = 8.0,
        user_agent: str = "statehouse-python",
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        parts = urlsplit(base_url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"the API URL must be http(s)://host[:port][/prefix], got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self._scheme = parts.scheme
        self._host = parts.hostname
        self._port = parts.port or (443 if parts.scheme == "https" else 80)
        self._prefix = parts.path.rstrip("/")
        self._token = token
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_backoff = max_backoff
        self._sleep = sleep
        self._local = threading.local()
        self._base_headers = {
            "Accept": "application/json",
            "User-Agent": user_agent,
            "Connection": "keep-alive",
        }
        if token:
            self._base_headers["Authorization"] = f"Bearer {token}"

    # ── connections ─────────────────────────────────────────────────────────

    def _new_connection(self, timeout: Optional[float] = None) -> http.client.HTTPConnection:
        conn: http.client.HTTPConnection
        if self._scheme == "https":
            conn = http.client.HTTPSConnection(
                self._host, self._port, timeout=timeout or self.timeout, context=ssl.create_default_context()
            )
        else:
            conn = http.client.HTTPConnection(self._host, self._port, timeout=timeout or self.timeout)
        conn.connect()
        # Small requests and answers: no Nagle delay between a request and its answer.
        sock = conn.sock
        if sock is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass
        return conn

    def _connection(self) -> http.client.HTTPConnection:
        conn: Optional[http.client.HTTPConnection] = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._new_connection()
            self._local.conn = conn
        return conn

    def _drop_connection(self) -> None:
        conn = getattr(self._local, "conn", None)
        self._local.conn = None
        if conn is not None:
            try:
                conn.close()
            except Exception:
                pass

    def close(self) -> None:
        """Closes this thread's connection (others close when their threads end)."""
        self._drop_connection()

    # ── requests ────────────────────────────────────────────────────────────

    def url_path(self, path: str, params: Optional[Mapping[str, Any]] = None) -> str:
        return f"{self._prefix}{path}{query_string(params)}"

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        idempotency_key: Optional[str] = None,
        retry: bool = True,
    ) -> Response:
        """One logical call: the answer, or the problem raised as its exception class.

        ``idempotency_key``: for a mutation, the key every attempt of this call sends (a new one is
        chosen when omitted; pass ``""`` to send none — such a call is never retried).
        """
        method = method.upper()
        target = self.url_path(path, params)
        send_headers = dict(self._base_headers)
        if headers:
            send_headers.update(headers)
        if method not in _SAFE_METHODS:
            key = new_idempotency_key() if idempotency_key is None else idempotency_key
            if key:
                send_headers["Idempotency-Key"] = key
        retriable = retry and (method in _SAFE_METHODS or "Idempotency-Key" in send_headers)
        payload: Optional[bytes] = None
        if body is not None:
            payload = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
            send_headers["Content-Type"] = "application/json"
        elif method not in _SAFE_METHODS:
            send_headers["Content-Length"] = "0"

        attempt = 0
        while True:
            attempt += 1
            try:
                response = self._send_once(method, target, payload, send_headers)
            except _DROPPED as error:
                self._drop_connection()
                # A reused keep-alive socket the server had closed: the request never arrived.
                if retriable and attempt <= self.max_retries + 1:
                    continue
                raise TransportError(f"the connection dropped: {error!r}", method=method, path=target) from error
            except (OSError, http.client.HTTPException) as error:
                self._drop_connection()
                if retriable and attempt <= self.max_retries:
                    self._sleep(self._backoff(attempt, None))
                    continue
                raise TransportError(f"cannot reach {self.base_url}: {error!r}", method=method, path=target) from error

            if response.status < 400:
                return response
            error_obj = self._problem(response, method, target)
            if retriable and response.status in _RETRY_STATUSES and attempt <= self.max_retries:
                self._sleep(self._backoff(attempt, self._retry_after(response, error_obj)))
                continue
            raise error_obj

    def _send_once(self, method: str, target: str, payload: Optional[bytes], headers: Mapping[str, str]) -> Response:
        conn = self._connection()
        conn.request(method, target, body=payload, headers=dict(headers))
        raw = conn.getresponse()
        data = raw.read()
        header_map = {key.lower(): value for key, value in raw.getheaders()}
        if raw.will_close:
            self._drop_connection()
        body: Any = None
        if data:
            kind = header_map.get("content-type", "")
            if "json" in kind and "ndjson" not in kind:
                body = json.loads(data)
            else:
                body = data.decode("utf-8", "replace")
        return Response(raw.status, header_map, body)

    def _problem(self, response: Response, method: str, path: str) -> StatehouseError:
        body = response.body if isinstance(response.body, dict) else {"detail": str(response.body or "")}
        return problem_error(response.status, body, method=method, path=path)

    @staticmethod
    def _retry_after(response: Response, error: StatehouseError) -> Optional[float]:
        raw = response.headers.get("retry-after")
        if raw:
            try:
                return max(0.0, float(raw))
            except ValueError:
                pass
        if isinstance(error, RetryableError):
            return error.retry_after_seconds
        return None

    def _backoff(self, attempt: int, retry_after: Optional[float]) -> float:
        if retry_after is not None:
            return min(retry_after, self.max_backoff)
        base: float = min(self.max_backoff, 0.1 * 2.0 ** (attempt - 1))
        return base / 2 + random.uniform(0, base / 2)

    # ── streams ─────────────────────────────────────────────────────────────

    def stream_lines(
        self,
        path: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
        timeout: Optional[float] = None,
    ) -> Iterator[str]:
        """GET a streaming answer on a connection of its own, yielding decoded lines as they arrive."""
        target = self.url_path(path, params)
        send_headers = dict(self._base_headers)
        send_headers["Accept"] = "text/event-stream"
        if headers:
            send_headers.update(headers)
        try:
            conn = self._new_connection(timeout)
            conn.request("GET", target, headers=send_headers)
            raw = conn.getresponse()
        except (OSError, http.client.HTTPException) as error:
            raise TransportError(f"cannot reach {self.base_url}: {error!r}", method="GET", path=target) from error
        try:
            if raw.status >= 400:
                data = raw.read()
                try:
                    problem = json.loads(data) if data else {}
                except ValueError:
                    problem = {"detail": data.decode("utf-8", "replace")}
                raise problem_error(raw.status, problem if isinstance(problem, dict) else {}, method="GET", path=target)
            while True:
                try:
                    line = raw.readline()
                except (OSError, http.client.HTTPException) as error:
                    raise TransportError(f"the stream dropped: {error!r}", method="GET", path=target) from error
                if not line:
                    return
                yield line.decode("utf-8", "replace").rstrip("\r\n")
        finally:
            conn.close()

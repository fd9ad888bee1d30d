"""The Statehouse REST client.

    from statehouse import Client
    client = Client()                      # STATEHOUSE_URL, STATEHOUSE_TOKEN, STATEHOUSE_PROFILE
    session = client.create_session(source="cli", model="gpt-5")
    client.append_messages(session["id"], [{"role": "user", "content": "hi"}])
    for hit in client.iter_search("hi"):
        ...

Bodies and answers are the API's JSON (camelCase, docs/api.md); keyword arguments of the methods are
snake_case and sent as camelCase. The client remembers the latest ``revision`` and ``generation`` it
saw of every session (from bodies, ``ETag`` headers and append answers) and sends them as
``If-Match`` / ``X-Expected-Generation`` when a call needs them and the caller gives none. Every
mutation carries an ``Idempotency-Key`` chosen once per call, so retries (``429``/``503`` after
``Retry-After``, a dropped connection) never apply it twice.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Callable, Iterable, Iterator, Mapping, Optional, Sequence

from ._transport import Response, Transport, path_segment
from .errors import NotFoundError, RevisionConflictError, StaleGenerationError
from .receipts import ReceiptWatcher

Json = dict[str, Any]

DEFAULT_URL = "http://127.0.0.1:3000"


def iter_pages(fetch: Callable[[Optional[str]], Json]) -> Iterator[Json]:
    """The items of every page ``fetch(cursor)`` answers, following ``nextCursor`` from ``None``."""
    cursor: Optional[str] = None
    while True:
        page = fetch(cursor)
        yield from page.get("items", [])
        cursor = page.get("nextCursor")
        if not cursor:
            return


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def camel_keys(fields: Mapping[str, Any], *, keep_none: bool = False) -> Json:
    """snake_case keyword arguments as a camelCase body; ``None`` values are left out unless kept."""
    return {camel(key): value for key, value in fields.items() if keep_none or value is not None}


class SessionTokens:
    """The latest (revision, generation) seen per session id; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tokens: dict[str, tuple[int, int]] = {}

    def get(self, session_id: str) -> Optional[tuple[int, int]]:
        with self._lock:
            return self._tokens.get(session_id)

    def remember(self, session_id: str, revision: Optional[int], generation: Optional[int]) -> None:
        if revision is None:
            return
        with self._lock:
            previous = self._tokens.get(session_id)
            if generation is None:
                generation = previous[1] if previous else 0
            # Answers of concurrent calls arrive in any order: never step back.
            if previous is None or revision >= previous[0]:
                self._tokens[session_id] = (revision, generation)

    def forget(self, session_id: str) -> None:
        with self._lock:
            self._tokens.pop(session_id, None)


class Client:
    """A client of one Statehouse API, with one bearer token and a default profile."""

    def __init__(
        self,
        url: Optional[str] = None,
        token: Optional[str] = None,
        profile: Optional[str] = None,
        *,
        timeout: float = 30.0,
        max_retries: int = 4,
    ) -> None:
        self.url = url or os.environ.get("STATEHOUSE_URL") or DEFAULT_URL
        token = token if token is not None else os.environ.get("STATEHOUSE_TOKEN")
        self.profile = profile or os.environ.get("STATEHOUSE_PROFILE") or "default"
        self.transport = Transport(self.url, token, timeout=timeout, max_retries=max_retries)
        self.tokens = SessionTokens()

    def close(self) -> None:
        self.transport.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ── plumbing ────────────────────────────────────────────────────────────

    def request(self, method: str, path: str, **kwargs: Any) -> Response:
        return self.transport.request(method, path, **kwargs)

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        return self.transport.request(method, path, **kwargs).body

    def _session_answer(self, response: Response) -> Json:
        body: Json = response.body
        if isinstance(body, dict) and isinstance(body.get("id"), str):
            revision = body.get("revision")
            if not isinstance(revision, int):
                revision = response.etag_revision
            self.tokens.remember(body["id"], revision, body.get("generation"))
        return body

    def _remember_sessions(self, *sessions: Any) -> None:
        for session in sessions:
            if isinstance(session, dict) and isinstance(session.get("id"), str):
                self.tokens.remember(session["id"], session.get("revision"), session.get("generation"))

    def _profile(self, profile: Optional[str]) -> str:
        return profile or self.profile

    def known_tokens(self, session_id: str) -> tuple[int, int]:
        """The session's (revision, generation) as last seen, reading it when never seen."""
        tokens = self.tokens.get(session_id)
        if tokens is None:
            self.get_session(session_id)
            tokens = self.tokens.get(session_id)
        assert tokens is not None
        return tokens

    def _precondition_headers(
        self,
        session_id: str,
        *,
        if_match: Optional[int],
        expected_generation: Optional[int] = None,
        turn_id: Optional[str] = None,
        destructive: bool = False,
        with_revision: bool = True,
    ) -> dict[str, str]:
        """``If-Match`` (the given revision, else the last seen one unless ``with_revision`` is off),
        ``X-Expected-Generation`` (given, else the last seen one for a ``destructive`` call), ``X-Turn-Id``."""
        headers: dict[str, str] = {}
        if with_revision or destructive or if_match is not None:
            if if_match is None or (destructive and expected_generation is None):
                revision, generation = self.known_tokens(session_id)
                if if_match is None:
                    if_match = revision
                if destructive and expected_generation is None:
                    expected_generation = generation
            headers["If-Match"] = f'"{if_match}"'
        if expected_generation is not None:
            headers["X-Expected-Generation"] = str(expected_generation)
        if turn_id is not None:
            headers["X-Turn-Id"] = turn_id
        return headers

    def _mutate_session(
        self,
        method: str,
        session_id: str,
        suffix: str = "",
        *,
        body: Any = None,
        params: Optional[Mapping[str, Any]] = None,
        if_match: Optional[int] = None,
        expected_generation: Optional[int] = None,
        turn_id: Optional[str] = None,
        destructive: bool = False,
        with_revision: bool = True,
        idempotency_key: Optional[str] = None,
    ) -> Response:
        headers = self._precondition_headers(
            session_id,
            if_match=if_match,
            expected_generation=expected_generation,
            turn_id=turn_id,
            destructive=destructive,
            with_revision=with_revision,
        )
        try:
            return self.request(
                method,
                f"/v1/sessions/{path_segment(session_id)}{suffix}",
                body=body,
                params=params,
                headers=headers,
                idempotency_key=idempotency_key,
            )
        except RevisionConflictError as error:
            if error.current_revision is not None:
                self.tokens.remember(session_id, error.current_revision, None)
            raise
        except StaleGenerationError as error:
            tokens = self.tokens.get(session_id)
            if error.current_generation is not None and tokens is not None:
                self.tokens.remember(session_id, tokens[0], error.current_generation)
            raise

    def _session_write(self, method: str, session_id: str, suffix: str = "", **options: Any) -> Json:
        """A precondition-checked write whose answer is the session (its tokens remembered)."""
        return self._session_answer(self._mutate_session(method, session_id, suffix, **options))

    def _forget_deleted(self, answer: Json) -> Json:
        for deleted in answer.get("deletedIds", []):
            self.tokens.forget(deleted)
        return answer

    # ── sessions ────────────────────────────────────────────────────────────

    def create_session(
        self,
        *,
        source: str,
        profile: Optional[str] = None,
        messages: Optional[Sequence[Mapping[str, Any]]] = None,
        idempotency_key: Optional[str] = None,
        **fields: Any,
    ) -> Json:
        """``POST /v1/sessions``. Fields: id, model, model_config, title, session_key, user_id, chat_id,
        chat_type, thread_id, parent_session_id, lineage_kind, … (docs/api.md)."""
        body = camel_keys(fields)
        body["source"] = source
        body["profile"] = self._profile(profile)
        if messages:
            body["messages"] = [camel_keys(message) for message in messages]
        response = self.request("POST", "/v1/sessions", body=body, idempotency_key=idempotency_key)
        return self._session_answer(response)

    def get_session(self, session_id: str) -> Json:
        return self._session_answer(self.request("GET", f"/v1/sessions/{path_segment(session_id)}"))

    def find_session(self, session_id: str) -> Optional[Json]:
        """The session, or ``None`` when it does not exist (or is outside the token's profiles)."""
        try:
            return self.get_session(session_id)
        except NotFoundError:
            return None

    def update_session(
        self,
        session_id: str,
        *,
        if_match: Optional[int] = None,
        expected_generation: Optional[int] = None,
        turn_id: Optional[str] = None,
        **fields: Any,
    ) -> Json:
        """``PATCH /v1/sessions/:id`` (If-Match). A field given as ``None`` is sent as null (cleared)."""
        body = camel_keys(fields, keep_none=True)
        return self._session_write("PATCH", session_id, body=body, **_preconditions(if_match, expected_generation, turn_id))

    def end_session(
        self,
        session_id: str,
        reason: str,
        *,
        if_match: Optional[int] = None,
        expected_generation: Optional[int] = None,
        turn_id: Optional[str] = None,
    ) -> Json:
        body = {"reason": reason}
        return self._session_write("POST", session_id, "/end", body=body, **_preconditions(if_match, expected_generation, turn_id))

    def reopen_session(
        self,
        session_id: str,
        *,
        transport_profile: Optional[str] = None,
        if_match: Optional[int] = None,
        expected_generation: Optional[int] = None,
        turn_id: Optional[str] = None,
    ) -> Json:
        body = camel_keys({"transport_profile": transport_profile})
        return self._session_write("POST", session_id, "/reopen", body=body, **_preconditions(if_match, expected_generation, turn_id))

    def delete_session(
        self,
        session_id: str,
        *,
        include_compression_chain: bool = False,
        if_empty: bool = False,
        if_match: Optional[int] = None,
        expected_generation: Optional[int] = None,
        turn_id: Optional[str] = None,
    ) -> Json:
        """``DELETE /v1/sessions/:id`` → ``{deletedIds, receipt}`` (delegates go with their parent)."""
        params = {"includeCompressionChain": include_compression_chain or None, "ifEmpty": if_empty or None}
        preconditions = _preconditions(if_match, expected_generation, turn_id)
        response = self._mutate_session("DELETE", session_id, params=params, destructive=True, **preconditions)
        return self._forget_deleted(response.body)

    def bulk_delete(self, items: Sequence[Mapping[str, Any]], *, include_compression_chain: bool = False) -> Json:
        """``POST /v1/sessions/bulk-delete``; items are ``{id, revision, generation}`` (≤ 500)."""
        body = {"items": [dict(item) for item in items], "includeCompressionChain": include_compression_chain}
        return self._forget_deleted(self._json("POST", "/v1/sessions/bulk-delete", body=body))

    def list_sessions(self, *, profile: Optional[str] = None, **filters: Any) -> Json:
        """One page of ``GET /v1/sessions`` (``{items, nextCursor, prevCursor, total}``)."""
        params = camel_keys(filters)
        params.setdefault("profile", self._profile(profile))
        page: Json = self._json("GET", "/v1/sessions", params=params)
        self._remember_sessions(*page.get("items", []))
        return page

    def iter_sessions(self, *, profile: Optional[str] = None, page_size: int = 200, **filters: Any) -> Iterator[Json]:
        """Every session the filters select, page by page (keyset cursors)."""
        return iter_pages(lambda cursor: self.list_sessions(profile=profile, limit=page_size, cursor=cursor, **filters))

    def export_session(self, session_id: str) -> list[Json]:
        """``GET /v1/sessions/:id/export``: the session, its labels, every message, its lineage edges (JSON lines)."""
        import json

        text = self._json("GET", f"/v1/sessions/{path_segment(session_id)}/export")
        if isinstance(text, (bytes, bytearray)):
            text = text.decode("utf-8")
        if not isinstance(text, str):
            return []
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    # ── messages ────────────────────────────────────────────────────────────

    def append_messages(
        self,
        session_id: str,
        messages: Sequence[Mapping[str, Any]],
        *,
        usage: Optional[Mapping[str, Any]] = None,
        model: Optional[str] = None,
        if_match: Optional[int] = None,
        expected_generation: Optional[int] = None,
        turn_id: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> Json:
        """``POST /v1/sessions/:id/messages`` → ``{ids, created, revision, generation}``. Messages are
        API-shaped (camelCase) dicts; If-Match and the generation are checked only when given."""
        body: Json = {"messages": list(messages)}
        if usage:
            body["usage"] = dict(usage)
        if model is not None:
            body["model"] = model
        headers = self._precondition_headers(
            session_id, if_match=if_match, expected_generation=expected_generation, turn_id=turn_id, with_revision=False
        )
        answer: Json = self._json(
            "POST",
            f"/v1/sessions/{path_segment(session_id)}/messages",
            body=body,
            headers=headers,
            idempotency_key=idempotency_key,
        )
        self.tokens.remember(session_id, answer.get("revision"), answer.get("generation"))
        return answer

    def list_messages(self, session_id: str, **query: Any) -> Json:
        """One page of ``GET /v1/sessions/:id/messages`` (``after``, ``limit``, ``include_inactive``, …)."""
        return self._json(  # type: ignore[no-any-return]
            "GET", f"/v1/sessions/{path_segment(session_id)}/messages", params=camel_keys(query)
        )

    def iter_messages(self, session_id: str, *, page_size: int = 1000, **query: Any) -> Iterator[Json]:
        return iter_pages(lambda cursor: self.list_messages(session_id, limit=page_size, cursor=cursor, **query))

    def rewind(
        self,
        session_id: str,
        to_message_id: int,
        *,
        if_match: Optional[int] = None,
        expected_generation: Optional[int] = None,
        turn_id: Optional[str] = None,
    ) -> Json:
        body = {"toMessageId": to_message_id}
        preconditions = _preconditions(if_match, expected_generation, turn_id)
        answer: Json = self._mutate_session("POST", session_id, "/rewind", body=body, destructive=True, **preconditions).body
        self._remember_sessions(answer.get("session"))
        return answer

    # ── turns and lineage ──────────────────────────────────────────────────

    def begin_turn(self, session_id: str, holder: str, *, ttl_seconds: int = 60, gateway_id: Optional[str] = None) -> Json:
        turn: Json = self._json(
            "POST",
            f"/v1/sessions/{path_segment(session_id)}/turns",
            body=camel_keys({"holder": holder, "ttl_seconds": ttl_seconds, "gateway_id": gateway_id}),
        )
        self.tokens.remember(session_id, turn.get("revision"), turn.get("generation"))
        return turn

    def renew_turn(self, session_id: str, turn_id: str, *, ttl_seconds: int = 60) -> None:
        self.request(
            "POST",
            f"/v1/sessions/{path_segment(session_id)}/turns/{path_segment(turn_id)}/renew",
            body={"ttlSeconds": ttl_seconds},
        )
        # The renewal moved the revision without answering it: read it again when next needed.
        self.tokens.forget(session_id)

    def complete_turn(self, session_id: str, turn_id: str) -> None:
        self.request("POST", f"/v1/sessions/{path_segment(session_id)}/turns/{path_segment(turn_id)}/complete")
        self.tokens.forget(session_id)

    def _child_operation(self, session_id: str, operation: str, body: Json, **preconditions: Any) -> Json:
        response = self._mutate_session("POST", session_id, f"/{operation}", body=body, destructive=True, **preconditions)
        answer: Json = response.body
        self._remember_sessions(answer.get("child"), answer.get("parent"))
        return answer

    def compress(self, session_id: str, summary: str, *, keep_last_messages: int = 0, child_id: Optional[str] = None, **preconditions: Any) -> Json:
        body = camel_keys({"summary": summary, "keep_last_messages": keep_last_messages, "child_id": child_id})
        return self._child_operation(session_id, "compress", body, **preconditions)

    def branch(self, session_id: str, *, child_id: Optional[str] = None, upto_message_id: Optional[int] = None, title: Optional[str] = None, **preconditions: Any) -> Json:
        body = camel_keys({"child_id": child_id, "upto_message_id": upto_message_id, "title": title})
        return self._child_operation(session_id, "branch", body, **preconditions)

    def reset(self, session_id: str, reason: str, *, child_id: Optional[str] = None, transport_profile: Optional[str] = None, **preconditions: Any) -> Json:
        body = camel_keys({"reason": reason, "child_id": child_id, "transport_profile": transport_profile})
        return self._child_operation(session_id, "reset", body, **preconditions)

    def lineage(self, session_id: str) -> Json:
        return self._json("GET", f"/v1/sessions/{path_segment(session_id)}/lineage")  # type: ignore[no-any-return]

    # ── handoff ─────────────────────────────────────────────────────────────

    def request_handoff(self, session_id: str, platform: str, *, if_match: Optional[int] = None) -> Json:
        return self._session_write("POST", session_id, "/handoff", body={"platform": platform}, if_match=if_match)

    def claim_handoff(self, session_id: str, *, if_match: Optional[int] = None) -> Json:
        return self._session_write("POST", session_id, "/handoff/claim", if_match=if_match)

    def complete_handoff(self, session_id: str, *, if_match: Optional[int] = None) -> Json:
        return self._session_write("POST", session_id, "/handoff/complete", if_match=if_match)

    def fail_handoff(self, session_id: str, error: str, *, if_match: Optional[int] = None) -> Json:
        return self._session_write("POST", session_id, "/handoff/fail", body={"error": error}, if_match=if_match)

    # ── search ──────────────────────────────────────────────────────────────

    def search(self, q: str, *, profile: Optional[str] = None, **filters: Any) -> Json:
        """One page of ``GET /v1/search`` (``{items, nextCursor, mode, degraded, total}``)."""
        params = camel_keys(filters)
        params["q"] = q
        params.setdefault("profile", self._profile(profile))
        return self._json("GET", "/v1/search", params=params)  # type: ignore[no-any-return]

    def iter_search(self, q: str, *, profile: Optional[str] = None, page_size: int = 100, **filters: Any) -> Iterator[Json]:
        return iter_pages(lambda cursor: self.search(q, profile=profile, limit=page_size, cursor=cursor, **filters))

    # ── routes ──────────────────────────────────────────────────────────────

    def resolve_route(self, *, source: str, profile: Optional[str] = None, **peer: Any) -> Json:
        """``POST /v1/routes/resolve`` → ``{sessionId, via, sessionKey}`` (docs/domain.md §6.3)."""
        body = camel_keys(peer)
        body["source"] = source
        body["profile"] = self._profile(profile)
        return self._json("POST", "/v1/routes/resolve", body=body)  # type: ignore[no-any-return]

    def put_route(self, session_key: str, session_id: str, *, profile: Optional[str] = None, origin: Optional[Json] = None) -> Json:
        body = camel_keys({"profile": self._profile(profile), "session_key": session_key, "session_id": session_id, "origin": origin})
        return self._json("PUT", "/v1/routes", body=body)  # type: ignore[no-any-return]

    # ── receipts ────────────────────────────────────────────────────────────

    def list_receipts(self, *, after: int = 0, limit: int = 100, **filters: Any) -> Json:
        params = camel_keys(filters)
        params.update({"after": after, "limit": limit})
        return self._json("GET", "/v1/deletion-receipts", params=params)  # type: ignore[no-any-return]

    def iter_receipts(self, *, after: int = 0, page_size: int = 1000, **filters: Any) -> Iterator[Json]:
        """Every receipt after ``after`` in sequence order (``CursorExpiredError`` below the floor)."""
        while True:
            page = self.list_receipts(after=after, limit=page_size, **filters)
            items = page.get("items", [])
            yield from items
            cursor = page.get("nextCursor")
            if not cursor or not items:
                return
            after = int(cursor)

    def watch_receipts(self, *, after: int = 0, **filters: Any) -> ReceiptWatcher:
        """A live feed of receipts after ``after`` that resumes after a dropped connection."""
        return ReceiptWatcher(self.transport, after=after, filters=camel_keys(filters))

    # ── profiles ────────────────────────────────────────────────────────────

    def list_profiles(self) -> list[Json]:
        return self._json("GET", "/v1/profiles")  # type: ignore[no-any-return]

    def create_profile(self, name: str) -> Json:
        return self._json("POST", "/v1/profiles", body={"name": name})  # type: ignore[no-any-return]

    # ── maintenance (admin) ────────────────────────────────────────────────

    def empty_sweep(self, *, dry_run: bool = False, profile: Optional[str] = None) -> Json:
        body = camel_keys({"dry_run": dry_run, "profile": profile})
        return self._json("POST", "/v1/maintenance/empty-sweep", body=body)  # type: ignore[no-any-return]


def _preconditions(if_match: Optional[int], expected_generation: Optional[int], turn_id: Optional[str]) -> dict[str, Any]:
    """A public method's precondition arguments, passed on as they came."""
    return {"if_match": if_match, "expected_generation": expected_generation, "turn_id": turn_id}


def chunks(items: Sequence[Any], size: int) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]

"""Hermes Agent's ``SessionDB``, backed by the Statehouse REST API.

The same public methods, arguments, return shapes and exceptions as Hermes' ``hermes_state.SessionDB``
at schema v21 — so Hermes' gateway, CLI and agent loop keep calling what they call, and their
conversations land in Statehouse. Every call is one or a few REST calls on a keep-alive connection;
nothing here opens a database file. Where Statehouse deliberately differs (a compression end is never
cleared, sub-agent sessions are deleted with their parent, …) this class follows Statehouse; the
differences are listed in docs/migrating-from-hermes.md.
"""

from __future__ import annotations

import importlib
import itertools
import json
import logging
import re
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, TypeVar

from .._transport import path_segment
from ..client import Client, camel_keys
from ..errors import (
    ConflictError,
    ForbiddenError,
    NotFoundError,
    ReopenNotPermittedError,
    RevisionConflictError,
    SessionBusyError,
    SessionClosedError,
    StaleGenerationError,
    StatehouseError,
    TitleConflictError,
)
from . import _text
from ._rows import (
    IdSpace,
    Json,
    conversation_entry,
    epoch,
    epoch_ms,
    message_row,
    rich_row,
    session_row,
    wire_message,
)

logger = logging.getLogger(__name__)

T = TypeVar("T")

SCHEMA_VERSION = 21
MAX_FTS5_QUERY_CHARS = _text.MAX_FTS5_QUERY_CHARS

# docs/domain.md §4.3: rows ended so are revived by recovery (Hermes: its two legacy "recoverable" ends).
_RECOVERABLE_ENDS = frozenset({"agent_close", "ws_orphan_reap"})
_RESET_REASONS = frozenset({"session_reset", "session_switch", "idle", "daily", "suspended", "resume_pending_expired"})
_PRUNE_FILTERS = frozenset(
    {
        "started_before",
        "started_after",
        "source",
        "title_like",
        "end_reason",
        "cwd_prefix",
        "min_messages",
        "max_messages",
        "archived",
        "model_like",
        "provider",
        "user_id",
        "chat_id",
        "chat_type",
        "branch_like",
        "min_tokens",
        "max_tokens",
        "min_cost",
        "max_cost",
        "min_tool_calls",
        "max_tool_calls",
    }
)
_PAGE = 200
_MESSAGE_PAGE = 1000
_BULK_DELETE_MAX = 500
_SNIPPET_START = "\u0002"
_SNIPPET_END = "\u0003"
_META_TOPIC_MODE = "hermes.telegram.topic_mode:"
_META_TOPIC_BINDING = "hermes.telegram.topic_binding:"
_META_TOPIC_SESSION = "hermes.telegram.topic_session:"
_META_TOPIC_VERSION = "telegram_dm_topic_schema_version"
_META_ROUTING = "hermes.gateway_routing:"
_META_COMPRESSION_LOCK = "hermes.compression_lock:"


def workspace_key(row: Dict[str, Any]) -> Optional[str]:
    """A session's workspace grouping key: its git repo root when known, else its cwd."""
    root = (row.get("git_repo_root") or "").strip()
    if root:
        return root
    cwd = (row.get("cwd") or "").strip()
    return cwd or None


def _default_db_path() -> Path:
    try:
        # Hermes' own idea of its home (HERMES_HOME, profiles), when Hermes is installed.
        get_hermes_home = importlib.import_module("hermes_constants").get_hermes_home
        return Path(get_hermes_home()) / "state.db"
    except Exception:
        return Path.home() / ".hermes" / "state.db"


DEFAULT_DB_PATH = _default_db_path()

_last_init_error: Optional[str] = None


def get_last_init_error() -> Optional[str]:
    return _last_init_error


def format_session_db_unavailable(prefix: str = "Session database not available") -> str:
    cause = get_last_init_error()
    return f"{prefix}: {cause}." if cause else f"{prefix}."


def _remove_session_files(sessions_dir: Optional[Path], session_id: str) -> None:
    """Hermes' on-disk transcript files of a deleted session (``.json``, ``.jsonl``, request dumps)."""
    if sessions_dir is None:
        return
    directory = Path(sessions_dir)
    for suffix in (".json", ".jsonl"):
        try:
            (directory / f"{session_id}{suffix}").unlink(missing_ok=True)
        except OSError:
            pass
    try:
        for dump in directory.glob(f"request_dump_{session_id}_*.json"):
            try:
                dump.unlink(missing_ok=True)
            except OSError:
                pass
    except OSError:
        pass


def _is_absent(error: StatehouseError) -> bool:
    """Not found — or refused as a bad request: an id outside the API's alphabet cannot exist there."""
    return isinstance(error, NotFoundError) or error.status == 400


def _window(items: Iterable[T], offset: int, limit: Optional[int]) -> Iterator[T]:
    """Hermes' ``OFFSET``/``LIMIT`` over an iteration: skips ``offset`` items, then stops after ``limit``."""
    start = max(0, offset)
    return itertools.islice(items, start, None if limit is None else start + max(0, limit))


class SessionDB:
    """Hermes' session store over the Statehouse API (one profile per instance)."""

    MAX_TITLE_LENGTH = _text.MAX_TITLE_LENGTH
    _IMPORT_MAX_SESSIONS = 500
    _IMPORT_MAX_MESSAGES_PER_SESSION = 10_000
    _IMPORT_MAX_TOTAL_MESSAGES = 50_000
    _IMPORT_MAX_SESSION_BYTES = 5 * 1024 * 1024
    _IMPORT_MAX_TOTAL_BYTES = 25 * 1024 * 1024
    # Hermes merges its FTS segments every N writes; Statehouse merges its indexes itself (docs/search.md).
    _OPTIMIZE_EVERY_N_WRITES = 1000

    def __init__(
        self,
        db_path: Optional[Path] = None,
        read_only: bool = False,
        *,
        client: Optional[Client] = None,
        url: Optional[str] = None,
        token: Optional[str] = None,
        profile: Optional[str] = None,
        id_prefix: str = "",
        timeout: float = 30.0,
    ) -> None:
        global _last_init_error
        self.db_path = Path(db_path) if db_path is not None else DEFAULT_DB_PATH
        self.read_only = read_only
        # Hermes callers take this around raw reads; here it only serializes those callers.
        self._lock = threading.Lock()
        self._write_count = 0
        self._fts_enabled = True
        self._trigram_available = True
        self._ids = IdSpace(id_prefix)
        try:
            self._client = client or Client(url, token, profile, timeout=timeout)
            self.profile = profile or self._client.profile
            if not read_only:
                self._ensure_profile()
        except Exception as error:
            _last_init_error = f"{type(error).__name__}: {error}"
            raise

    def _ensure_profile(self) -> None:
        try:
            self._client.create_profile(self.profile)
        except ConflictError:
            pass
        except StatehouseError as error:
            # A member token cannot create profiles; it works inside the ones it has.
            if error.status not in (403, 409):
                raise

    def close(self) -> None:
        self._client.close()

    # ── plumbing ────────────────────────────────────────────────────────────

    @property
    def client(self) -> Client:
        return self._client

    def _retrying(self, operation: Callable[[], T], attempts: int = 4) -> T:
        """Hermes writes are last-writer-wins: a stale revision is refreshed and the write tried again."""
        for attempt in range(attempts):
            try:
                return operation()
            except (RevisionConflictError, StaleGenerationError):
                if attempt == attempts - 1:
                    raise
        raise AssertionError("unreachable")

    def _get(self, session_id: str) -> Optional[Json]:
        if not session_id:
            return None
        try:
            return self._client.get_session(self._ids.out(session_id))
        except StatehouseError as error:
            if _is_absent(error):
                return None
            raise

    def _patch(self, session_id: str, **fields: Any) -> Optional[Json]:
        """PATCH with last-writer-wins; ``None`` when the session does not exist."""
        if not session_id:
            return None

        def run() -> Json:
            return self._client.update_session(self._ids.out(session_id), **fields)

        try:
            return self._retrying(run)
        except NotFoundError:
            return None

    def _set_attributes(self, session_id: str, **attributes: Any) -> None:
        self._patch(session_id, attributes=attributes)

    def _count_write(self) -> None:
        self._write_count += 1

    def _every_session(self, **filters: Any) -> Iterator[Json]:
        """The profile's sessions of every kind (children, hidden and archived ones too) the filters
        select; a filter given as ``None`` is left out."""
        scope: Json = {"view": "all", "archived": "include", "include_children": True, "include_hidden": True}
        return self._client.iter_sessions(profile=self.profile, **{**scope, **filters})

    def _row_with_activity(self, item: Json, **options: Any) -> Json:
        """A session row with ``last_active`` (the latest activity)."""
        row = session_row(item, ids=self._ids, **options)
        row["last_active"] = epoch(item.get("lastActivityAt"))
        return row

    def _removed(self, answer: Json, sessions_dir: Optional[Path]) -> List[str]:
        """The Hermes ids of a deletion's ``deletedIds``, their on-disk transcript files removed."""
        removed = [self._ids.back(member) for member in answer.get("deletedIds") or []]
        for session_id in removed:
            _remove_session_files(sessions_dir, session_id)
        return removed

    def _best_effort(self, operation: Callable[[], T], fallback: T, name: str, session_id: str) -> T:
        """Housekeeping Hermes never lets fail its caller: an API error is logged and ``fallback`` answered."""
        try:
            return operation()
        except StatehouseError as exc:
            logger.warning("%s(%s) failed: %s", name, session_id, exc)
            return fallback

    def _admin_only(self, path: str, body: Json, what: str) -> Optional[Json]:
        """An admin's maintenance call; ``None`` (logged) when the token is not an admin's."""
        try:
            return self._client._json("POST", path, body=body)  # type: ignore[no-any-return]
        except ForbiddenError:
            logger.info("%s skipped: the token is not an admin's", what)
            return None

    # ── session lifecycle ──────────────────────────────────────────────────

    def _lineage_kind(self, source: str, parent: Json, model_config: Optional[Mapping[str, Any]]) -> str:
        """The typed edge of a new child, decided the way Statehouse's importer classifies Hermes edges
        (docs/migrating-from-hermes.md, "Lineage"): Hermes' own markers first, then the parent's end."""
        config = model_config or {}
        parent_id = self._ids.back(parent["id"])
        if config.get("_branched_from") == parent_id:
            return "branch"
        if config.get("_delegate_from") == parent_id:
            return "delegate"
        if config.get("_reset_from") == parent_id:
            return "reset"
        parent_end = parent.get("endReasonDetail") or parent.get("endReason")
        if parent_end == "compression" and source != "tool":
            return "compression"
        if parent_end == "branched":
            return "branch"
        if parent_end in _RESET_REASONS:
            return "reset"
        # Hermes treats any other child of a row as a sub-agent run (its v16 migration tags them so).
        return "delegate"

    def _insert_session_row(
        self,
        session_id: str,
        source: str,
        model: Optional[str] = None,
        model_config: Optional[Dict[str, Any]] = None,
        system_prompt: Optional[str] = None,
        user_id: Optional[str] = None,
        session_key: Optional[str] = None,
        chat_id: Optional[str] = None,
        chat_type: Optional[str] = None,
        thread_id: Optional[str] = None,
        parent_session_id: Optional[str] = None,
        cwd: Optional[str] = None,
    ) -> None:
        fields: Json = {
            "id": self._ids.out(session_id),
            "model": model,
            "model_config": model_config or None,
            "system_prompt": system_prompt,
            "user_id": user_id,
            "session_key": session_key,
            "chat_id": chat_id,
            "chat_type": chat_type,
            "thread_id": thread_id,
            "cwd": cwd,
            # An existing row keeps every field it has; only empty ones are filled (Hermes' upsert).
            "if_exists": "fill",
        }
        if parent_session_id:
            parent = self._get(parent_session_id)
            if parent is not None:
                fields["parent_session_id"] = parent["id"]
                fields["lineage_kind"] = self._lineage_kind(source, parent, model_config)
        self._client.create_session(source=_text.source_label(source), profile=self.profile, **fields)
        self._count_write()

    def create_session(self, session_id: str, source: str, **kwargs: Any) -> str:
        """Create a session record (or fill the empty fields of an existing one). Returns the id."""
        self._insert_session_row(session_id, source, **kwargs)
        return session_id

    def ensure_session(self, session_id: str, source: str = "unknown", model: Optional[str] = None, **kwargs: Any) -> str:
        self._insert_session_row(session_id, source, model=model, **kwargs)
        return session_id

    def get_session(self, session_id: str) -> Optional[Dict[str, Any]]:
        session = self._get(session_id)
        return session_row(session, ids=self._ids) if session else None

    def end_session(self, session_id: str, end_reason: str) -> None:
        """First end wins. A reason outside Statehouse's taxonomy is kept verbatim (``end_reason``)
        and classed as a deliberate close (docs/domain.md §4)."""

        def run() -> None:
            try:
                self._client.end_session(self._ids.out(session_id), end_reason)
            except NotFoundError:
                pass

        self._retrying(run)
        self._count_write()

    def reopen_session(self, session_id: str) -> None:
        """Clears the end. Statehouse never clears a compression, branched or reset end: such a row
        stays ended (logged) — continue in its continuation instead."""
        session = self._get(session_id)
        if session is None or session.get("endedAt") is None:
            return
        transport = session.get("transportProfile") or session.get("source")

        def run() -> None:
            self._client.reopen_session(self._ids.out(session_id), transport_profile=transport)

        try:
            self._retrying(run)
        except (SessionClosedError, ReopenNotPermittedError) as error:
            logger.warning("session %s stays ended: %s", session_id, error.detail)

    def update_session_cwd(
        self, session_id: str, cwd: str, git_branch: Optional[str] = None, git_repo_root: Optional[str] = None
    ) -> None:
        if not session_id or not cwd:
            return
        fields: Json = {"cwd": cwd}
        branch = (git_branch or "").strip()
        root = (git_repo_root or "").strip()
        if branch:
            fields["git_branch"] = branch
        if root:
            fields["git_repo_root"] = root
        self._patch(session_id, **fields)

    def backfill_repo_roots(self, cwd_to_root: Dict[str, str]) -> None:
        pairs = {cwd: root for cwd, root in cwd_to_root.items() if root and cwd}
        if not pairs:
            return
        for item in self._every_session():
            cwd = item.get("cwd")
            if cwd in pairs and not (item.get("gitRepoRoot") or ""):
                self._patch(self._ids.back(item["id"]), git_repo_root=pairs[cwd])

    def update_session_meta(self, session_id: str, model_config_json: str, model: Optional[str] = None) -> None:
        config = json.loads(model_config_json) if model_config_json else None
        fields: Json = {"model_config": config}
        if model is not None:
            fields["model"] = model
        self._patch(session_id, **fields)

    def update_system_prompt(self, session_id: str, system_prompt: str) -> None:
        self._patch(session_id, system_prompt=system_prompt)

    def update_session_model(self, session_id: str, model: str) -> None:
        self._patch(session_id, model=model)

    def update_session_billing_route(
        self, session_id: str, *, provider: str, base_url: str, billing_mode: Optional[str] = None
    ) -> None:
        # The stored prompt names the old Model:/Provider:, so it goes with the switch.
        fields: Json = {"billing_provider": provider, "billing_base_url": base_url, "system_prompt": None}
        if billing_mode is not None:
            fields["billing_mode"] = billing_mode
        self._patch(session_id, **fields)

    def update_token_counts(
        self,
        session_id: str,
        input_tokens: int = 0,
        output_tokens: int = 0,
        model: Optional[str] = None,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
        reasoning_tokens: int = 0,
        estimated_cost_usd: Optional[float] = None,
        actual_cost_usd: Optional[float] = None,
        cost_status: Optional[str] = None,
        cost_source: Optional[str] = None,
        pricing_version: Optional[str] = None,
        billing_provider: Optional[str] = None,
        billing_base_url: Optional[str] = None,
        billing_mode: Optional[str] = None,
        api_call_count: int = 0,
        absolute: bool = False,
    ) -> None:
        """Usage counters, added (default) or set (``absolute``), in one server-side write
        (``POST /v1/sessions/:id/usage``, docs/domain.md §2.2.8)."""
        body = camel_keys(
            {
                "mode": "absolute" if absolute else "increment",
                "input_tokens": input_tokens or 0,
                "output_tokens": output_tokens or 0,
                "cache_read_tokens": cache_read_tokens or 0,
                "cache_write_tokens": cache_write_tokens or 0,
                "reasoning_tokens": reasoning_tokens or 0,
                "api_call_count": api_call_count or 0,
                "estimated_cost_usd": estimated_cost_usd,
                "actual_cost_usd": actual_cost_usd,
                "cost_status": cost_status,
                "cost_source": cost_source,
                "pricing_version": pricing_version,
                "model": model,
                "billing_provider": billing_provider,
                "billing_base_url": billing_base_url,
                "billing_mode": billing_mode,
            }
        )
        path = f"/v1/sessions/{path_segment(self._ids.out(session_id))}/usage"
        try:
            self._client.request("POST", path, body=body)
        except NotFoundError:
            # Hermes creates the row when an earlier create failed; so do we, then count.
            self._insert_session_row(session_id, "unknown", model=model)
            self._client.request("POST", path, body=body)
        self._count_write()

    # ── gateway metadata ───────────────────────────────────────────────────

    def record_gateway_session_peer(
        self,
        session_id: str,
        *,
        source: str,
        user_id: Optional[str] = None,
        session_key: Optional[str] = None,
        chat_id: Optional[str] = None,
        chat_type: Optional[str] = None,
        thread_id: Optional[str] = None,
        display_name: Optional[str] = None,
        origin_json: Optional[str] = None,
    ) -> None:
        if not session_id or not session_key:
            return
        fields: Json = {
            "session_key": session_key,
            "source": _text.source_label(source),
            "user_id": user_id,
            "chat_id": chat_id,
            "chat_type": chat_type,
            "thread_id": thread_id,
        }
        if display_name is not None:
            fields["display_name"] = display_name
        if origin_json is not None:
            try:
                fields["origin"] = json.loads(origin_json)
            except ValueError:
                pass
        self._patch(session_id, **fields)

    def set_expiry_finalized(self, session_id: str, finalized: bool = True) -> None:
        if session_id:
            self._set_attributes(session_id, expiry_finalized=1 if finalized else 0)

    def save_gateway_routing_entry(self, session_key: str, entry_json: str, *, scope: str = "") -> None:
        if not session_key or not entry_json:
            return
        self.set_meta(f"{_META_ROUTING}{scope}\n{session_key}", entry_json)
        self._put_route(session_key, entry_json)

    def _put_route(self, session_key: str, entry_json: str) -> None:
        """Statehouse routes the chat too (docs/domain.md §6.3), so resolve finds the session."""
        try:
            entry = json.loads(entry_json)
        except ValueError:
            return
        if not isinstance(entry, dict) or not entry.get("session_id"):
            return
        origin = entry.get("origin") if isinstance(entry.get("origin"), dict) else None
        try:
            self._client.put_route(
                session_key, self._ids.out(str(entry["session_id"])), profile=self.profile, origin=origin
            )
        except StatehouseError as error:
            logger.debug("route %s not recorded: %s", session_key, error)

    def replace_gateway_routing_entries(self, entries: Dict[str, str], *, scope: str = "") -> None:
        prefix = f"{_META_ROUTING}{scope}\n"
        current = {key[len(prefix) :] for key in self._meta_keys(prefix)}
        for session_key in current - set(entries):
            self._delete_meta(f"{prefix}{session_key}")
        for session_key, entry_json in entries.items():
            if session_key and entry_json:
                self.set_meta(f"{prefix}{session_key}", entry_json)
                self._put_route(session_key, entry_json)

    def load_gateway_routing_entries(self, *, scope: str = "") -> Dict[str, str]:
        prefix = f"{_META_ROUTING}{scope}\n"
        return {item["key"][len(prefix) :]: item["value"] for item in self._meta_items(prefix)}

    def delete_gateway_routing_entries(self, session_keys: List[str], *, scope: str = "") -> None:
        for session_key in session_keys or []:
            self._delete_meta(f"{_META_ROUTING}{scope}\n{session_key}")

    def _gateway_rows(self, **filters: Any) -> Iterator[Json]:
        yield from self._every_session(keyed=True, order="started", **filters)

    def list_gateway_sessions(self, *, platform: Optional[str] = None, active_only: bool = True) -> List[Dict[str, Any]]:
        """The newest row of every routing key (like sessions.json): one live mapping per key."""
        newest: Dict[str, Json] = {}
        for item in self._gateway_rows():
            key = item.get("sessionKey")
            if key and key not in newest:
                newest[key] = item
        rows = []
        for item in newest.values():
            if platform and (item.get("source") or "").lower() != platform.lower():
                continue
            if active_only and item.get("endedAt") is not None:
                continue
            rows.append(self._row_with_activity(item))
        rows.sort(key=lambda row: row["last_active"] or 0, reverse=True)
        return rows

    def find_session_by_origin(
        self,
        *,
        platform: str,
        chat_id: str,
        thread_id: Optional[str] = None,
        user_id: Optional[str] = None,
    ) -> Optional[str]:
        if not platform or chat_id in (None, ""):
            return None
        rows = []
        for item in self._gateway_rows(chat_id=str(chat_id), status="open"):
            if (item.get("source") or "").lower() != platform.lower():
                continue
            if thread_id is not None and (item.get("threadId") or "") != str(thread_id):
                continue
            rows.append(item)
        if not rows:
            return None
        if user_id:
            exact = [row for row in rows if str(row.get("userId") or "") == str(user_id)]
            if exact:
                return str(self._ids.back(exact[0]["id"]))
            if len(rows) > 1:
                return None
        elif len(rows) > 1:
            users = {str(row.get("userId") or "").strip() for row in rows} - {""}
            if len(users) > 1:
                return None
        return str(self._ids.back(rows[0]["id"]))

    def find_latest_gateway_session_for_peer(
        self,
        *,
        source: str,
        user_id: Optional[str] = None,
        session_key: Optional[str] = None,
        chat_id: Optional[str] = None,
        chat_type: Optional[str] = None,
        thread_id: Optional[str] = None,
    ) -> Optional[Dict[str, Any]]:
        """The latest recoverable row of a peer: open or ended by an accident, with messages."""
        if not session_key:
            return None

        def recoverable(item: Json) -> bool:
            end = item.get("endReasonDetail") or item.get("endReason")
            if item.get("endedAt") is not None and end not in _RECOVERABLE_ENDS:
                return False
            return bool(item.get("messageCount"))

        source = _text.source_label(source) if source else source
        for item in self._gateway_rows(session_key=session_key, source=source):
            if recoverable(item):
                return session_row(item, ids=self._ids)
        if chat_id is None or chat_type is None:
            return None
        for item in self._gateway_rows(chat_id=str(chat_id), chat_type=str(chat_type), source=source):
            if (
                (item.get("userId") or "") == (user_id or "")
                and (item.get("threadId") or "") == (thread_id or "")
                and recoverable(item)
            ):
                return session_row(item, ids=self._ids)
        return None

    # ── compression bookkeeping ────────────────────────────────────────────

    def record_compression_failure_cooldown(self, session_id: str, cooldown_until: float, error: Optional[str] = None) -> None:
        if session_id:
            self._set_cooldown("record_compression_failure_cooldown", session_id, cooldown_until, error)

    def get_compression_failure_cooldown(self, session_id: str) -> Optional[Dict[str, Any]]:
        row = self.get_session(session_id) if session_id else None
        if row is None or row.get("compression_failure_cooldown_until") is None:
            return None
        until = float(row["compression_failure_cooldown_until"])
        now = time.time()
        if until <= now:
            return None
        return {"cooldown_until": until, "remaining_seconds": until - now, "error": row.get("compression_failure_error")}

    def clear_compression_failure_cooldown(self, session_id: str) -> None:
        if session_id:
            self._set_cooldown("clear_compression_failure_cooldown", session_id, None, None)

    def _set_cooldown(self, name: str, session_id: str, until: Optional[float], error: Optional[str]) -> None:
        def run() -> None:
            self._set_attributes(session_id, compression_failure_cooldown_until=until, compression_failure_error=error)

        self._best_effort(run, None, name, session_id)

    def get_compression_fallback_streak(self, session_id: str) -> int:
        row = self.get_session(session_id) if session_id else None
        return max(0, int(row["compression_fallback_streak"] or 0)) if row else 0

    def set_compression_fallback_streak(self, session_id: str, streak: int) -> None:
        if session_id:
            self._set_attributes(session_id, compression_fallback_streak=max(0, int(streak)))

    # Compression locks are leases in the profile's key/value store, taken by compare-and-set.

    def _lock_state(self, session_id: str) -> Tuple[Optional[str], Optional[Json]]:
        raw = self.get_meta(f"{_META_COMPRESSION_LOCK}{session_id}")
        if raw is None:
            return None, None
        try:
            state = json.loads(raw)
        except ValueError:
            return raw, None
        return raw, state if isinstance(state, dict) else None

    def try_acquire_compression_lock(self, session_id: str, holder: str, ttl_seconds: float = 300.0) -> bool:
        if not session_id:
            return False

        def run() -> bool:
            now = time.time()
            raw, state = self._lock_state(session_id)
            if state is not None and state.get("holder") != holder and float(state.get("expires_at", 0)) >= now:
                return False
            value = json.dumps({"holder": holder, "acquired_at": now, "expires_at": now + ttl_seconds})
            return self._cas_meta(f"{_META_COMPRESSION_LOCK}{session_id}", value, raw)

        return self._best_effort(run, False, "try_acquire_compression_lock", session_id)

    def refresh_compression_lock(self, session_id: str, holder: str, ttl_seconds: float = 300.0) -> bool:
        if not session_id or not holder:
            return False

        def run() -> bool:
            now = time.time()
            raw, state = self._lock_state(session_id)
            if state is None or state.get("holder") != holder or float(state.get("expires_at", 0)) < now:
                return False
            value = json.dumps({**state, "expires_at": now + ttl_seconds})
            return self._cas_meta(f"{_META_COMPRESSION_LOCK}{session_id}", value, raw)

        return self._best_effort(run, False, "refresh_compression_lock", session_id)

    def release_compression_lock(self, session_id: str, holder: str) -> None:
        if not session_id:
            return

        def run() -> None:
            raw, state = self._lock_state(session_id)
            if state is not None and state.get("holder") == holder:
                self._delete_meta(f"{_META_COMPRESSION_LOCK}{session_id}", if_value=raw)

        self._best_effort(run, None, "release_compression_lock", session_id)

    def get_compression_lock_holder(self, session_id: str) -> Optional[str]:
        if not session_id:
            return None
        _, state = self._lock_state(session_id)
        if state is None or float(state.get("expires_at", 0)) < time.time():
            return None
        holder = state.get("holder")
        return str(holder) if holder is not None else None

    # ── maintenance helpers ────────────────────────────────────────────────

    def prune_empty_ghost_sessions(self, sessions_dir: Optional[Path] = None) -> int:
        """Statehouse's ghost prune: untitled, ended, empty sessions older than a day (any surface).

        Needs an admin token; with a member token it does nothing (0): the server's own jobs keep the
        store (docs/operations.md), and Hermes calls this as housekeeping, not for an answer."""
        answer = self._admin_only("/v1/maintenance/ghost-prune", {"profile": self.profile}, "prune_empty_ghost_sessions")
        return 0 if answer is None else len(self._removed(answer, sessions_dir))

    def finalize_orphaned_compression_sessions(self) -> int:
        """Statehouse's liveness sweep ends orphaned open rows itself (docs/domain.md §10.3): nothing
        is left for a client to finalize."""
        return 0

    # ── ids and titles ─────────────────────────────────────────────────────

    def resolve_session_id(self, session_id_or_prefix: str) -> Optional[str]:
        """The exact id, or the only id starting with the prefix (``None`` when ambiguous or unknown)."""
        if not session_id_or_prefix:
            return None
        answer = self._client._json(
            "GET",
            "/v1/sessions/resolve-id",
            params={"profile": self.profile, "prefix": self._ids.out(session_id_or_prefix)},
        )
        session_id = answer.get("id")
        return str(self._ids.back(session_id)) if session_id else None

    sanitize_title = staticmethod(_text.sanitize_title)

    def _title_lineage(self, title: str) -> Json:
        return self._client._json(  # type: ignore[no-any-return]
            "GET", "/v1/sessions/title-lineage", params={"profile": self.profile, "title": title}
        )

    def set_session_title(self, session_id: str, title: str) -> bool:
        """Sets (or, empty, clears) the title; ``ValueError`` when another session holds it — unless
        that holder is a compression predecessor of this session, which hands the title over."""
        clean = _text.sanitize_title(title)
        for _ in range(3):
            try:
                return self._patch(session_id, title=clean, title_source="user") is not None
            except TitleConflictError:
                holder = self._title_lineage(clean or "").get("session")
                holder_id = self._ids.back(holder["id"]) if holder else None
                if not holder_id or holder_id == session_id:
                    continue
                if not self._is_compression_ancestor(holder_id, session_id):
                    raise ValueError(f"Title '{clean}' is already in use by session {holder_id}")
                self._patch(holder_id, title=None)
        raise ValueError(f"Title '{clean}' is already in use")

    def _is_compression_ancestor(self, ancestor_id: str, descendant_id: str) -> bool:
        try:
            lineage = self._client.lineage(self._ids.out(descendant_id))
        except NotFoundError:
            return False
        chain = [self._ids.back(member) for member in lineage.get("chain") or []]
        return ancestor_id in chain and chain.index(ancestor_id) < chain.index(descendant_id) if descendant_id in chain else False

    def get_session_title(self, session_id: str) -> Optional[str]:
        session = self._get(session_id)
        return session.get("title") if session else None

    def get_session_by_title(self, title: str) -> Optional[Dict[str, Any]]:
        if not title:
            return None
        holder = self._title_lineage(title).get("session")
        return session_row(holder, ids=self._ids) if holder else None

    def resolve_session_by_title(self, title: str) -> Optional[str]:
        """The latest ``"title #N"`` continuation when there is one, else the exact holder."""
        if not title:
            return None
        answer = self._title_lineage(title)
        latest = answer.get("latest")
        if latest:
            return str(self._ids.back(latest["id"]))
        holder = answer.get("session")
        return str(self._ids.back(holder["id"])) if holder else None

    def get_next_title_in_lineage(self, base_title: str) -> str:
        match = re.match(r"^(.*?) #(\d+)$", base_title)
        base = match.group(1) if match else base_title
        return str(self._title_lineage(base)["next"])

    def set_session_archived(self, session_id: str, archived: bool) -> bool:
        """Archives (or restores) the whole compression lineage (docs/domain.md §3.7)."""
        return self._patch(session_id, archived=bool(archived)) is not None

    # ── lineage ────────────────────────────────────────────────────────────

    def _lineage(self, session_id: str) -> Optional[Json]:
        if not session_id:
            return None
        try:
            lineage = self._client.lineage(self._ids.out(session_id))
        except StatehouseError as error:
            if _is_absent(error):
                return None
            raise
        # Hermes ids throughout.
        lineage["chain"] = [self._ids.back(member) for member in lineage.get("chain") or []]
        lineage["tipId"] = self._ids.back(lineage.get("tipId"))
        lineage["rootId"] = self._ids.back(lineage.get("rootId"))
        for node in lineage.get("nodes") or []:
            node["id"] = self._ids.back(node["id"])
        return lineage

    def _on_chain(self, session_id: str) -> Optional[Tuple[Json, List[str]]]:
        """The session's lineage and compression chain (Hermes ids); ``None`` when it is on none."""
        lineage = self._lineage(session_id)
        if lineage is None:
            return None
        chain: List[str] = lineage.get("chain") or []
        return (lineage, chain) if session_id in chain else None

    def get_compression_tip(self, session_id: str) -> Optional[str]:
        found = self._on_chain(session_id)
        return session_id if found is None else str(found[0].get("tipId") or session_id)

    def get_compression_lineage(self, session_id: str) -> List[str]:
        lineage = self._lineage(session_id)
        if lineage is None:
            return []
        chain = [str(member) for member in lineage.get("chain") or []]
        return chain if session_id in chain else [session_id]

    def resolve_resume_session_id(self, session_id: str) -> str:
        """The segment of the conversation that holds its latest messages: the compression chain is
        followed forward and the deepest segment with messages wins."""
        found = self._on_chain(session_id) if session_id else None
        if found is None:
            return session_id
        lineage, chain = found
        counts = {node["id"]: node.get("messageCount", 0) for node in lineage.get("nodes") or []}
        best = None
        for member in chain[chain.index(session_id) :]:
            if counts.get(member):
                best = member
        return best or str(lineage.get("tipId") or session_id)

    # ── listings ───────────────────────────────────────────────────────────

    def _walk(self, limit: Optional[int], offset: int, **filters: Any) -> Iterator[Json]:
        """Items of the session list, skipping ``offset`` and stopping after ``limit``."""
        page_size = _PAGE if limit is None else max(1, min(_PAGE, limit + offset))
        return _window(self._client.iter_sessions(profile=self.profile, page_size=page_size, **filters), offset, limit)

    def distinct_session_cwds(self, include_archived: bool = False) -> List[Dict[str, Any]]:
        answer = self._client._json(
            "GET",
            "/v1/sessions/workspaces",
            params={"profile": self.profile, "archived": "include" if include_archived else "exclude"},
        )
        return [
            {"cwd": item["cwd"], "sessions": int(item["sessions"]), "last_active": epoch(item["lastActiveAt"]) or 0.0}
            for item in answer.get("items", [])
        ]

    def list_sessions_rich(
        self,
        source: Optional[str] = None,
        exclude_sources: Optional[List[str]] = None,
        cwd_prefix: Optional[str] = None,
        limit: int = 20,
        offset: int = 0,
        include_children: bool = False,
        min_message_count: int = 0,
        project_compression_tips: bool = True,
        order_by_last_active: bool = False,
        include_archived: bool = False,
        archived_only: bool = False,
        id_query: Optional[str] = None,
        search_query: Optional[str] = None,
        compact_rows: bool = False,
    ) -> List[Dict[str, Any]]:
        """One row per conversation (a compression chain at its tip, keeping the root's start),
        sub-agent runs hidden unless asked; newest start first, or latest activity first."""
        project = project_compression_tips and not include_children
        filters: Json = {
            "source": _text.source_label(source) if source else None,
            "exclude_sources": _text.source_labels(exclude_sources),
            "cwd_prefix": cwd_prefix,
            "include_children": include_children or None,
            "min_messages": min_message_count or None,
            "view": "tips" if project else ("all" if include_children else "roots"),
            "order": "recent" if order_by_last_active else "started",
            "archived": "only" if archived_only else ("include" if include_archived else "exclude"),
            "q": (search_query or id_query or None),
            "include": None if compact_rows else "systemPrompt",
        }
        rows = []
        for item in self._walk(limit, offset, **filters):
            rows.append(rich_row(item, with_system_prompt=not compact_rows, project=project, ids=self._ids))
        return rows

    def _get_session_rich_row(self, session_id: str, compact_rows: bool = False) -> Optional[Dict[str, Any]]:
        session = self._get(session_id)
        if session is None:
            return None
        row = self._row_with_activity(session, with_system_prompt=not compact_rows)
        row["preview"] = _rows_preview(session)
        return row

    def list_cron_job_runs(self, job_id: str, limit: int = 20, offset: int = 0) -> List[Dict[str, Any]]:
        """Runs of one cron job (ids ``cron_<job>_…``), newest start first."""
        prefix = f"cron_{job_id}_"
        items = self._every_session(source="cron", order="started", id_prefix=self._ids.out(prefix))
        runs = (item for item in items if str(self._ids.back(item["id"])).startswith(prefix))
        # At least one row even for a limit below one, as before.
        return [rich_row(item, project=False, ids=self._ids) for item in _window(runs, offset, max(1, limit))]

    def search_sessions(self, source: Optional[str] = None, limit: int = 20, offset: int = 0) -> List[Dict[str, Any]]:
        """Every row (children and archived ones too), most recently active first."""
        filters: Json = {
            "source": _text.source_label(source) if source else None,
            "view": "all",
            "archived": "include",
            "include_children": True,
            "include_hidden": True,
            "order": "recent",
            "include": "systemPrompt",
        }
        return [self._row_with_activity(item) for item in self._walk(limit, offset, **filters)]

    def search_sessions_by_id(self, query: str, limit: int = 20, include_archived: bool = True) -> List[Dict[str, Any]]:
        """Conversations whose id — or the id of any segment of their compression chain — contains
        the needle; exact matches first, then prefixes, then the rest (latest activity first)."""
        needle = (query or "").strip().lower()
        if not needle or limit <= 0:
            return []
        archived = "include" if include_archived else "exclude"
        rows: Dict[str, Json] = {}
        for item in self._walk(limit * 4, 0, view="tips", order="recent", archived=archived, id_contains=needle):
            rows.setdefault(item["id"], rich_row(item, with_system_prompt=False, ids=self._ids))

        def score(row: Json) -> int:
            ids = [str(row.get("id") or "").lower(), str(row.get("_lineage_root_id") or "").lower()]
            if needle in ids:
                return 0
            if any(value.startswith(needle) for value in ids if value):
                return 1
            return 2

        ranked = sorted(enumerate(rows.values()), key=lambda pair: (score(pair[1]), pair[0]))
        return [row for _, row in ranked[:limit]]

    def session_count(
        self,
        source: Optional[str] = None,
        cwd_prefix: Optional[str] = None,
        min_message_count: int = 0,
        include_archived: bool = False,
        archived_only: bool = False,
        exclude_children: bool = False,
        exclude_sources: Optional[List[str]] = None,
    ) -> int:
        params = camel_keys(
            {
                "profile": self.profile,
                "source": _text.source_label(source) if source else None,
                "cwd_prefix": cwd_prefix,
                "min_messages": min_message_count or None,
                "archived": "only" if archived_only else ("include" if include_archived else "exclude"),
                "view": "roots" if exclude_children else "all",
                "include_children": None if exclude_children else True,
                "include_hidden": True,
                "exclude_sources": ",".join(_text.source_labels(exclude_sources) or []) or None,
            }
        )
        return int(self._client._json("GET", "/v1/sessions/count", params=params)["sessions"])

    def message_count(self, session_id: Optional[str] = None) -> int:
        params: Json = {"profile": self.profile, "view": "all", "archived": "include", "includeChildren": True, "includeHidden": True}
        if session_id:
            params["sessionId"] = self._ids.out(session_id)
        return int(self._client._json("GET", "/v1/sessions/count", params=params)["messages"])

    # ── messages ───────────────────────────────────────────────────────────

    def append_message(
        self,
        session_id: str,
        role: str,
        content: Any = None,
        tool_name: Optional[str] = None,
        tool_calls: Any = None,
        tool_call_id: Optional[str] = None,
        token_count: Optional[int] = None,
        finish_reason: Optional[str] = None,
        reasoning: Optional[str] = None,
        reasoning_content: Optional[str] = None,
        reasoning_details: Any = None,
        codex_reasoning_items: Any = None,
        codex_message_items: Any = None,
        platform_message_id: Optional[str] = None,
        observed: bool = False,
        effect_disposition: Optional[str] = None,
        timestamp: Any = None,
    ) -> int:
        """Appends one message (one request) and returns its id."""
        message: Json = {"role": role}
        if content is not None:
            message["content"] = content
        if tool_name is not None:
            message["toolName"] = tool_name
        if tool_calls:
            message["toolCalls"] = tool_calls if isinstance(tool_calls, list) else [tool_calls]
        if tool_call_id is not None:
            message["toolCallId"] = tool_call_id
        if token_count is not None:
            message["tokenCount"] = token_count
        if finish_reason is not None:
            message["finishReason"] = finish_reason
        if reasoning:
            message["reasoning"] = reasoning
        if reasoning_content is not None:
            message["reasoningContent"] = reasoning_content
        if reasoning_details:
            message["reasoningDetails"] = reasoning_details
        if codex_reasoning_items:
            message["codexReasoningItems"] = codex_reasoning_items
        if codex_message_items:
            message["codexMessageItems"] = codex_message_items
        if platform_message_id:
            message["platformMessageId"] = str(platform_message_id)
        if observed:
            message["observed"] = True
        if effect_disposition is not None:
            message["effectDisposition"] = effect_disposition
        if timestamp is not None:
            stamp = epoch_ms(timestamp)
            if stamp is not None:
                message["timestamp"] = stamp
        answer = self._client.append_messages(self._ids.out(session_id), [message])
        self._count_write()
        return int(answer["ids"][0])

    def _messages(self, session_id: str, *, include_inactive: bool = False, order: str = "oldest", **query: Any) -> Iterator[Json]:
        """The transcript as stored, in id order; Statehouse's own ``session_meta`` records left out."""
        try:
            for message in self._client.iter_messages(
                self._ids.out(session_id),
                page_size=_MESSAGE_PAGE,
                include_inactive=include_inactive,
                include_compacted=include_inactive,
                include_hidden=True,
                order=order,
                **query,
            ):
                if message.get("role") != "session_meta":
                    yield message
        except StatehouseError as error:
            if _is_absent(error):
                return
            raise

    def get_messages(
        self,
        session_id: str,
        include_inactive: bool = False,
        limit: Optional[int] = None,
        offset: int = 0,
    ) -> List[Dict[str, Any]]:
        messages = self._messages(session_id, include_inactive=include_inactive)
        return [message_row(message, self._ids) for message in _window(messages, offset, limit)]

    def get_messages_around(self, session_id: str, around_message_id: int, window: int = 5) -> Dict[str, Any]:
        window = max(0, window)
        messages = [message_row(message, self._ids) for message in self._messages(session_id, include_inactive=True)]
        ids = [message["id"] for message in messages]
        if around_message_id not in ids:
            return {"window": [], "messages_before": 0, "messages_after": 0}
        at = ids.index(around_message_id)
        start = max(0, at - window)
        end = min(len(messages), at + window + 1)
        return {"window": messages[start:end], "messages_before": at - start, "messages_after": end - at - 1}

    def get_anchored_view(
        self,
        session_id: str,
        around_message_id: int,
        window: int = 5,
        bookend: int = 3,
        keep_roles: Optional[Tuple[str, ...]] = ("user", "assistant"),
    ) -> Dict[str, Any]:
        bookend = max(0, bookend)
        primitive = self.get_messages_around(session_id, around_message_id, window=window)
        rows = primitive["window"]
        empty = {"window": [], "messages_before": 0, "messages_after": 0, "bookend_start": [], "bookend_end": []}
        if not rows:
            return empty
        keep = set(keep_roles) if keep_roles is not None else None
        filtered = [m for m in rows if keep is None or m["id"] == around_message_id or m["role"] in keep]
        first, last = rows[0]["id"], rows[-1]["id"]
        everything = [message_row(message, self._ids) for message in self._messages(session_id, include_inactive=True)]

        def eligible(message: Json) -> bool:
            content = message.get("content")
            has_text = bool(content) if not isinstance(content, str) else len(content) > 0
            return has_text and (keep is None or message["role"] in keep)

        start = [m for m in everything if m["id"] < first and eligible(m)][:bookend] if bookend else []
        tail = [m for m in everything if m["id"] > last and eligible(m)]
        end = tail[-bookend:] if bookend else []
        return {
            "window": filtered,
            "messages_before": primitive["messages_before"],
            "messages_after": primitive["messages_after"],
            "bookend_start": start,
            "bookend_end": end,
        }

    def _lineage_root_to_tip(self, session_id: str) -> List[str]:
        chain: List[str] = []
        seen: set[str] = set()
        current: Optional[str] = session_id
        for _ in range(100):
            if not current or current in seen:
                break
            seen.add(current)
            chain.append(current)
            session = self._get(current)
            current = self._ids.back(session.get("parentSessionId")) if session else None
        return list(reversed(chain)) or [session_id]

    def get_messages_as_conversation(
        self,
        session_id: str,
        include_ancestors: bool = False,
        include_inactive: bool = False,
    ) -> List[Dict[str, Any]]:
        """The transcript in the OpenAI conversation shape Hermes replays to a model."""
        session_ids = self._lineage_root_to_tip(session_id) if include_ancestors else [session_id]
        entries: List[Json] = []
        for member in session_ids:
            for message in self._messages(member, include_inactive=include_inactive):
                entry = conversation_entry(message)
                if include_ancestors and _is_replayed_prompt(entries, entry):
                    continue
                entries.append(entry)
        return _text.strip_review_harness(entries)

    def _replace(self, session_id: str, messages: Sequence[Mapping[str, Any]], *, archive: bool) -> Json:
        wire = [wire_message(message, assistant_extras_only=True) for message in messages]

        def run() -> Json:
            response = self._client._mutate_session(
                "PUT", self._ids.out(session_id), "/messages", body={"messages": wire, "archive": archive}, destructive=True
            )
            answer: Json = response.body
            self._client._remember_sessions(answer.get("session"))
            return answer

        answer = self._retrying(run)
        self._count_write()
        return answer

    def replace_messages(self, session_id: str, messages: List[Dict[str, Any]], active_only: bool = False) -> None:
        """Rewrites the live transcript in one transaction: the old rows leave it (kept as rewound,
        never shown or searched), the new ones take their place."""
        self._replace(session_id, messages, archive=False)

    def archive_and_compact(self, session_id: str, compacted_messages: List[Dict[str, Any]]) -> int:
        """Compacts in place: the live rows are archived (still shown and searched as compacted) and
        the compacted set becomes the live transcript. Returns the new live count."""
        answer = self._replace(session_id, compacted_messages, archive=True)
        return len(answer.get("ids") or [])

    def clear_messages(self, session_id: str) -> None:
        self._replace(session_id, [], archive=False)

    def has_archived_messages(self, session_id: str) -> bool:
        for message in self._messages(session_id, include_inactive=True):
            if not message.get("active", True):
                return True
        return False

    def has_platform_message_id(self, session_id: str, platform_message_id: str) -> bool:
        try:
            page = self._client.list_messages(
                self._ids.out(session_id),
                platform_message_id=str(platform_message_id),
                include_inactive=True,
                include_compacted=True,
                include_hidden=True,
                limit=1,
            )
        except NotFoundError:
            return False
        return bool(page.get("items"))

    def rewind_to_message(self, session_id: str, target_message_id: int) -> Dict[str, Any]:
        """Soft rewind to a user message: it and everything after it leave the live transcript."""
        page = self._client.list_messages(
            self._ids.out(session_id),
            after=max(0, int(target_message_id) - 1),
            limit=1,
            include_inactive=True,
            include_compacted=True,
            include_hidden=True,
        )
        items = page.get("items") or []
        if not items or items[0]["id"] != target_message_id:
            raise ValueError(f"message {target_message_id} not found in session {session_id}")
        target = message_row(items[0], self._ids)
        if target["role"] != "user":
            raise ValueError(
                f"rewind target must be a 'user' message (got role={target['role']!r}, id={target_message_id})"
            )
        rewound: List[int] = []
        if target["active"]:

            def run() -> Json:
                return self._client.rewind(self._ids.out(session_id), int(target_message_id))

            rewound = [int(i) for i in self._retrying(run).get("rewoundIds", [])]
        session = self._get(session_id)
        count = int(((session or {}).get("attributes") or {}).get("rewind_count") or 0)
        self._set_attributes(session_id, rewind_count=count + 1)
        head = self._client.list_messages(
            self._ids.out(session_id), order="latest", limit=1, include_hidden=True, include_compacted=False
        )
        heads = head.get("items") or []
        return {"rewound_count": len(rewound), "target_message": target, "new_head_id": heads[0]["id"] if heads else None}

    def restore_rewound(self, session_id: str, since_message_id: int) -> int:
        """Not offered: a Statehouse rewind is final for the transcript (rewound rows stay readable
        with ``get_messages(include_inactive=True)``); append them again to restore them."""
        raise NotImplementedError("Statehouse does not undo a rewind; append the messages again instead")

    def list_recent_user_messages(self, session_id: str, limit: int = 20, include_inactive: bool = False) -> List[Dict[str, Any]]:
        result: List[Json] = []
        for message in self._messages(session_id, include_inactive=include_inactive, order="latest"):
            if message.get("role") != "user":
                continue
            content = message.get("content")
            if isinstance(content, list):
                texts = [part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text"]
                preview = " ".join(text for text in texts if text).strip() or "[multimodal content]"
            elif isinstance(content, str):
                preview = content
            else:
                preview = ""
            preview = " ".join(preview.split())
            if len(preview) > 80:
                preview = preview[:77] + "..."
            result.append({"id": message["id"], "timestamp": epoch(message.get("timestamp")), "preview": preview})
            if len(result) >= int(limit):
                break
        return result

    # ── search ─────────────────────────────────────────────────────────────

    _sanitize_fts5_query = staticmethod(_text.sanitize_fts5_query)
    _is_cjk_codepoint = staticmethod(_text.is_cjk_codepoint)
    _contains_cjk = staticmethod(_text.contains_cjk)

    @classmethod
    def _count_cjk(cls, text: str) -> int:
        return _text.count_cjk(text)

    def search_messages(
        self,
        query: str,
        source_filter: Optional[List[str]] = None,
        exclude_sources: Optional[List[str]] = None,
        role_filter: Optional[List[str]] = None,
        limit: int = 20,
        offset: int = 0,
        sort: Optional[str] = None,
        include_inactive: bool = False,
    ) -> List[Dict[str, Any]]:
        """Messages matching the query (Statehouse's word and substring indexes, docs/domain.md §7),
        each with its session's source and one neighbouring message on each side as context."""
        if not query or not query.strip():
            return []
        if source_filter is not None and len(source_filter) == 0:
            return []
        filters: Json = {
            # Hermes searches every surface unless told otherwise: an empty exclusion list widens
            # Statehouse's default scope (no cron or sub-agent sessions, docs/search.md) to all.
            "source": _text.source_labels(source_filter),
            "exclude_source": _text.source_labels(exclude_sources) or [],
            "roles": list(role_filter) if role_filter else None,
            "context": 1,
            "titles": False,
        }
        hits = self._client.iter_search(
            query[: _text.MAX_FTS5_QUERY_CHARS], profile=self.profile, page_size=max(1, min(100, limit + offset)), **filters
        )
        messages = (hit for hit in hits if hit.get("matchedIn") != "title")
        try:
            # At least one match even for a limit below one, as before.
            matches = [_search_row(hit, self._ids) for hit in _window(messages, offset, max(1, limit))]
        except StatehouseError as error:
            if error.status == 400:
                return []
            raise
        if sort in ("newest", "oldest"):
            matches.sort(key=lambda row: row["timestamp"] or 0, reverse=sort == "newest")
        return matches

    # ── export and import ──────────────────────────────────────────────────

    def export_session(self, session_id: str) -> Optional[Dict[str, Any]]:
        session = self.get_session(session_id)
        if not session:
            return None
        return {**session, "messages": self.get_messages(session_id)}

    def export_session_lineage(self, session_id: str) -> Optional[Dict[str, Any]]:
        lineage_ids = self.get_compression_lineage(session_id)
        if not lineage_ids:
            return None
        segments = [segment for segment in (self.export_session(member) for member in lineage_ids) if segment]
        if not segments:
            return None
        base = dict(segments[-1])
        base["segments"] = segments
        base["lineage_session_ids"] = [segment["id"] for segment in segments]
        base["message_count"] = sum(len(segment.get("messages") or []) for segment in segments)
        base["messages"] = [message for segment in segments for message in (segment.get("messages") or [])]
        return base

    def export_all(self, source: Optional[str] = None) -> List[Dict[str, Any]]:
        return [{**session, "messages": self.get_messages(session["id"])} for session in self.search_sessions(source=source, limit=100000)]

    def import_sessions(self, sessions: List[Dict[str, Any]]) -> Dict[str, Any]:
        from ._import import import_sessions

        return import_sessions(self, sessions)

    # ── deletion ───────────────────────────────────────────────────────────

    def delete_session(self, session_id: str, sessions_dir: Optional[Path] = None) -> bool:
        """Deletes the session with its sub-agent sessions (delegates go with their parent, docs/domain.md
        §3.1); other children become roots. Writes a deletion receipt."""
        if not self._get(session_id):
            return False

        def run() -> Json:
            return self._client.delete_session(self._ids.out(session_id))

        try:
            answer = self._retrying(run)
        except NotFoundError:
            return False
        return session_id in self._removed(answer, sessions_dir)

    def delete_session_if_empty(self, session_id: str, sessions_dir: Optional[Path] = None) -> bool:
        if not self._get(session_id):
            return False
        try:
            answer = self._client.delete_session(self._ids.out(session_id), if_empty=True)
        except (NotFoundError, ConflictError, SessionBusyError):
            return False
        if self._ids.out(session_id) in (answer.get("deletedIds") or []):
            _remove_session_files(sessions_dir, session_id)
            return True
        return False

    def delete_sessions(self, session_ids: List[str], sessions_dir: Optional[Path] = None) -> int:
        """Deletes the listed sessions (unknown ids skipped, duplicates once); returns how many of
        them existed and went."""
        if not session_ids:
            return 0
        wanted = list(dict.fromkeys(sid for sid in session_ids if isinstance(sid, str) and sid))
        return self._bulk_delete(wanted, sessions_dir)

    def _bulk_delete(self, session_ids: Sequence[str], sessions_dir: Optional[Path]) -> int:
        deleted: set[str] = set()
        for start in range(0, len(session_ids), _BULK_DELETE_MAX):
            items = []
            for session_id in session_ids[start : start + _BULK_DELETE_MAX]:
                if session_id in deleted:
                    continue
                session = self._get(session_id)
                if session is not None:
                    items.append({"id": session["id"], "revision": session["revision"], "generation": session["generation"]})
            if not items:
                continue
            deleted.update(self._removed(self._client.bulk_delete(items), sessions_dir))
        return len(deleted & set(session_ids))

    def count_empty_sessions(self) -> int:
        """Ended, empty, unarchived sessions (what ``delete_empty_sessions`` would remove)."""
        answer = self._client.empty_sweep(dry_run=True, profile=self.profile)
        return len(answer.get("candidates") or [])

    def delete_empty_sessions(self, sessions_dir: Optional[Path] = None) -> int:
        answer = self._client.empty_sweep(dry_run=False, profile=self.profile)
        return len(self._removed(answer, sessions_dir))

    def _prune_candidates(self, older_than_days: Optional[float], source: Optional[str], filters: Mapping[str, Any]) -> List[Json]:
        unknown = set(filters) - _PRUNE_FILTERS
        if unknown:
            raise TypeError(f"unknown prune filter(s): {', '.join(sorted(unknown))}")
        options = dict(filters)
        if options.get("started_before") is None and older_than_days is not None:
            options["started_before"] = time.time() - older_than_days * 86400
        if source:
            options["source"] = source
        if options.get("source"):
            options["source"] = _text.source_label(str(options["source"]))
        server: Json = {
            "status": "ended",
            "order": "started",
            "source": options.get("source"),
            "archived": {True: "only", False: "exclude"}.get(options.get("archived"), "include"),  # type: ignore[arg-type]
            "cwd_prefix": options.get("cwd_prefix"),
        }
        chosen = [item for item in self._every_session(**server) if _prune_match(item, options)]
        chosen.sort(key=lambda item: epoch(item.get("startedAt")) or 0)
        return chosen

    def list_prune_candidates(self, older_than_days: Optional[float] = None, source: Optional[str] = None, **filters: Any) -> List[Dict[str, Any]]:
        rows = []
        for item in self._prune_candidates(older_than_days, source, filters):
            row = session_row(item, ids=self._ids)
            rows.append({key: row[key] for key in ("id", "source", "title", "model", "started_at", "ended_at", "message_count", "archived")})
        return rows

    def archive_sessions(self, older_than_days: Optional[float] = None, source: Optional[str] = None, **filters: Any) -> int:
        filters.setdefault("archived", False)
        candidates = self._prune_candidates(older_than_days, source, filters)
        for item in candidates:
            self.set_session_archived(self._ids.back(item["id"]), True)
        return len(candidates)

    def prune_sessions(
        self,
        older_than_days: Optional[float] = 90,
        source: Optional[str] = None,
        sessions_dir: Optional[Path] = None,
        **filters: Any,
    ) -> int:
        """Deletes the ended sessions the filters select (``older_than_days`` by start, plus Hermes'
        prune filters). Delegates go with their parents; other children become roots."""
        candidates = self._prune_candidates(older_than_days, source, filters)
        return self._bulk_delete([self._ids.back(item["id"]) for item in candidates], sessions_dir)

    # ── key/value meta (per profile) ───────────────────────────────────────

    def _meta_path(self, key: str) -> str:
        return f"/v1/profiles/{path_segment(self.profile)}/meta/{path_segment(key)}"

    def get_meta(self, key: str) -> Optional[str]:
        try:
            answer = self._client._json("GET", self._meta_path(key))
        except NotFoundError:
            return None
        value = answer.get("value")
        return None if value is None else str(value)

    def set_meta(self, key: str, value: str) -> None:
        self._client.request("PUT", self._meta_path(key), body={"value": value})

    def _cas_meta(self, key: str, value: str, expected: Optional[str]) -> bool:
        """Writes only when the stored value is still ``expected`` (``None``: when there is none)."""
        try:
            self._client.request("PUT", self._meta_path(key), body={"value": value, "ifValue": expected})
        except ConflictError:
            return False
        return True

    def _delete_meta(self, key: str, if_value: Optional[str] = None) -> bool:
        params = {"ifValue": if_value} if if_value is not None else None
        try:
            self._client.request("DELETE", self._meta_path(key), params=params)
        except (NotFoundError, ConflictError):
            return False
        return True

    def _meta_items(self, prefix: str) -> Iterator[Json]:
        cursor: Optional[str] = None
        path = f"/v1/profiles/{path_segment(self.profile)}/meta"
        while True:
            page = self._client._json("GET", path, params={"prefix": prefix, "cursor": cursor, "limit": 200})
            yield from page.get("items", [])
            cursor = page.get("nextCursor")
            if not cursor:
                return

    def _meta_keys(self, prefix: str) -> List[str]:
        return [item["key"] for item in self._meta_items(prefix)]

    # ── Telegram DM topics (kept in the profile's key/value store) ─────────

    def apply_telegram_topic_migration(self) -> None:
        self.set_meta(_META_TOPIC_VERSION, "2")

    def enable_telegram_topic_mode(
        self,
        *,
        chat_id: str,
        user_id: str,
        has_topics_enabled: Optional[bool] = None,
        allows_users_to_create_topics: Optional[bool] = None,
    ) -> None:
        self.apply_telegram_topic_migration()
        now = time.time()
        key = f"{_META_TOPIC_MODE}{chat_id}"
        previous = _loads(self.get_meta(key)) or {}

        def flag(value: Optional[bool]) -> Optional[int]:
            return None if value is None else (1 if value else 0)

        state = {
            **previous,
            "chat_id": str(chat_id),
            "user_id": str(user_id),
            "enabled": 1,
            "activated_at": previous.get("activated_at", now),
            "updated_at": now,
            "has_topics_enabled": flag(has_topics_enabled),
            "allows_users_to_create_topics": flag(allows_users_to_create_topics),
            "capability_checked_at": now,
        }
        state.setdefault("intro_message_id", None)
        state.setdefault("pinned_message_id", None)
        self.set_meta(key, json.dumps(state))

    def disable_telegram_topic_mode(self, *, chat_id: str, clear_bindings: bool = True) -> None:
        self._switch_off_topic_mode(chat_id)
        if clear_bindings:
            for binding in self.list_telegram_topic_bindings_for_chat(chat_id=chat_id):
                self._drop_binding(binding)

    def is_telegram_topic_mode_enabled(self, *, chat_id: str, user_id: str) -> bool:
        state = _loads(self.get_meta(f"{_META_TOPIC_MODE}{chat_id}"))
        return bool(state and state.get("user_id") == str(user_id) and state.get("enabled"))

    def get_telegram_topic_binding(self, *, chat_id: str, thread_id: str) -> Optional[Dict[str, Any]]:
        return _loads(self.get_meta(f"{_META_TOPIC_BINDING}{chat_id}\n{thread_id}"))

    def list_telegram_topic_bindings_for_chat(self, *, chat_id: str) -> List[Dict[str, Any]]:
        bindings = [binding for binding in (_loads(item["value"]) for item in self._meta_items(f"{_META_TOPIC_BINDING}{chat_id}\n")) if binding]
        bindings.sort(key=lambda binding: binding.get("updated_at") or 0, reverse=True)
        return bindings

    def get_telegram_topic_binding_by_session(self, *, session_id: str) -> Optional[Dict[str, Any]]:
        pointer = self.get_meta(f"{_META_TOPIC_SESSION}{session_id}")
        if not pointer:
            return None
        chat_id, _, thread_id = pointer.partition("\n")
        return self.get_telegram_topic_binding(chat_id=chat_id, thread_id=thread_id)

    def _drop_binding(self, binding: Mapping[str, Any]) -> None:
        self._delete_meta(f"{_META_TOPIC_BINDING}{binding['chat_id']}\n{binding['thread_id']}")
        self._delete_meta(f"{_META_TOPIC_SESSION}{binding['session_id']}")

    def delete_telegram_topic_binding(self, *, chat_id: str, thread_id: str) -> int:
        binding = self.get_telegram_topic_binding(chat_id=chat_id, thread_id=thread_id)
        if binding is None:
            return 0
        self._drop_binding(binding)
        if not self.list_telegram_topic_bindings_for_chat(chat_id=chat_id):
            self._switch_off_topic_mode(chat_id)
        return 1

    def _switch_off_topic_mode(self, chat_id: str) -> None:
        """Marks the chat's topic mode disabled (when it was ever enabled), keeping the rest of its state."""
        key = f"{_META_TOPIC_MODE}{chat_id}"
        state = _loads(self.get_meta(key))
        if state is not None:
            state["enabled"] = 0
            state["updated_at"] = time.time()
            self.set_meta(key, json.dumps(state))

    def bind_telegram_topic(
        self,
        *,
        chat_id: str,
        thread_id: str,
        user_id: str,
        session_key: str,
        session_id: str,
        managed_mode: str = "auto",
    ) -> None:
        """One topic per session: relinking a session to another topic is a ``ValueError``."""
        self.apply_telegram_topic_migration()
        chat_id, thread_id, session_id = str(chat_id), str(thread_id), str(session_id)
        pointer = f"{chat_id}\n{thread_id}"
        # The reverse index is taken by compare-and-set, so two topics can never claim one session.
        existing = self.get_meta(f"{_META_TOPIC_SESSION}{session_id}")
        if existing is not None and existing != pointer:
            raise ValueError("session is already linked to another Telegram topic")
        if existing is None and not self._cas_meta(f"{_META_TOPIC_SESSION}{session_id}", pointer, None):
            if self.get_meta(f"{_META_TOPIC_SESSION}{session_id}") != pointer:
                raise ValueError("session is already linked to another Telegram topic")
        now = time.time()
        key = f"{_META_TOPIC_BINDING}{pointer}"
        previous = _loads(self.get_meta(key))
        if previous and previous.get("session_id") != session_id:
            self._delete_meta(f"{_META_TOPIC_SESSION}{previous['session_id']}")
        binding = {
            "chat_id": chat_id,
            "thread_id": thread_id,
            "user_id": str(user_id),
            "session_key": str(session_key),
            "session_id": session_id,
            "managed_mode": managed_mode,
            "linked_at": (previous or {}).get("linked_at", now),
            "updated_at": now,
        }
        self.set_meta(key, json.dumps(binding))

    def is_telegram_session_linked_to_topic(self, *, session_id: str) -> bool:
        return self.get_meta(f"{_META_TOPIC_SESSION}{session_id}") is not None

    def list_unlinked_telegram_sessions_for_user(self, *, chat_id: str, user_id: str, limit: int = 10) -> List[Dict[str, Any]]:
        linked = {item["key"][len(_META_TOPIC_SESSION) :] for item in self._meta_items(_META_TOPIC_SESSION)}
        items = self._every_session(source="telegram", user_id=str(user_id), include_hidden=None, order="recent")
        unlinked = (item for item in items if self._ids.back(item["id"]) not in linked)
        # At least one row even for a limit below one, as before.
        return [rich_row(item, project=False, ids=self._ids) for item in _window(unlinked, 0, max(1, int(limit)))]

    # ── space and index maintenance ────────────────────────────────────────

    def _fts_table_exists(self, name: str) -> bool:
        """Statehouse keeps a word index and a substring index (docs/search.md)."""
        return name in ("messages_fts", "messages_fts_trigram")

    @staticmethod
    def _is_fts5_unavailable_error(exc: BaseException) -> bool:
        error = str(exc).lower()
        return ("no such module" in error and "fts5" in error) or "no such tokenizer: trigram" in error

    @staticmethod
    def _is_trigram_unavailable_error(exc: BaseException) -> bool:
        return "no such tokenizer: trigram" in str(exc).lower()

    def optimize_fts(self) -> int:
        """Merges the store's search index segments now (admin); returns how many indexes it merged.

        With a member token: 0 — the server merges its indexes on its own schedule."""
        return self._search_optimize({})

    def vacuum(self) -> int:
        """Merges the search indexes and returns free pages to the file system (admin; else 0)."""
        return self._search_optimize({"vacuum": True})

    def _search_optimize(self, body: Json) -> int:
        answer = self._admin_only("/v1/maintenance/search-optimize", body, "search index maintenance")
        return 0 if answer is None else int(answer.get("indexes", 0))

    def maybe_auto_prune_and_vacuum(
        self,
        retention_days: int = 90,
        min_interval_hours: int = 24,
        vacuum: bool = True,
        sessions_dir: Optional[Path] = None,
    ) -> Dict[str, Any]:
        result: Dict[str, Any] = {"skipped": False, "pruned": 0, "vacuumed": False}
        try:
            now = time.time()
            last = self.get_meta("last_auto_prune")
            if last:
                try:
                    if now - float(last) < min_interval_hours * 3600:
                        result["skipped"] = True
                        return result
                except (TypeError, ValueError):
                    pass
            pruned = self.prune_sessions(older_than_days=retention_days, sessions_dir=sessions_dir)
            result["pruned"] = pruned
            if vacuum and pruned > 0:
                try:
                    self.vacuum()
                    result["vacuumed"] = True
                except Exception as exc:
                    logger.warning("vacuum failed: %s", exc)
            self.set_meta("last_auto_prune", str(now))
        except Exception as exc:
            logger.warning("auto-maintenance failed: %s", exc)
            result["error"] = str(exc)
        return result

    # ── handoff ────────────────────────────────────────────────────────────

    def _handoff_step(self, session_id: str, step: Callable[[str], Json], name: Optional[str] = None) -> bool:
        """One step of a handoff (last-writer-wins); ``False`` when the session is gone or the step does
        not apply to its state (logged at debug level under ``name``, when given)."""
        try:
            self._retrying(lambda: step(self._ids.out(session_id)))
        except (NotFoundError, ConflictError) as error:
            if name is not None:
                logger.debug("%s(%s): %s", name, session_id, error)
            return False
        return True

    def request_handoff(self, session_id: str, platform: str) -> bool:
        return self._handoff_step(session_id, lambda sid: self._client.request_handoff(sid, platform))

    def get_handoff_state(self, session_id: str) -> Optional[Dict[str, Any]]:
        session = self._get(session_id)
        if session is None:
            return None
        return {"state": session.get("handoffState"), "platform": session.get("handoffPlatform"), "error": session.get("handoffError")}

    def list_pending_handoffs(self) -> List[Dict[str, Any]]:
        items = list(self._every_session(handoff="pending"))
        items.sort(key=lambda item: epoch(item.get("startedAt")) or 0)
        return [session_row(item, ids=self._ids) for item in items]

    def claim_handoff(self, session_id: str) -> bool:
        return self._handoff_step(session_id, self._client.claim_handoff)

    def complete_handoff(self, session_id: str) -> None:
        self._handoff_step(session_id, self._client.complete_handoff, "complete_handoff")

    def fail_handoff(self, session_id: str, error: str) -> None:
        reason = (error or "failed")[:500]
        self._handoff_step(session_id, lambda sid: self._client.fail_handoff(sid, reason), "fail_handoff")


def _loads(value: Optional[str]) -> Optional[Dict[str, Any]]:
    if value is None:
        return None
    try:
        parsed = json.loads(value)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _rows_preview(session: Mapping[str, Any]) -> str:
    from ._rows import preview_of

    return preview_of(session.get("preview"))


def _is_replayed_prompt(entries: List[Json], entry: Json) -> bool:
    """A user prompt repeated since the last assistant turn (a resume replays it into the child)."""
    if entry.get("role") != "user":
        return False
    content = entry.get("content")
    if not isinstance(content, str) or not content:
        return False
    for previous in reversed(entries):
        if previous.get("role") == "user" and previous.get("content") == content:
            return True
        if previous.get("role") == "assistant" and (previous.get("content") or previous.get("tool_calls")):
            return False
    return False


def _search_row(hit: Mapping[str, Any], ids: IdSpace) -> Json:
    snippet = str(hit.get("snippet") or "").replace(_SNIPPET_START, ">>>").replace(_SNIPPET_END, "<<<")
    return {
        "id": hit.get("messageId"),
        "session_id": ids.back(hit.get("sessionId")),
        "role": hit.get("role"),
        "snippet": snippet,
        "timestamp": epoch(hit.get("timestamp")),
        "tool_name": hit.get("toolName"),
        "source": hit.get("source"),
        "model": hit.get("model"),
        "session_started": epoch(hit.get("sessionStartedAt")),
        "context": [
            {"role": neighbour.get("role"), "content": str(neighbour.get("content") or "")[:200]}
            for neighbour in hit.get("context") or []
        ],
    }


def _prune_match(item: Mapping[str, Any], options: Mapping[str, Any]) -> bool:
    """Hermes' prune filters (all AND-ed) on a list item; only ended sessions are candidates."""
    if item.get("endedAt") is None:
        return False
    started = epoch(item.get("startedAt")) or 0.0
    if options.get("started_before") is not None and not started < float(options["started_before"]):
        return False
    if options.get("started_after") is not None and not started >= float(options["started_after"]):
        return False
    if options.get("source") and item.get("source") != options["source"]:
        return False
    if options.get("title_like") and str(options["title_like"]).lower() not in (item.get("title") or "").lower():
        return False
    end = item.get("endReasonDetail") or item.get("endReason")
    if options.get("end_reason") and end != options["end_reason"]:
        return False
    if options.get("cwd_prefix"):
        prefix = str(options["cwd_prefix"]).rstrip("/\\") or str(options["cwd_prefix"])
        cwd = item.get("cwd") or ""
        if not (cwd == prefix or cwd.startswith(prefix + "/") or cwd.startswith(prefix + "\\")):
            return False
    if _out_of_range(options, "messages", int(item.get("messageCount") or 0), int):
        return False
    if options.get("model_like") and str(options["model_like"]).lower() not in (item.get("model") or "").lower():
        return False
    if options.get("provider") and (item.get("billingProvider") or "").lower() != str(options["provider"]).lower():
        return False
    for option, field in (("user_id", "userId"), ("chat_id", "chatId"), ("chat_type", "chatType")):
        if options.get(option) and item.get(field) != options[option]:
            return False
    if options.get("branch_like") and str(options["branch_like"]).lower() not in (item.get("gitBranch") or "").lower():
        return False
    tokens = int(item.get("inputTokens") or 0) + int(item.get("outputTokens") or 0)
    if _out_of_range(options, "tokens", tokens, int):
        return False
    actual = item.get("actualCostUsd")
    cost = float(actual if actual is not None else (item.get("estimatedCostUsd") or 0))
    if _out_of_range(options, "cost", cost, float):
        return False
    if _out_of_range(options, "tool_calls", int(item.get("toolCallCount") or 0), int):
        return False
    archived = options.get("archived")
    if archived is True and not item.get("archived"):
        return False
    if archived is False and item.get("archived"):
        return False
    return True


def _out_of_range(options: Mapping[str, Any], measure: str, value: float, kind: Callable[[Any], float]) -> bool:
    """Hermes' ``min_<measure>`` / ``max_<measure>`` prune filters (bounds included), read as ``kind``."""
    low, high = options.get(f"min_{measure}"), options.get(f"max_{measure}")
    return (low is not None and value < kind(low)) or (high is not None and value > kind(high))


class AsyncSessionDB:
    """Async door onto SessionDB: each call runs in a worker thread."""

    def __init__(self, db: SessionDB) -> None:
        self._db = db

    def __getattr__(self, name: str) -> Any:
        import asyncio

        attr = getattr(self._db, name)
        if not callable(attr):
            return attr

        async def offloaded(*args: Any, **kwargs: Any) -> Any:
            return await asyncio.to_thread(attr, *args, **kwargs)

        return offloaded

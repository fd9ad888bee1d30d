"""``SessionDB.import_sessions``: sessions exported by ``export_session`` / ``export_all`` back in.

The batch is validated as a whole first (Hermes' rules and limits): any invalid entry imports nothing.
Then each new session is created with its messages through the API, parents before children, so its
typed lineage edge is written with it (docs/domain.md §2.2.6); an id that exists is skipped, a parent
that is neither here nor in the batch — or would close a cycle — leaves the child a root (``detached``).
Runtime state (routing, handoff, rewinds) is not restored: this restores history, not a live channel.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from ..errors import ConflictError
from ._rows import wire_message

if TYPE_CHECKING:
    from ._session_db import SessionDB

_SESSION_TEXT = (
    "source",
    "user_id",
    "model",
    "system_prompt",
    "end_reason",
    "cwd",
    "git_branch",
    "git_repo_root",
    "billing_provider",
    "billing_base_url",
    "billing_mode",
    "cost_status",
    "cost_source",
    "pricing_version",
    "title",
)
_MESSAGE_TEXT = (
    "tool_call_id",
    "tool_name",
    "effect_disposition",
    "finish_reason",
    "reasoning",
    "reasoning_content",
    "platform_message_id",
    "message_id",
)
_APPEND_BATCH = 1000


def _text(value: Any, field: str) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    raise ValueError(f"{field} must be a string")


def _json_object(value: Any, field: str) -> Optional[Dict[str, Any]]:
    if value is None:
        return None
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError as error:
            raise ValueError(f"{field} must be valid JSON") from error
        if not isinstance(parsed, dict):
            raise ValueError(f"{field} must be a JSON object")
        return parsed
    if not isinstance(value, dict):
        raise ValueError(f"{field} must be a JSON object")
    return value


def _int(value: Any, field: str) -> Optional[int]:
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{field} must be an integer") from error


def _int_or_zero(value: Any) -> int:
    try:
        return int(value) if value is not None else 0
    except (TypeError, ValueError):
        return 0


def _float_or_none(value: Any) -> Optional[float]:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _error(index: int, session_id: str, error: str) -> Dict[str, Any]:
    item: Dict[str, Any] = {"index": index, "error": error}
    if session_id:
        item["session_id"] = session_id
    return item


def import_sessions(db: "SessionDB", sessions: List[Dict[str, Any]]) -> Dict[str, Any]:
    if not isinstance(sessions, list):
        raise ValueError("sessions must be a list")
    if len(sessions) > db._IMPORT_MAX_SESSIONS:
        raise ValueError(f"sessions must contain at most {db._IMPORT_MAX_SESSIONS} entries")

    normalized: List[Dict[str, Any]] = []
    errors: List[Dict[str, Any]] = []
    seen: set[str] = set()
    total_messages = 0
    total_bytes = 0
    for index, raw in enumerate(sessions):
        if not isinstance(raw, dict):
            errors.append(_error(index, "", "session must be an object"))
            continue
        session_id = str(raw.get("id") or "").strip()
        if not session_id:
            errors.append(_error(index, "", "session id is required"))
            continue
        if session_id in seen:
            errors.append(_error(index, session_id, "duplicate session id"))
            continue
        messages = raw.get("messages") or []
        if not isinstance(messages, list):
            errors.append(_error(index, session_id, "messages must be a list"))
            continue
        if len(messages) > db._IMPORT_MAX_MESSAGES_PER_SESSION:
            errors.append(_error(index, session_id, "messages exceeds the per-session import limit"))
            continue
        if any(not isinstance(message, dict) for message in messages):
            errors.append(_error(index, session_id, "messages must contain only objects"))
            continue
        try:
            size = len(json.dumps(raw, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        except (TypeError, ValueError):
            errors.append(_error(index, session_id, "session must be JSON serializable"))
            continue
        if size > db._IMPORT_MAX_SESSION_BYTES:
            errors.append(_error(index, session_id, "session exceeds the import size limit"))
            continue
        total_bytes += size
        if total_bytes > db._IMPORT_MAX_TOTAL_BYTES:
            errors.append(_error(index, session_id, "import exceeds the total size limit"))
            continue
        try:
            clean = dict(raw)
            clean["id"] = session_id
            clean["model_config"] = _json_object(clean.get("model_config"), "model_config")
            clean["parent_session_id"] = _text(clean.get("parent_session_id"), "parent_session_id")
            for field in _SESSION_TEXT:
                clean[field] = _text(clean.get(field), field)
            clean_messages = []
            for position, message in enumerate(messages):
                item = dict(message)
                role = item.get("role")
                if not isinstance(role, str) or not role:
                    raise ValueError(f"messages[{position}].role must be a non-empty string")
                for field in _MESSAGE_TEXT:
                    item[field] = _text(item.get(field), field)
                item["token_count"] = _int(item.get("token_count"), "token_count")
                clean_messages.append(item)
        except ValueError as error:
            errors.append(_error(index, session_id, str(error)))
            continue
        total_messages += len(clean_messages)
        if total_messages > db._IMPORT_MAX_TOTAL_MESSAGES:
            errors.append(_error(index, session_id, "messages exceeds the total import limit"))
            continue
        seen.add(session_id)
        normalized.append({"session": clean, "messages": clean_messages})

    if errors:
        return {"ok": False, "imported": 0, "skipped": 0, "detached": 0, "errors": errors}

    batch = {item["session"]["id"]: item for item in normalized}
    existing = {session_id for session_id in batch if db._get(session_id) is not None}
    parent_of: Dict[str, Optional[str]] = {}
    detached = 0
    # The parent each imported session keeps: one that exists or comes with it, and closes no cycle.
    for session_id, item in batch.items():
        if session_id in existing:
            continue
        parent = (item["session"].get("parent_session_id") or "").strip() or None
        if parent is not None:
            chain = {session_id}
            current: Optional[str] = parent
            cycle = False
            while current is not None:
                if current in chain:
                    cycle = True
                    break
                chain.add(current)
                if current in parent_of:
                    current = parent_of[current]
                elif current in batch and current not in existing:
                    current = (batch[current]["session"].get("parent_session_id") or "").strip() or None
                else:
                    found = db._get(current)
                    current = db._ids.back(found.get("parentSessionId")) if found else None
            if cycle or (parent not in batch and db._get(parent) is None):
                parent = None
                detached += 1
        parent_of[session_id] = parent

    imported: List[str] = []
    skipped = [session_id for session_id in batch if session_id in existing]
    done: set[str] = set()

    def create(session_id: str) -> None:
        if session_id in done or session_id in existing:
            return
        done.add(session_id)
        parent = parent_of.get(session_id)
        if parent is not None and parent in batch:
            create(parent)
        _create_one(db, batch[session_id], parent)
        imported.append(session_id)

    for session_id in batch:
        create(session_id)
    return {
        "ok": True,
        "imported": len(imported),
        "skipped": len(skipped),
        "detached": detached,
        "imported_ids": imported,
        "skipped_ids": skipped,
        "errors": [],
    }


def _create_one(db: "SessionDB", item: Dict[str, Any], parent_id: Optional[str]) -> None:
    raw = item["session"]
    session_id = raw["id"]
    source = raw.get("source") or "import"
    fields: Dict[str, Any] = {
        "id": db._ids.out(session_id),
        "model": raw.get("model"),
        "model_config": raw.get("model_config"),
        "system_prompt": raw.get("system_prompt"),
        "user_id": raw.get("user_id"),
        "cwd": raw.get("cwd"),
        "git_branch": raw.get("git_branch"),
        "git_repo_root": raw.get("git_repo_root"),
    }
    if parent_id is not None:
        parent = db._get(parent_id)
        if parent is not None:
            fields["parent_session_id"] = parent["id"]
            fields["lineage_kind"] = db._lineage_kind(source, parent, raw.get("model_config"))
    messages = [wire_message(message, assistant_extras_only=True) for message in item["messages"]]
    try:
        db._client.create_session(source=source, profile=db.profile, messages=messages[:_APPEND_BATCH], **fields)
    except ConflictError:
        return
    for start in range(_APPEND_BATCH, len(messages), _APPEND_BATCH):
        db._client.append_messages(db._ids.out(session_id), messages[start : start + _APPEND_BATCH])
    title = raw.get("title")
    patch: Dict[str, Any] = {}
    if title:
        patch["title"] = title
        patch["title_source"] = "user"
    if raw.get("archived"):
        patch["archived"] = True
    for field in ("billing_provider", "billing_base_url", "billing_mode"):
        if raw.get(field):
            patch[field] = raw[field]
    if patch:
        db._patch(session_id, **patch)
    counters = {
        "input_tokens": _int_or_zero(raw.get("input_tokens")),
        "output_tokens": _int_or_zero(raw.get("output_tokens")),
        "cache_read_tokens": _int_or_zero(raw.get("cache_read_tokens")),
        "cache_write_tokens": _int_or_zero(raw.get("cache_write_tokens")),
        "reasoning_tokens": _int_or_zero(raw.get("reasoning_tokens")),
        "api_call_count": _int_or_zero(raw.get("api_call_count")),
        "estimated_cost_usd": _float_or_none(raw.get("estimated_cost_usd")),
        "actual_cost_usd": _float_or_none(raw.get("actual_cost_usd")),
        "cost_status": raw.get("cost_status"),
        "cost_source": raw.get("cost_source"),
        "pricing_version": raw.get("pricing_version"),
    }
    if any(value for value in counters.values()):
        db.update_token_counts(session_id, absolute=True, **counters)
    if raw.get("ended_at") is not None or raw.get("end_reason"):
        db.end_session(session_id, raw.get("end_reason") or "imported")

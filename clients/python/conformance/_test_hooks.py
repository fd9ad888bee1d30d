"""A stand-in for ``SessionDB._conn`` in Hermes' suite: the raw UPDATEs that backdate rows, and its reads
of per-model usage and of a compression lock.

Hermes' tests move ``started_at``/``ended_at`` into the past with raw SQL before they exercise pruning
and listing. Statehouse has no SQL door, but the API has a test-only hook for exactly this (off unless
the API runs with ``STATEHOUSE_TEST_HOOKS=1``; docs/api.md, "Test hooks"): ``PATCH
/v1/testing/sessions/:id`` and ``PATCH /v1/testing/messages``. This module turns the few statement
shapes the suite uses into those calls; its reads of ``session_model_usage`` go to the public
``GET /v1/sessions/:id/usage``, of ``compression_locks`` to the profile's meta store where the adapter
keeps the locks (neither needs the hook). Any other statement — a SELECT of Hermes' own tables, a PRAGMA —
raises ``sqlite3.OperationalError``: there is no SQLite file behind the adapter.
"""

from __future__ import annotations

import json
import re
import sqlite3
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Sequence

from statehouse._transport import path_segment
from statehouse.errors import NotFoundError
from statehouse.hermes._session_db import _META_COMPRESSION_LOCK

if TYPE_CHECKING:
    from statehouse import Client

_USAGE_SELECT = re.compile(
    r"^\s*SELECT\s+(.*?)\s+FROM\s+session_model_usage\s+WHERE\s+session_id\s*=\s*(\?|'[^']*')"
    r"(?:\s+ORDER\s+BY\s+(\w+))?\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)
_LOCK_SELECT = re.compile(
    r"^\s*SELECT\s+(.*?)\s+FROM\s+compression_locks\s+WHERE\s+session_id\s*=\s*(\?|'[^']*')\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)
_COUNT = re.compile(r"^COUNT\(\*\)(?:\s+AS\s+(\w+))?$", re.IGNORECASE)
# Hermes' session_model_usage columns, as GET /v1/sessions/:id/usage names them.
_USAGE_FIELDS = {
    "model": "model",
    "billing_provider": "billingProvider",
    "billing_base_url": "billingBaseUrl",
    "billing_mode": "billingMode",
    "api_call_count": "apiCallCount",
    "input_tokens": "inputTokens",
    "output_tokens": "outputTokens",
    "cache_read_tokens": "cacheReadTokens",
    "cache_write_tokens": "cacheWriteTokens",
    "reasoning_tokens": "reasoningTokens",
    "estimated_cost_usd": "estimatedCostUsd",
    "actual_cost_usd": "actualCostUsd",
    "cost_status": "costStatus",
    "cost_source": "costSource",
}
_UPDATE = re.compile(r"^\s*UPDATE\s+(sessions|messages)\s+SET\s+(.*?)\s+WHERE\s+(.*?)\s*;?\s*$", re.IGNORECASE | re.DOTALL)
_ASSIGNMENT = re.compile(r"^\s*(\w+)\s*=\s*(.+?)\s*$", re.DOTALL)
_CONDITION = re.compile(r"^\s*(\w+)\s*=\s*(\?|'[^']*'|-?\d+(?:\.\d+)?)\s*$")
# The suite's one subquery: "the first N messages of a session" (rows a rewind would deactivate).
_FIRST_MESSAGES = re.compile(
    r"^\s*id\s+IN\s*\(\s*SELECT\s+id\s+FROM\s+messages\s+WHERE\s+session_id\s*=\s*(\?|'[^']*')"
    r"\s+ORDER\s+BY\s+id\s+LIMIT\s+(\d+)\s*\)\s*$",
    re.IGNORECASE,
)
_SELF_OFFSET = re.compile(r"^(\w+)\s*([+-])\s*(\d+(?:\.\d+)?)$")

# Hermes session columns the hook can set, as the API's test hook names them.
_SESSION_FIELDS = {
    "started_at": "startedAt",
    "ended_at": "endedAt",
    "end_reason": "endReason",
    "message_count": "messageCount",
    "title": "title",
    "parent_session_id": "parentSessionId",
    "model": "model",
    "billing_provider": "billingProvider",
    "user_id": "userId",
    "chat_id": "chatId",
    "chat_type": "chatType",
    "git_branch": "gitBranch",
    "input_tokens": "inputTokens",
    "output_tokens": "outputTokens",
    "actual_cost_usd": "actualCostUsd",
    "estimated_cost_usd": "estimatedCostUsd",
    "tool_call_count": "toolCallCount",
    "session_key": "sessionKey",
    "display_name": "displayName",
    "origin_json": "origin",
}
_MESSAGE_FIELDS = {"timestamp": "timestamp", "active": "active"}
_MESSAGE_MATCH = {"session_id": "sessionId", "role": "role", "content": "content", "id": "id"}
_TIMES = {"started_at", "ended_at", "timestamp"}


def _split_top(text: str, separator: str) -> list[str]:
    """Splits on a separator outside quotes."""
    parts: list[str] = []
    depth_quote = False
    current = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "'":
            depth_quote = not depth_quote
        if not depth_quote and text[index : index + len(separator)].upper() == separator.upper():
            parts.append("".join(current))
            current = []
            index += len(separator)
            continue
        current.append(char)
        index += 1
    parts.append("".join(current))
    return parts


class _Row:
    """Read by name or by position, as sqlite3.Row is."""

    def __init__(self, names: Sequence[str], values: Sequence[Any]) -> None:
        self._names = list(names)
        self._values = list(values)

    def __getitem__(self, key: Any) -> Any:
        return self._values[key] if isinstance(key, int) else self._values[self._names.index(key)]

    def keys(self) -> list[str]:
        return list(self._names)


class _Cursor:
    def __init__(self, rows: Sequence[Any] = ()) -> None:
        self._rows = list(rows)
        self.rowcount = len(self._rows)

    def fetchone(self) -> Any:
        return self._rows[0] if self._rows else None

    def fetchall(self) -> list[Any]:
        return list(self._rows)


class RawConnection:
    def __init__(
        self,
        client: "Client",
        *,
        enabled: bool,
        to_statehouse_id: Callable[[str], str] = str,
        read_meta: Optional[Callable[[str], Optional[str]]] = None,
    ) -> None:
        self._client = client
        self._enabled = enabled
        self._id = to_statehouse_id
        self._read_meta = read_meta

    def commit(self) -> None:
        """Each hooked statement is its own API call (already committed)."""

    def rollback(self) -> None:
        pass

    def close(self) -> None:
        pass

    def execute(self, sql: str, parameters: Iterable[Any] = ()) -> _Cursor:
        lock = _LOCK_SELECT.match(sql)
        if lock and self._read_meta is not None:
            # The adapter keeps compression locks in the profile's meta store (a public read).
            raw = self._read_meta(_META_COMPRESSION_LOCK + str(self._value(lock.group(2), list(parameters))))
            state = json.loads(raw) if raw else None
            columns = [column.strip().lower() for column in lock.group(1).split(",")]
            return _Cursor([] if state is None else [_Row(columns, [state.get(column) for column in columns])])
        usage = _USAGE_SELECT.match(sql)
        if usage:
            # A read through a public endpoint: needs no test hook on the API.
            return self._usage(usage, list(parameters))
        match = _UPDATE.match(sql)
        if not match or not self._enabled:
            raise sqlite3.OperationalError(
                "Statehouse's adapter has no SQLite connection: only the suite's backdating UPDATEs are "
                "supported, through the API's test hooks (STATEHOUSE_TEST_HOOKS=1)"
            )
        params = list(parameters)
        table, assignments, conditions = match.group(1).lower(), match.group(2), match.group(3)
        values: dict[str, Any] = {}
        offsets: dict[str, float] = {}
        for assignment in _split_top(assignments, ","):
            parsed = _ASSIGNMENT.match(assignment)
            if not parsed:
                raise sqlite3.OperationalError(f"unsupported assignment: {assignment!r}")
            column, expression = parsed.group(1).lower(), parsed.group(2)
            offset = _SELF_OFFSET.match(expression)
            if offset and offset.group(1).lower() == column:
                delta = float(offset.group(3))
                offsets[column] = delta if offset.group(2) == "+" else -delta
                continue
            values[column] = self._value(expression, params)
        where: dict[str, Any] = {}
        for condition in _split_top(conditions, " AND "):
            first = _FIRST_MESSAGES.match(condition)
            if first and table == "messages":
                where["id"] = self._first_message_ids(str(self._value(first.group(1), params)), int(first.group(2)))
                continue
            parsed = _CONDITION.match(condition)
            if not parsed:
                raise sqlite3.OperationalError(f"unsupported condition: {condition!r}")
            where[parsed.group(1).lower()] = self._value(parsed.group(2), params)
        if table == "sessions":
            return self._sessions(values, offsets, where)
        return self._messages(values, where)

    @staticmethod
    def _value(expression: str, params: list[Any]) -> Any:
        expression = expression.strip()
        if expression == "?":
            if not params:
                raise sqlite3.OperationalError("fewer parameters than placeholders")
            return params.pop(0)
        if expression.upper() == "NULL":
            return None
        if expression.startswith("'") and expression.endswith("'"):
            return expression[1:-1]
        try:
            return float(expression) if "." in expression else int(expression)
        except ValueError as error:
            raise sqlite3.OperationalError(f"unsupported value: {expression!r}") from error

    def _usage(self, match: "re.Match[str]", params: list[Any]) -> _Cursor:
        """The suite's one read: per-model usage, answered by GET /v1/sessions/:id/usage."""
        session_id = self._id(str(self._value(match.group(2), params)))
        try:
            items = self._client._json("GET", f"/v1/sessions/{path_segment(session_id)}/usage")["items"]
        except NotFoundError:
            items = []
        columns = [column.strip() for column in match.group(1).split(",")]
        count = _COUNT.match(columns[0]) if len(columns) == 1 else None
        if count:
            return _Cursor([_Row([count.group(1) or "COUNT(*)"], [len(items)])])
        names = [column.lower() for column in columns]
        unknown = [name for name in names if name not in _USAGE_FIELDS]
        if unknown:
            raise sqlite3.OperationalError(f"unsupported usage column: {unknown}")
        rows = [_Row(names, [item[_USAGE_FIELDS[name]] for name in names]) for item in items]
        if match.group(3):
            key = match.group(3).lower()
            rows.sort(key=lambda row: row[key] if key in names else 0)
        return _Cursor(rows)

    def _sessions(self, values: dict[str, Any], offsets: dict[str, float], where: dict[str, Any]) -> _Cursor:
        if set(where) != {"id"}:
            raise sqlite3.OperationalError(f"unsupported session filter: {sorted(where)}")
        body: dict[str, Any] = {}
        for column, value in values.items():
            field = _SESSION_FIELDS.get(column)
            if field is None:
                raise sqlite3.OperationalError(f"unsupported session column: {column}")
            body[field] = _instant(value) if column in _TIMES else value
        for column, delta in offsets.items():
            if column not in _TIMES:
                raise sqlite3.OperationalError(f"unsupported offset on {column}")
            body[f"{_SESSION_FIELDS[column]}OffsetMs"] = int(round(delta * 1000))
        session_id = self._id(str(where["id"]))
        if "parentSessionId" in body and body["parentSessionId"] is not None:
            body["parentSessionId"] = self._id(str(body["parentSessionId"]))
        answer = self._client._json("PATCH", f"/v1/testing/sessions/{path_segment(session_id)}", body=body)
        self._client.tokens.forget(session_id)
        return _Cursor([None] * int(answer.get("updated", 0)))

    def _first_message_ids(self, session_id: str, count: int) -> list[int]:
        page = self._client.list_messages(self._id(session_id), limit=max(count, 1), include_inactive=True)
        return [int(item["id"]) for item in page.get("items", [])[:count]]

    def _messages(self, values: dict[str, Any], where: dict[str, Any]) -> _Cursor:
        if isinstance(where.get("id"), list):
            # One hooked statement per message the subquery named (the hook matches one id at a time).
            updated = 0
            for message_id in where["id"]:
                updated += len(self._messages(values, {**where, "id": message_id}).fetchall())
            return _Cursor([None] * updated)
        body: dict[str, Any] = {"where": {}, "set": {}}
        for column, value in values.items():
            field = _MESSAGE_FIELDS.get(column)
            if field is None:
                raise sqlite3.OperationalError(f"unsupported message column: {column}")
            body["set"][field] = _instant(value) if column in _TIMES else bool(value) if column == "active" else value
        for column, value in where.items():
            field = _MESSAGE_MATCH.get(column)
            if field is None:
                raise sqlite3.OperationalError(f"unsupported message filter: {column}")
            body["where"][field] = self._id(str(value)) if field == "sessionId" else value
        answer = self._client._json("PATCH", "/v1/testing/messages", body=body)
        return _Cursor([None] * int(answer.get("updated", 0)))


def _instant(value: Optional[float]) -> Optional[int]:
    """Hermes' epoch seconds as the hook's epoch milliseconds."""
    return None if value is None else int(round(float(value) * 1000))

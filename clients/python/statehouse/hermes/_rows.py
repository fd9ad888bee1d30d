"""Statehouse bodies (camelCase, ISO dates) as Hermes rows (snake_case, epoch seconds, 0/1 flags)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Mapping, Optional

Json = dict[str, Any]

# Session fields Hermes keeps in columns that Statehouse keeps in the session's client attributes
# (an object the API stores for its client and never interprets).
ATTRIBUTE_COLUMNS = (
    "expiry_finalized",
    "compression_failure_cooldown_until",
    "compression_failure_error",
    "compression_fallback_streak",
    "rewind_count",
)

# Every column of Hermes' `sessions` table at schema v21, in its order.
SESSION_COLUMNS = (
    "id",
    "source",
    "user_id",
    "session_key",
    "chat_id",
    "chat_type",
    "thread_id",
    "display_name",
    "origin_json",
    "expiry_finalized",
    "model",
    "model_config",
    "system_prompt",
    "parent_session_id",
    "started_at",
    "ended_at",
    "end_reason",
    "message_count",
    "tool_call_count",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "cwd",
    "git_branch",
    "git_repo_root",
    "billing_provider",
    "billing_base_url",
    "billing_mode",
    "estimated_cost_usd",
    "actual_cost_usd",
    "cost_status",
    "cost_source",
    "pricing_version",
    "title",
    "api_call_count",
    "handoff_state",
    "handoff_platform",
    "handoff_error",
    "compression_failure_cooldown_until",
    "compression_failure_error",
    "compression_fallback_streak",
    "rewind_count",
    "archived",
)


class IdSpace:
    """Hermes ids as Statehouse ids. Statehouse session ids are unique across a store; Hermes installs
    number their sessions on their own. A prefix keeps one Hermes store's ids apart from another's
    when several share a Statehouse ("" — the default — keeps ids as they are, as the importer does)."""

    def __init__(self, prefix: str = "") -> None:
        self.prefix = prefix

    def out(self, hermes_id: str) -> str:
        return self.prefix + hermes_id

    def back(self, statehouse_id: Any) -> Any:
        if self.prefix and isinstance(statehouse_id, str) and statehouse_id.startswith(self.prefix):
            return statehouse_id[len(self.prefix) :]
        return statehouse_id


SAME_IDS = IdSpace()

# A message's structured reasoning fields, Hermes' name and the API's, as they travel each way.
_REASONING_EXTRAS = (
    ("reasoning_details", "reasoningDetails"),
    ("codex_reasoning_items", "codexReasoningItems"),
    ("codex_message_items", "codexMessageItems"),
)


def epoch(value: Any) -> Optional[float]:
    """Epoch seconds (float, millisecond precision) of an ISO-8601 instant."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value)
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    return datetime.fromisoformat(text).timestamp()


def epoch_ms(value: Any) -> Optional[int]:
    """Epoch milliseconds of a Hermes timestamp (epoch seconds, a datetime, or a number string)."""
    if value is None:
        return None
    if hasattr(value, "timestamp"):
        return int(round(float(value.timestamp()) * 1000))
    try:
        return int(round(float(value) * 1000))
    except (TypeError, ValueError):
        return None


def json_text(value: Any) -> Optional[str]:
    return None if value is None else json.dumps(value)


def session_row(session: Mapping[str, Any], *, with_system_prompt: bool = True, ids: IdSpace = SAME_IDS) -> Json:
    """A Statehouse session as the row Hermes' ``SELECT * FROM sessions`` returns."""
    attributes = session.get("attributes") or {}
    row: Json = {
        "id": ids.back(session["id"]),
        "source": session.get("source"),
        "user_id": session.get("userId"),
        "session_key": session.get("sessionKey"),
        "chat_id": session.get("chatId"),
        "chat_type": session.get("chatType"),
        "thread_id": session.get("threadId"),
        "display_name": session.get("displayName"),
        "origin_json": json_text(session.get("origin")),
        "expiry_finalized": int(attributes.get("expiry_finalized") or 0),
        "model": session.get("model"),
        "model_config": json_text(session.get("modelConfig")),
        "system_prompt": session.get("systemPrompt"),
        "parent_session_id": ids.back(session.get("parentSessionId")),
        "started_at": epoch(session.get("startedAt")),
        "ended_at": epoch(session.get("endedAt")),
        # The caller's own words when they were outside our taxonomy (docs/domain.md §4).
        "end_reason": session.get("endReasonDetail") or session.get("endReason"),
        "message_count": session.get("messageCount", 0),
        "tool_call_count": session.get("toolCallCount", 0),
        "input_tokens": session.get("inputTokens", 0),
        "output_tokens": session.get("outputTokens", 0),
        "cache_read_tokens": session.get("cacheReadTokens", 0),
        "cache_write_tokens": session.get("cacheWriteTokens", 0),
        "reasoning_tokens": session.get("reasoningTokens", 0),
        "cwd": session.get("cwd"),
        "git_branch": session.get("gitBranch"),
        "git_repo_root": session.get("gitRepoRoot"),
        "billing_provider": session.get("billingProvider"),
        "billing_base_url": session.get("billingBaseUrl"),
        "billing_mode": session.get("billingMode"),
        "estimated_cost_usd": session.get("estimatedCostUsd"),
        "actual_cost_usd": session.get("actualCostUsd"),
        "cost_status": session.get("costStatus"),
        "cost_source": session.get("costSource"),
        "pricing_version": session.get("pricingVersion"),
        "title": session.get("title"),
        "api_call_count": session.get("apiCallCount", 0),
        "handoff_state": session.get("handoffState"),
        "handoff_platform": session.get("handoffPlatform"),
        "handoff_error": session.get("handoffError"),
        "compression_failure_cooldown_until": attributes.get("compression_failure_cooldown_until"),
        "compression_failure_error": attributes.get("compression_failure_error"),
        "compression_fallback_streak": int(attributes.get("compression_fallback_streak") or 0),
        "rewind_count": int(attributes.get("rewind_count") or 0),
        "archived": 1 if session.get("archived") else 0,
        # Statehouse's own columns, for callers that know them.
        "created_source": session.get("createdSource"),
        "title_source": session.get("titleSource"),
        "transport_profile": session.get("transportProfile"),
        "lineage_kind": session.get("lineageKind"),
        "last_activity_at": epoch(session.get("lastActivityAt")),
        "pinned": 1 if session.get("pinned") else 0,
        "hidden": 1 if session.get("hidden") else 0,
        "profile_name": session.get("profile"),
    }
    if not with_system_prompt:
        row.pop("system_prompt")
    return row


def preview_of(text: Optional[str]) -> str:
    """Hermes' list preview: the first user message, newlines as spaces, 60 characters + "..."."""
    if not text:
        return ""
    raw = text.replace("\n", " ").replace("\r", " ").strip()
    if not raw:
        return ""
    return raw[:60] + ("..." if len(raw) > 60 else "")


def rich_row(
    item: Mapping[str, Any], *, with_system_prompt: bool = True, project: bool = True, ids: IdSpace = SAME_IDS
) -> Json:
    """A list item as a ``list_sessions_rich`` row: a compression chain's tip stands in its root's
    place, keeping the root's start (``_lineage_root_id`` names the root)."""
    row = session_row(item, with_system_prompt=with_system_prompt and "systemPrompt" in item, ids=ids)
    if not with_system_prompt:
        row.pop("system_prompt", None)
    elif "system_prompt" not in row:
        row["system_prompt"] = None
    row["preview"] = preview_of(item.get("preview"))
    row["last_active"] = epoch(item.get("lastActiveAt") or item.get("lastActivityAt"))
    root_id = item.get("rootId")
    if project and root_id and root_id != item["id"]:
        row["_lineage_root_id"] = ids.back(root_id)
        row["started_at"] = epoch(item.get("conversationStartedAt")) or row["started_at"]
    return row


def decode_json_field(value: Any) -> Optional[str]:
    """A structured field as Hermes' ``get_messages`` returns it: the JSON text it stored."""
    if value is None:
        return None
    return json.dumps(value)


def message_row(message: Mapping[str, Any], ids: IdSpace = SAME_IDS) -> Json:
    """A Statehouse message as the row Hermes' ``get_messages`` returns."""
    return {
        "id": message["id"],
        "session_id": ids.back(message.get("sessionId")),
        "role": message.get("role"),
        "content": message.get("content"),
        "tool_call_id": message.get("toolCallId"),
        "tool_calls": message.get("toolCalls"),
        "tool_name": message.get("toolName"),
        "effect_disposition": message.get("effectDisposition"),
        "timestamp": epoch(message.get("timestamp")),
        "token_count": message.get("tokenCount"),
        "finish_reason": message.get("finishReason"),
        "reasoning": message.get("reasoning"),
        "reasoning_content": message.get("reasoningContent"),
        "reasoning_details": decode_json_field(message.get("reasoningDetails")),
        "codex_reasoning_items": decode_json_field(message.get("codexReasoningItems")),
        "codex_message_items": decode_json_field(message.get("codexMessageItems")),
        "platform_message_id": message.get("platformMessageId"),
        "observed": 1 if message.get("observed") else 0,
        "active": 1 if message.get("active", True) else 0,
        "compacted": 1 if message.get("compacted") else 0,
    }


def conversation_entry(message: Mapping[str, Any]) -> Json:
    """A Statehouse message in the OpenAI conversation shape Hermes replays to a model."""
    from ._text import strip_memory_context

    role = message.get("role")
    content = message.get("content")
    if role in ("user", "assistant") and isinstance(content, str):
        content = strip_memory_context(content).strip()
    entry: Json = {"role": role, "content": content}
    timestamp = epoch(message.get("timestamp"))
    if timestamp:
        entry["timestamp"] = timestamp
    for key, field in (("tool_call_id", "toolCallId"), ("tool_name", "toolName"), ("effect_disposition", "effectDisposition")):
        if message.get(field):
            entry[key] = message[field]
    if message.get("toolCalls"):
        entry["tool_calls"] = message["toolCalls"]
    if message.get("platformMessageId"):
        entry["message_id"] = message["platformMessageId"]
    if message.get("observed"):
        entry["observed"] = True
    if role == "assistant":
        if message.get("finishReason"):
            entry["finish_reason"] = message["finishReason"]
        if message.get("reasoning"):
            entry["reasoning"] = message["reasoning"]
        # An empty reasoning_content is a value (strict providers replay it), only null is absent.
        if message.get("reasoningContent") is not None:
            entry["reasoning_content"] = message["reasoningContent"]
        for key, field in _REASONING_EXTRAS:
            if message.get(field):
                entry[key] = message[field]
    return entry


def wire_message(message: Mapping[str, Any], *, assistant_extras_only: bool) -> Json:
    """A Hermes message dict (snake_case, as ``replace_messages`` receives them) as an API message.
    ``assistant_extras_only``: reasoning fields are kept only on assistant rows (Hermes' rewrite rule)."""
    role = message.get("role") or "system"
    is_assistant = role == "assistant"
    keep_extras = is_assistant or not assistant_extras_only
    wire: Json = {"role": role}
    content = message.get("content")
    if content is not None:
        wire["content"] = content
    for key, field in (
        ("tool_call_id", "toolCallId"),
        ("tool_name", "toolName"),
        ("finish_reason", "finishReason"),
        ("effect_disposition", "effectDisposition"),
        ("token_count", "tokenCount"),
    ):
        if message.get(key) is not None:
            wire[field] = message[key]
    tool_calls = message.get("tool_calls")
    if tool_calls:
        wire["toolCalls"] = tool_calls if isinstance(tool_calls, list) else [tool_calls]
    timestamp = epoch_ms(message.get("timestamp"))
    if timestamp is not None:
        wire["timestamp"] = timestamp
    platform_id = message.get("platform_message_id") or message.get("message_id")
    if platform_id:
        wire["platformMessageId"] = str(platform_id)
    if message.get("observed"):
        wire["observed"] = True
    if keep_extras:
        if message.get("reasoning"):
            wire["reasoning"] = message["reasoning"]
        if message.get("reasoning_content") is not None:
            wire["reasoningContent"] = message["reasoning_content"]
        for key, field in _REASONING_EXTRAS:
            value = message.get(key)
            if isinstance(value, str):
                try:
                    value = json.loads(value)
                except ValueError:
                    pass
            if value:
                wire[field] = value
    return wire

"""statehouse.hermes.SessionDB against a real API: Hermes' calls and answers, and where Statehouse differs."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Iterator

import pytest

from statehouse import Client
from statehouse.hermes import SCHEMA_VERSION, SessionDB


@pytest.fixture()
def db(api, profile) -> Iterator[SessionDB]:
    store = SessionDB(url=api.url, token=api.token, profile=profile, id_prefix=profile + ".")
    yield store
    store.close()


def test_sessions_messages_and_the_conversation_shape(db):
    assert SCHEMA_VERSION == 21
    assert db.create_session("s1", "cli", model="m", system_prompt="SYS", cwd="/w") == "s1"
    first = db.append_message("s1", "user", "Hello", platform_message_id="tg-1", timestamp=1_777_383_653.25)
    db.append_message(
        "s1",
        "assistant",
        None,
        tool_calls=[{"id": "c1", "function": {"name": "web_search", "arguments": "{}"}}],
        reasoning="thinking",
        reasoning_content="",
        reasoning_details=[{"type": "summary"}],
        finish_reason="tool_calls",
    )
    db.append_message("s1", "tool", "result", tool_call_id="c1", tool_name="web_search", effect_disposition="unknown")
    row = db.get_session("s1")
    assert (row["message_count"], row["tool_call_count"], row["system_prompt"], row["cwd"]) == (3, 1, "SYS", "/w")
    assert isinstance(row["started_at"], float) and row["ended_at"] is None
    conversation = db.get_messages_as_conversation("s1")
    assert conversation[0] == {"role": "user", "content": "Hello", "timestamp": 1_777_383_653.25, "message_id": "tg-1"}
    assistant = conversation[1]
    assert assistant["reasoning"] == "thinking" and assistant["reasoning_content"] == ""
    assert assistant["reasoning_details"] == [{"type": "summary"}] and assistant["finish_reason"] == "tool_calls"
    assert conversation[2]["effect_disposition"] == "unknown" and "reasoning" not in conversation[2]
    assert db.get_messages("s1")[0]["id"] == first
    assert db.has_platform_message_id("s1", "tg-1") and not db.has_platform_message_id("s1", "tg-2")
    assert db.message_count("s1") == 3 and db.session_count() == 1


def test_create_enriches_empty_fields_and_never_overwrites(db):
    db.create_session("gw", source="telegram", user_id="u1", chat_id="c1")
    db.create_session("gw", source="cli", model="claude", model_config={"max": 90}, system_prompt="SYS")
    db.ensure_session("gw", source="other", model="ignored")
    row = db.get_session("gw")
    assert (row["source"], row["user_id"], row["model"], row["system_prompt"]) == ("telegram", "u1", "claude", "SYS")
    assert json.loads(row["model_config"]) == {"max": 90}


def test_token_counts_increment_absolute_and_route(db):
    db.create_session("u", "cli", model="primary")
    db.update_token_counts("u", input_tokens=10, output_tokens=5, model="fallback", billing_provider="fb", api_call_count=1)
    db.update_token_counts("u", input_tokens=10, output_tokens=5, model="third", billing_provider="x", api_call_count=1)
    row = db.get_session("u")
    assert (row["model"], row["billing_provider"], row["input_tokens"], row["api_call_count"]) == ("fallback", "fb", 20, 2)
    db.update_token_counts("u", input_tokens=300, output_tokens=150, api_call_count=5, absolute=True)
    row = db.get_session("u")
    assert (row["input_tokens"], row["output_tokens"], row["api_call_count"]) == (300, 150, 5)
    db.update_session_billing_route("u", provider="ollama", base_url="http://localhost:11434/v1", billing_mode="local")
    row = db.get_session("u")
    assert (row["billing_provider"], row["billing_mode"], row["system_prompt"]) == ("ollama", "local", None)
    # A session that does not exist yet is created, then counted (as Hermes does).
    db.update_token_counts("late", input_tokens=1)
    assert db.get_session("late")["source"] == "unknown"


def test_titles_are_unique_numbered_and_handed_over_by_compression(db):
    db.create_session("a", "cli")
    db.create_session("b", "cli")
    assert db.set_session_title("a", "  my\u200b   project ")
    assert db.get_session_title("a") == "my project"
    with pytest.raises(ValueError, match="already in use"):
        db.set_session_title("b", "my project")
    with pytest.raises(ValueError, match="too long"):
        db.set_session_title("b", "x" * 101)
    assert db.get_next_title_in_lineage("my project") == "my project #2"
    db.set_session_title("b", "my project #2")
    assert db.resolve_session_by_title("my project") == "b"
    assert db.get_session_by_title("my project")["id"] == "a"
    assert db.set_session_title("nope", "t") is False
    # A compression continuation takes its predecessor's title over.
    db.end_session("a", "compression")
    db.create_session("a2", "cli", parent_session_id="a")
    assert db.set_session_title("a2", "my project") is True
    assert db.get_session_title("a") is None and db.get_session_title("a2") == "my project"


def test_lists_project_compression_chains_and_hide_sub_agents(db):
    db.create_session("root", "cli")
    db.append_message("root", "user", "first ask")
    db.create_session("helper", "cli", parent_session_id="root", model_config={"_delegate_from": "root"})
    db.end_session("root", "compression")
    db.create_session("tip", "cli", parent_session_id="root")
    db.append_message("tip", "user", "latest message " + "x" * 80)
    rows = db.list_sessions_rich()
    assert [row["id"] for row in rows] == ["tip"]
    assert rows[0]["_lineage_root_id"] == "root"
    assert rows[0]["preview"].startswith("latest message") and len(rows[0]["preview"]) == 63
    raw = db.list_sessions_rich(project_compression_tips=False)
    assert [row["id"] for row in raw] == ["root"] and "_lineage_root_id" not in raw[0]
    assert db.get_compression_tip("root") == "tip"
    assert db.get_compression_lineage("tip") == ["root", "tip"]
    assert [row["id"] for row in db.search_sessions_by_id("root")] == ["tip"]
    # Sub-agent sessions go with their parent (Statehouse: delegates are deleted with it).
    assert db.delete_session("root") is True
    assert db.get_session("helper") is None and db.get_session("tip") is not None


def test_search_with_sources_roles_and_context(db):
    db.create_session("c", "cli")
    db.create_session("t", "tool")
    db.append_message("c", "user", "before the kubernetes talk")
    db.append_message("c", "assistant", "kubernetes is an orchestrator")
    db.append_message("t", "user", "kubernetes from a tool")
    hits = db.search_messages("kubernetes", exclude_sources=["tool"], role_filter=["assistant"])
    assert [(hit["session_id"], hit["role"], hit["source"]) for hit in hits] == [("c", "assistant", "cli")]
    assert [entry["content"] for entry in hits[0]["context"]] == [
        "before the kubernetes talk",
        "kubernetes is an orchestrator",
    ]
    assert ">>>" in hits[0]["snippet"]
    assert db.search_messages("") == [] and db.search_messages("***") == []
    assert db._sanitize_fts5_query("chat-send OR deploy-prod") == '"chat-send" OR "deploy-prod"'


def test_replace_clear_and_compact_the_live_transcript(db):
    db.create_session("r", "cli")
    db.append_message("r", "user", "old")
    db.replace_messages("r", [{"role": "user", "content": "x", "message_id": "ext-1"}, {"role": "assistant", "content": "y"}])
    assert [m["content"] for m in db.get_messages("r")] == ["x", "y"]
    assert len(db.get_messages("r", include_inactive=True)) == 3
    assert db.archive_and_compact("r", [{"role": "user", "content": "summary"}]) == 1
    assert [m["content"] for m in db.get_messages("r")] == ["summary"]
    assert db.has_archived_messages("r")
    db.clear_messages("r")
    assert db.get_messages("r") == [] and db.get_session("r")["message_count"] == 2


def test_free_form_ends_keep_their_words_and_compression_is_never_reopened(db):
    db.create_session("e", "cli")
    db.end_session("e", "user_exit")
    db.end_session("e", "resumed_other")
    assert db.get_session("e")["end_reason"] == "user_exit"
    db.reopen_session("e")
    assert db.get_session("e")["ended_at"] is None
    db.create_session("k", "cli")
    db.end_session("k", "compression")
    db.reopen_session("k")  # Statehouse never clears a compression end: it stays
    assert db.get_session("k")["end_reason"] == "compression"


def test_meta_locks_and_telegram_topics_live_in_the_profile_store(db):
    assert db.get_meta("k") is None
    db.set_meta("k", "v1")
    db.set_meta("k", "v2")
    assert db.get_meta("k") == "v2"
    db.create_session("s", "telegram", user_id="42")
    assert db.try_acquire_compression_lock("s", "a", ttl_seconds=30)
    assert not db.try_acquire_compression_lock("s", "b", ttl_seconds=30)
    assert db.refresh_compression_lock("s", "a") and not db.refresh_compression_lock("s", "b")
    assert db.get_compression_lock_holder("s") == "a"
    db.release_compression_lock("s", "a")
    assert db.try_acquire_compression_lock("s", "b")
    db.bind_telegram_topic(chat_id="42", thread_id="7", user_id="42", session_key="k7", session_id="s")
    assert db.get_telegram_topic_binding(chat_id="42", thread_id="7")["session_id"] == "s"
    with pytest.raises(ValueError, match="already linked"):
        db.bind_telegram_topic(chat_id="42", thread_id="8", user_id="42", session_key="k8", session_id="s")
    assert db.is_telegram_session_linked_to_topic(session_id="s")
    assert db.delete_telegram_topic_binding(chat_id="42", thread_id="7") == 1
    assert not db.is_telegram_session_linked_to_topic(session_id="s")


def test_gateway_peers_and_recovery(db):
    db.create_session("gw", "telegram", user_id="u1", session_key="agent:main:telegram:dm:c1", chat_id="c1", chat_type="dm")
    db.append_message("gw", "user", "hello")
    db.end_session("gw", "ws_orphan_reap")
    found = db.find_latest_gateway_session_for_peer(
        source="telegram", user_id="u1", session_key="agent:main:telegram:dm:c1", chat_id="c1", chat_type="dm"
    )
    assert found["id"] == "gw"
    db.reopen_session("gw")
    assert db.find_session_by_origin(platform="TELEGRAM", chat_id="c1") == "gw"
    assert [row["id"] for row in db.list_gateway_sessions(active_only=True)] == ["gw"]
    db.record_gateway_session_peer(
        "gw", source="telegram", user_id="u1", session_key="agent:main:telegram:dm:c1", chat_id="c1",
        chat_type="dm", display_name="Alice", origin_json=json.dumps({"chat_name": "Alice"}),
    )
    assert json.loads(db.get_session("gw")["origin_json"]) == {"chat_name": "Alice"}
    db.set_expiry_finalized("gw")
    assert db.get_session("gw")["expiry_finalized"] == 1


def test_prune_and_empty_sweeps_remove_files_too(db, tmp_path: Path):
    db.create_session("empty", "cli")
    db.end_session("empty", "done")
    (tmp_path / "empty.jsonl").write_text("")
    assert db.count_empty_sessions() == 1
    assert db.delete_empty_sessions(sessions_dir=tmp_path) == 1
    assert not (tmp_path / "empty.jsonl").exists()
    db.create_session("live", "cli")
    db.create_session("done", "cli")
    db.append_message("done", "user", "x")
    db.end_session("done", "done")
    cutoff = time.time() + 1
    assert [row["id"] for row in db.list_prune_candidates(started_before=cutoff)] == ["done"]
    with pytest.raises(TypeError):
        db.prune_sessions(older_than_days=None, bogus=1)
    assert db.prune_sessions(older_than_days=None, started_before=cutoff) == 1
    assert db.get_session("live") is not None and db.get_session("done") is None


def test_a_source_outside_the_surface_alphabet_is_folded_as_the_importer_folds_it(db):
    db.create_session("chat", "telegram:-100")
    db.append_message("chat", "user", "side chatter", observed=True)
    assert db.get_session("chat")["source"] == "telegram--100"
    # The caller keeps using its own value in filters.
    assert [row["id"] for row in db.list_sessions_rich(source="telegram:-100")] == ["chat"]
    assert db.session_count(source="telegram:-100") == 1
    assert [hit["session_id"] for hit in db.search_messages("chatter", source_filter=["telegram:-100"])] == ["chat"]
    assert db.list_sessions_rich(exclude_sources=["telegram:-100"]) == []


def test_a_member_token_writes_and_leaves_housekeeping_to_the_server(api, profile):
    from conftest import admin_json

    from statehouse.errors import ForbiddenError

    admin_json(api, "POST", "/v1/profiles", {"name": profile})
    created = admin_json(api, "POST", "/v1/tokens", {"name": profile, "role": "member", "profiles": [profile]})
    member = SessionDB(url=api.url, token=created["token"], profile=profile)
    try:
        member.create_session("m", "cli")
        member.append_message("m", "user", "hello")
        assert member.message_count("m") == 1
        # Hermes' periodic housekeeping: admin work here, skipped (not failed) for a member.
        assert (member.optimize_fts(), member.vacuum(), member.prune_empty_ghost_sessions()) == (0, 0, 0)
        # What a user asks for explicitly says why it cannot be done.
        with pytest.raises(ForbiddenError):
            member.count_empty_sessions()
    finally:
        member.close()


def test_export_and_import_round_trip_between_profiles(api, db, profile):
    db.create_session("x", "cli", model="m", cwd="/w")
    db.set_session_title("x", "Exported")
    db.append_message("x", "user", "Hello")
    db.append_message("x", "assistant", "Hi", tool_calls=[{"id": "c"}])
    db.end_session("x", "complete")
    exported = db.export_session("x")
    target = SessionDB(url=api.url, token=api.token, profile=profile + "-t", id_prefix="t.")
    try:
        result = target.import_sessions([exported])
        assert (result["ok"], result["imported"]) == (True, 1)
        row = target.get_session("x")
        assert (row["title"], row["cwd"], row["message_count"], row["tool_call_count"]) == ("Exported", "/w", 2, 1)
        assert target.import_sessions([exported])["skipped_ids"] == ["x"]
        invalid = target.import_sessions([{"id": "bad", "model_config": "{not-json"}])
        assert invalid["errors"] == [{"index": 0, "session_id": "bad", "error": "model_config must be valid JSON"}]
        # The prefix keeps this store's ids apart: in Statehouse the session is "t.x".
        assert Client(api.url, api.token).get_session("t.x")["profile"] == profile + "-t"
    finally:
        target.close()


def test_the_conformance_shims_backdating_hook_speaks_only_its_few_statements(api, profile):
    import sqlite3

    from _test_hooks import RawConnection

    client = Client(api.url, api.token, profile)
    hooks = RawConnection(client, enabled=False)
    with pytest.raises(sqlite3.OperationalError):
        hooks.execute("UPDATE sessions SET started_at = ? WHERE id = ?", (1.0, "s"))
    with pytest.raises(sqlite3.OperationalError):
        RawConnection(client, enabled=True).execute("SELECT * FROM sessions")


def test_the_shim_reads_usage_and_compression_locks_without_the_hooks(db):
    from _test_hooks import RawConnection

    raw = RawConnection(db.client, enabled=False, to_statehouse_id=db._ids.out, read_meta=db.get_meta)
    db.create_session("s1", "cli", model="m1")
    db.update_token_counts("s1", input_tokens=5, output_tokens=2, model="m1")
    rows = raw.execute("SELECT model, input_tokens FROM session_model_usage WHERE session_id = ?", ("s1",)).fetchall()
    assert [(row["model"], row["input_tokens"]) for row in rows] == [("m1", 5)]
    assert raw.execute("SELECT expires_at FROM compression_locks WHERE session_id = ?", ("s1",)).fetchone() is None
    assert db.try_acquire_compression_lock("s1", "holder", ttl_seconds=60)
    expires = raw.execute("SELECT expires_at FROM compression_locks WHERE session_id = ?", ("s1",)).fetchone()[0]
    assert time.time() < expires <= time.time() + 60

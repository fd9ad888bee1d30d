"""The REST client against a real API: typed problems, revisions carried, idempotency, iterators."""

from __future__ import annotations

import pytest

from statehouse import (
    Client,
    ConflictError,
    NotFoundError,
    PreconditionError,
    PreconditionRequiredError,
    RevisionConflictError,
    SessionClosedError,
    StatehouseError,
    UnauthenticatedError,
    ValidationFailedError,
)
from statehouse.errors import RequestError


def test_configured_by_the_environment_or_by_arguments(api, profile, monkeypatch):
    monkeypatch.setenv("STATEHOUSE_URL", api.url)
    monkeypatch.setenv("STATEHOUSE_TOKEN", api.token)
    monkeypatch.setenv("STATEHOUSE_PROFILE", profile)
    from_env = Client()
    assert (from_env.url, from_env.profile) == (api.url, profile)
    created = from_env.create_session(source="cli")
    assert created["profile"] == profile
    explicit = Client(api.url, api.token, "another")
    assert explicit.profile == "another"


def test_problems_are_exceptions_of_their_code_family(api, client):
    with pytest.raises(NotFoundError) as missing:
        client.get_session("no-such-session")
    assert missing.value.code == "not_found" and missing.value.status == 404
    assert isinstance(missing.value, StatehouseError)
    with pytest.raises(ValidationFailedError) as invalid:
        client.create_session(source="Not A Label")
    assert isinstance(invalid.value, RequestError)
    assert invalid.value.issues and invalid.value.request_id
    with pytest.raises(UnauthenticatedError):
        Client(api.url, "sh_not-a-token", "x").list_profiles()
    session = client.create_session(source="cli")
    with pytest.raises(PreconditionRequiredError):
        client.request("POST", f"/v1/sessions/{session['id']}/end", body={"reason": "cli_close"})


def test_revisions_are_carried_and_a_stale_one_names_the_current(client):
    session = client.create_session(source="cli", id="rev-carried-" + client.profile)
    assert client.tokens.get(session["id"]) == (session["revision"], session["generation"])
    renamed = client.update_session(session["id"], title="first")  # If-Match from what it saw
    appended = client.append_messages(session["id"], [{"role": "user", "content": "hi"}])
    assert appended["revision"] == renamed["revision"] + 1
    assert client.tokens.get(session["id"])[0] == appended["revision"]
    with pytest.raises(RevisionConflictError) as stale:
        client.update_session(session["id"], title="second", if_match=renamed["revision"])
    assert stale.value.current_revision == appended["revision"]
    assert isinstance(stale.value, PreconditionError)
    assert client.update_session(session["id"], title="second")["title"] == "second"


def test_a_replayed_idempotency_key_has_one_effect(client):
    body = {"profile": client.profile, "source": "cli"}
    first = client.request("POST", "/v1/sessions", body=body, idempotency_key="key-" + client.profile)
    again = client.request("POST", "/v1/sessions", body=body, idempotency_key="key-" + client.profile)
    assert again.body["id"] == first.body["id"]
    assert again.headers.get("idempotent-replayed") == "true"
    assert len(list(client.iter_sessions())) == 1
    with pytest.raises(ConflictError) as reused:
        client.request("POST", "/v1/sessions", body={**body, "source": "tui"}, idempotency_key="key-" + client.profile)
    assert reused.value.code == "idempotency_conflict"


def test_iterators_walk_every_page(client):
    for index in range(7):
        session = client.create_session(source="cli", id=f"page-{index}-{client.profile}")
        client.append_messages(session["id"], [{"role": "user", "content": f"pagination needle {index}"}])
    assert len(list(client.iter_sessions(page_size=3))) == 7
    session_id = f"page-0-{client.profile}"
    client.append_messages(session_id, [{"role": "assistant", "content": f"reply {n}"} for n in range(5)])
    messages = list(client.iter_messages(session_id, page_size=2))
    assert [message["content"] for message in messages][:2] == ["pagination needle 0", "reply 0"]
    assert len(messages) == 6
    hits = list(client.iter_search("pagination needle", page_size=2, titles=False))
    assert len(hits) == 7


def test_lineage_operations_carry_both_tokens(client):
    session = client.create_session(source="cli")
    client.append_messages(session["id"], [{"role": "user", "content": "long talk"}])
    compressed = client.compress(session["id"], "summary so far", keep_last_messages=1)
    child = compressed["child"]
    assert compressed["parent"]["endReason"] == "compression"
    assert client.lineage(child["id"])["chain"] == [session["id"], child["id"]]
    with pytest.raises(SessionClosedError):
        client.append_messages(session["id"], [{"role": "user", "content": "too late"}])
    turn = client.begin_turn(child["id"], "worker-1")
    assert client.tokens.get(child["id"])[1] == turn["generation"]
    client.append_messages(child["id"], [{"role": "user", "content": "in the turn"}], turn_id=turn["turnId"])
    client.complete_turn(child["id"], turn["turnId"])
    deleted = client.delete_session(child["id"], include_compression_chain=True)
    assert set(deleted["deletedIds"]) == {session["id"], child["id"]}
    assert client.tokens.get(child["id"]) is None


def test_usage_and_replay_fields_reach_the_store(client):
    session = client.create_session(source="cli", model="m-1")
    client.request(
        "POST",
        f"/v1/sessions/{session['id']}/usage",
        body={"inputTokens": 10, "outputTokens": 2, "apiCallCount": 1, "billingProvider": "p"},
    )
    client.append_messages(
        session["id"], [{"role": "assistant", "content": "x", "reasoningContent": "", "observed": True}]
    )
    stored = client.get_session(session["id"])
    assert (stored["inputTokens"], stored["apiCallCount"], stored["billingProvider"]) == (10, 1, "p")
    [message] = list(client.iter_messages(session["id"]))
    assert message["reasoningContent"] == "" and message["observed"] is True

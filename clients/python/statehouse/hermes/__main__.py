"""``python -m statehouse.hermes …``: switching a Hermes Agent install over, checking it, rolling back.

    install-hook      write the start-up hook (one .pth line) into site-packages
    uninstall-hook    remove it again
    check             a canary conversation through the adapter: create, append, read, search, delete
    compare --db F    Hermes' state.db (read-only) against Statehouse: sessions and message counts
    export-back --db F [--since EPOCH]
                      copy sessions written to Statehouse back into a Hermes state.db (a rollback),
                      through Hermes' own SessionDB.import_sessions (Hermes must be importable)

Configuration: STATEHOUSE_URL, STATEHOUSE_TOKEN, STATEHOUSE_PROFILE (or --profile).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sqlite3
import sys
import uuid
from pathlib import Path
from typing import Any, Dict, List, Optional

from . import switch
from ._session_db import SessionDB


def _check(profile: Optional[str]) -> int:
    db = SessionDB(profile=profile)
    session_id = f"statehouse-check-{uuid.uuid4().hex[:12]}"
    word = f"canary{uuid.uuid4().hex[:8]}"
    try:
        db.create_session(session_id, "cli", model="statehouse-check")
        db.append_message(session_id, "user", f"a {word} message")
        db.append_message(session_id, "assistant", "an answer")
        messages = db.get_messages_as_conversation(session_id)
        assert [m["content"] for m in messages] == [f"a {word} message", "an answer"], messages
        hits = db.search_messages(word)
        assert any(hit["session_id"] == session_id for hit in hits), hits
        assert db.delete_session(session_id)
    finally:
        db.close()
    print(f"ok: {db.client.url} profile {db.profile} — created, appended, read, searched and deleted {session_id}")
    return 0


def _compare(path: Path, profile: Optional[str]) -> int:
    source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = source.execute(
        "SELECT s.id, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) FROM sessions s"
    ).fetchall()
    source.close()
    db = SessionDB(profile=profile)
    missing: List[str] = []
    differing: List[str] = []
    for session_id, count in rows:
        session = db.get_session(str(session_id))
        if session is None:
            missing.append(str(session_id))
        elif db.message_count(str(session_id)) < int(count):
            differing.append(f"{session_id} ({db.message_count(str(session_id))} here, {count} in the file)")
    db.close()
    print(json.dumps({"sessionsInFile": len(rows), "missing": missing[:50], "fewerMessages": differing[:50]}, indent=2))
    return 1 if missing or differing else 0


def _export_back(path: Path, since: Optional[float], profile: Optional[str]) -> int:
    adapter = SessionDB(profile=profile)
    exported: List[Dict[str, Any]] = []
    for session in adapter.search_sessions(limit=1_000_000):
        if since is not None and (session.get("started_at") or 0) < since:
            continue
        exported.append({**session, "messages": adapter.get_messages(session["id"])})
    adapter.close()
    hermes_state = importlib.import_module("hermes_state")
    if getattr(hermes_state, "STATEHOUSE", False):
        print("unset STATEHOUSE_HERMES first: this must write through Hermes' own SessionDB", file=sys.stderr)
        return 2
    target = hermes_state.SessionDB(db_path=path)
    totals = {"imported": 0, "skipped": 0}
    try:
        for start in range(0, len(exported), 500):
            result = target.import_sessions(exported[start : start + 500])
            if not result.get("ok"):
                print(json.dumps(result, indent=2), file=sys.stderr)
                return 1
            totals["imported"] += result["imported"]
            totals["skipped"] += result["skipped"]
    finally:
        target.close()
    print(json.dumps(totals))
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m statehouse.hermes", description=__doc__.split("\n")[0])
    parser.add_argument("--profile", help="Statehouse profile (default: STATEHOUSE_PROFILE, else default)")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("install-hook")
    commands.add_parser("uninstall-hook")
    commands.add_parser("check")
    compare = commands.add_parser("compare")
    compare.add_argument("--db", type=Path, required=True)
    back = commands.add_parser("export-back")
    back.add_argument("--db", type=Path, required=True)
    back.add_argument("--since", type=float, help="only sessions started at or after this epoch second")
    args = parser.parse_args(argv)
    if args.command == "install-hook":
        print(f"wrote {switch.install_hook()}: set STATEHOUSE_HERMES=1 in Hermes' environment to switch it over")
        return 0
    if args.command == "uninstall-hook":
        removed = switch.uninstall_hook()
        print(f"removed {removed}" if removed else "no hook was installed")
        return 0
    if args.command == "check":
        return _check(args.profile)
    if args.command == "compare":
        return _compare(args.db, args.profile)
    return _export_back(args.db, args.since, args.profile)


if __name__ == "__main__":
    sys.exit(main())

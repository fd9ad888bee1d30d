"""Hermes' ``hermes_state`` module name, served by Statehouse's adapter (for Hermes' own test suite).

``../shared/peers/hermes/run.sh adapter`` puts this folder first on the path, so Hermes' suite imports
this module as ``hermes_state``. Every ``SessionDB(db_path=…)`` gets a store of its own: a profile
named after the path (the same path opens the same store again). Nothing here touches SQLite; tests
that reach into a SQLite file (``db._conn``, PRAGMAs, migrations) fail here, and are listed with their
reason in docs/migrating-from-hermes.md.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Optional

from statehouse.hermes import (
    DEFAULT_DB_PATH,
    MAX_FTS5_QUERY_CHARS,
    SCHEMA_VERSION,
    AsyncSessionDB,
    format_session_db_unavailable,
    get_last_init_error,
    workspace_key,
)
from statehouse.hermes import SessionDB as _StatehouseSessionDB

from _test_hooks import RawConnection

# There is no local schema: the store is the Statehouse API (docs/api.md).
SCHEMA_SQL = "-- Statehouse keeps no local schema; sessions live behind its REST API (docs/api.md)\n"

# The suite patches hermes_state.sqlite3.connect and hermes_state.time.time.
__all__ = [
    "sqlite3",
    "time",
    "DEFAULT_DB_PATH",
    "MAX_FTS5_QUERY_CHARS",
    "SCHEMA_SQL",
    "SCHEMA_VERSION",
    "AsyncSessionDB",
    "SessionDB",
    "format_session_db_unavailable",
    "get_last_init_error",
    "workspace_key",
]


def profile_for(db_path: Optional[Path]) -> str:
    """A profile per database path: the suite's stores never see each other's sessions."""
    resolved = str(Path(db_path or DEFAULT_DB_PATH).expanduser().resolve())
    return "hermes-" + hashlib.sha256(resolved.encode("utf-8")).hexdigest()[:20]


class SessionDB(_StatehouseSessionDB):
    def __init__(self, db_path: Optional[Path] = None, read_only: bool = False, **kwargs: Any) -> None:
        profile = profile_for(db_path)
        kwargs.setdefault("profile", profile)
        # Statehouse ids are unique across the store, and every test here says "s1": each store's
        # ids get its own prefix (the adapter strips it from everything it answers).
        kwargs.setdefault("id_prefix", profile[len("hermes-") :][:10] + ".")
        # Every API call may wait this long (30 s), like Hermes' own SQLite lock timeout.
        kwargs.setdefault("timeout", 30.0)
        super().__init__(db_path, read_only, **kwargs)
        # Test-only: the few raw UPDATEs the suite uses to backdate rows, when the API enables its
        # test hooks (STATEHOUSE_TEST_HOOKS=1); anything else raises sqlite3.OperationalError.
        self._conn = RawConnection(
            self._client,
            enabled=os.environ.get("STATEHOUSE_TEST_HOOKS") == "1",
            to_statehouse_id=self._ids.out,
            read_meta=self.get_meta,
        )

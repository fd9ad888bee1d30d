"""Hermes Agent's ``SessionDB`` over the Statehouse REST API.

    from statehouse.hermes import SessionDB
    db = SessionDB()            # STATEHOUSE_URL, STATEHOUSE_TOKEN, STATEHOUSE_PROFILE

The same public methods, arguments, return shapes and exceptions as ``hermes_state.SessionDB`` at
schema v21 (docs/migrating-from-hermes.md lists where Statehouse deliberately differs).
"""

from ._session_db import (
    DEFAULT_DB_PATH,
    MAX_FTS5_QUERY_CHARS,
    SCHEMA_VERSION,
    AsyncSessionDB,
    SessionDB,
    format_session_db_unavailable,
    get_last_init_error,
    workspace_key,
)

__all__ = [
    "DEFAULT_DB_PATH",
    "MAX_FTS5_QUERY_CHARS",
    "SCHEMA_VERSION",
    "AsyncSessionDB",
    "SessionDB",
    "format_session_db_unavailable",
    "get_last_init_error",
    "workspace_key",
]

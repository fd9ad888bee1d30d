"""Switching Hermes over: the start-up hook, the profile of a state.db, the check and compare tools."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from conftest import PACKAGE

from statehouse.hermes import switch

FAKE_HERMES_STATE = '''
def apply_wal_with_fallback(conn, db_label="state.db"):
    return "wal"

class SessionDB:
    def __init__(self, db_path=None, read_only=False):
        self.db_path = db_path
'''


def run_python(code: str, env: dict, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def test_the_hook_swaps_only_sessiondb_and_only_when_enabled(api, profile, tmp_path):
    (tmp_path / "hermes_state.py").write_text(FAKE_HERMES_STATE)
    code = (
        "import statehouse.hermes.switch as s; s.activate(); import hermes_state;"
        "print(hermes_state.SessionDB.__module__, hermes_state.apply_wal_with_fallback(None));"
        "db = hermes_state.SessionDB(); print(getattr(db, 'profile', None))"
    )
    env = {
        **os.environ,
        "PYTHONPATH": f"{tmp_path}{os.pathsep}{PACKAGE}",
        "STATEHOUSE_URL": api.url,
        "STATEHOUSE_TOKEN": api.token,
        "STATEHOUSE_PROFILE": profile,
    }
    on = run_python(code, {**env, "STATEHOUSE_HERMES": "1"}, tmp_path)
    assert on.returncode == 0, on.stderr
    assert on.stdout.split() == ["statehouse.hermes.switch", "wal", profile]
    off = run_python(code, env, tmp_path)
    assert off.returncode == 0, off.stderr
    assert off.stdout.split() == ["hermes_state", "wal", "None"]


def test_the_one_line_patch_at_the_end_of_hermes_state_switches_it_too(api, profile, tmp_path):
    """The alternative to the hook (docs/migrating-from-hermes.md): one line appended to hermes_state.py."""
    (tmp_path / "hermes_state.py").write_text(FAKE_HERMES_STATE + switch.PATCH_LINE)
    code = "import hermes_state; print(hermes_state.SessionDB.__module__)"
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{PACKAGE}", "STATEHOUSE_URL": api.url}
    env.pop("STATEHOUSE_HERMES", None)
    on = run_python(code, {**env, "STATEHOUSE_HERMES": "1"}, tmp_path)
    assert (on.returncode, on.stdout.split()) == (0, ["statehouse.hermes.switch"]), on.stderr
    off = run_python(code, env, tmp_path)
    assert (off.returncode, off.stdout.split()) == (0, ["hermes_state"]), off.stderr


def test_install_and_uninstall_write_one_pth_line(tmp_path):
    written = switch.install_hook(tmp_path)
    assert written.read_text() == switch.PTH_LINE
    assert switch.uninstall_hook(tmp_path) == written and not written.exists()
    assert switch.uninstall_hook(tmp_path) is None


def test_hermes_profiles_map_to_statehouse_profiles(monkeypatch):
    monkeypatch.setenv("STATEHOUSE_PROFILE", "main")
    assert switch.profile_for(Path("/home/u/.hermes/profiles/Work Bot/state.db")) == "work-bot"
    assert switch.profile_for(Path("/home/u/.hermes/state.db")) == "main"
    assert switch.profile_for(None) == "main"


def test_check_and_compare_tools(api, profile, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(PACKAGE), "STATEHOUSE_URL": api.url, "STATEHOUSE_TOKEN": api.token}
    checked = subprocess.run(
        [sys.executable, "-m", "statehouse.hermes", "--profile", profile, "check"],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.startswith("ok:")
    state = tmp_path / "state.db"
    conn = sqlite3.connect(state)
    conn.executescript(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT);"
        "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content TEXT);"
        f"INSERT INTO sessions VALUES ('{profile}-a', 'cli'), ('{profile}-b', 'cli');"
        f"INSERT INTO messages (session_id, role, content) VALUES ('{profile}-a', 'user', 'x');"
    )
    conn.commit()
    conn.close()
    from statehouse.hermes import SessionDB

    db = SessionDB(url=api.url, token=api.token, profile=profile)
    db.create_session(f"{profile}-a", "cli")
    db.append_message(f"{profile}-a", "user", "x")
    db.close()
    compared = subprocess.run(
        [sys.executable, "-m", "statehouse.hermes", "--profile", profile, "compare", "--db", str(state)],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert compared.returncode == 1
    assert f'"{profile}-b"' in compared.stdout and f'"{profile}-a"' not in compared.stdout

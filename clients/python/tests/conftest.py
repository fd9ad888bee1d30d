"""A real Statehouse API for the package's tests.

The session starts the API that is already built (``apps/api/dist``; this builds nothing): on a fresh
SQLite file, and — when ``STATEHOUSE_TEST_PG_URL`` is set — on a fresh PostgreSQL database too, each
on a free loopback port with an admin token from the token CLI. Every test that takes ``api`` runs on
each of them. The processes stop when the session ends.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "clients" / "python"
sys.path.insert(0, str(PACKAGE))
sys.path.insert(0, str(PACKAGE / "conformance"))

MAIN = ROOT / "apps" / "api" / "dist" / "main.js"
TOKEN_CLI = ROOT / "apps" / "api" / "dist" / "cli" / "token.js"


@dataclass
class Api:
    dialect: str
    url: str
    token: str
    database_url: str
    log: Path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _fresh_pg_database(base: str) -> str:
    """A new empty database beside the one ``base`` names (created with the repo's own pg driver)."""
    name = "pyclient_" + secrets.token_hex(6)
    script = (
        "const {Client}=require('pg');(async()=>{const c=new Client({connectionString:process.argv[1]});"
        "await c.connect();await c.query('create database '+process.argv[2]);await c.end();})()"
        ".catch(e=>{console.error(e.message);process.exit(1)})"
    )
    subprocess.run(["node", "-e", script, base, name], cwd=ROOT, check=True, capture_output=True, timeout=60)
    parts = base.rsplit("/", 1)
    return f"{parts[0]}/{name}"


def _start(dialect: str, workdir: Path) -> tuple[Api, subprocess.Popen[bytes]]:
    if dialect == "sqlite":
        database_url = f"file:{workdir / 'statehouse.db'}"
    else:
        database_url = _fresh_pg_database(os.environ["STATEHOUSE_TEST_PG_URL"])
    port = _free_port()
    env = dict(os.environ)
    env.update(
        {
            "STATEHOUSE_DATABASE_URL": database_url,
            "STATEHOUSE_SEED_DEMO": "false",
            "STATEHOUSE_ADMIN_PASSWORD": "pytest-" + secrets.token_hex(8),
            "STATEHOUSE_API_PORT": str(port),
            "STATEHOUSE_HOST": "127.0.0.1",
            "STATEHOUSE_SWEEP_INTERVAL_SECONDS": "0",
            "STATEHOUSE_RETENTION_INTERVAL_SECONDS": "0",
            "NO_COLOR": "1",
        }
    )
    for name in ("STATEHOUSE_URL", "STATEHOUSE_TOKEN", "STATEHOUSE_PROFILE", "STATEHOUSE_TEST_HOOKS"):
        env.pop(name, None)
    created = subprocess.run(
        ["node", str(TOKEN_CLI), "create", "--role", "admin", "--profiles", "*", "--name", "pytest"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if created.returncode != 0:
        raise RuntimeError(f"the token CLI failed: {created.stderr.strip()}")
    token = created.stdout.strip().splitlines()[-1].strip()
    log = workdir / f"api-{dialect}.log"
    process = subprocess.Popen(
        ["node", str(MAIN)], cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the API stopped at start-up:\n{log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as answer:
                if answer.status == 200:
                    break
        except (urllib.error.URLError, OSError):
            time.sleep(0.2)
    else:
        process.terminate()
        raise RuntimeError(f"the API did not answer /healthz in time:\n{log.read_text()[-2000:]}")
    return Api(dialect, url, token, database_url, log), process


def _dialects() -> list[str]:
    return ["sqlite", "postgres"] if os.environ.get("STATEHOUSE_TEST_PG_URL") else ["sqlite"]


@pytest.fixture(scope="session")
def _workdir() -> Iterator[Path]:
    directory = Path(tempfile.mkdtemp(prefix="statehouse-pytest-"))
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


_running: dict[str, tuple[Api, "subprocess.Popen[bytes]"]] = {}


@pytest.fixture(scope="session", params=_dialects())
def api(request: pytest.FixtureRequest, _workdir: Path) -> Iterator[Api]:
    if not MAIN.exists() or not TOKEN_CLI.exists():
        pytest.fail("build the API first (npx tsc -b libs/contracts libs/state apps/api)")
    dialect = str(request.param)
    if dialect not in _running:
        _running[dialect] = _start(dialect, _workdir)
    yield _running[dialect][0]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    for _, process in _running.values():
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture()
def profile() -> str:
    """A profile of its own for each test."""
    return "py-" + secrets.token_hex(5)


@pytest.fixture()
def client(api: Api, profile: str) -> Iterator["object"]:
    from statehouse import Client

    with Client(api.url, api.token, profile) as made:
        made.create_profile(profile)
        yield made


def admin_json(api: Api, method: str, path: str, body: Optional[dict] = None) -> object:
    """A raw call with the admin token (for set-up the client does not cover)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(api.url + path, data=data, method=method)
    request.add_header("Authorization", f"Bearer {api.token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as answer:
        raw = answer.read()
        return json.loads(raw) if raw else None

"""Hermes' own SessionDB (SQLite, in-process) beside Statehouse's adapter (REST), call by call.

Run by bench/hermes-adapter.bench.ts: each round runs one conversation on each store in turn —
create_session, 50 append_message, get_messages (read back), search_messages — timing every call.
Hermes' module is imported from BENCH_HERMES (a Hermes Agent checkout) at bench time only; the
adapter talks to the API at STATEHOUSE_URL with STATEHOUSE_TOKEN. Prints one JSON object.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "clients" / "python"))

from statehouse.hermes import SessionDB as AdapterSessionDB  # noqa: E402

APPENDS = 50
WORDS = ["deploy", "docker", "kubernetes", "python", "search", "lineage", "compress", "gateway", "token", "profile"]


def hermes_module() -> Optional[Any]:
    base = os.environ.get("BENCH_HERMES")
    if not base:
        return None
    root = Path(base)
    for path in (root, root / "_helpers"):
        if path.is_dir():
            sys.path.insert(0, str(path))
    spec = importlib.util.spec_from_file_location("hermes_state_bench", root / "hermes_state.py")
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def conversation(db: Any, session_id: str, timings: Dict[str, List[float]]) -> None:
    def timed(op: str, call: Callable[[], Any]) -> Any:
        start = time.perf_counter()
        result = call()
        timings.setdefault(op, []).append((time.perf_counter() - start) * 1000)
        return result

    timed("create_session", lambda: db.create_session(session_id, "cli", model="bench-model"))
    for index in range(APPENDS):
        role = "user" if index % 2 == 0 else "assistant"
        text = f"{WORDS[index % len(WORDS)]} message {index} of {session_id} about {WORDS[(index * 3) % len(WORDS)]}"
        timed("append_message", lambda: db.append_message(session_id, role, text))
    messages = timed("get_messages", lambda: db.get_messages(session_id))
    assert len(messages) == APPENDS, len(messages)
    timed("search_messages", lambda: db.search_messages("kubernetes", limit=20))


def summary(values: List[float]) -> Dict[str, float]:
    ordered = sorted(values)

    def at(fraction: float) -> float:
        return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]

    return {"p50": at(0.5), "p99": at(0.99), "calls": len(ordered)}


def main() -> None:
    rounds = int(os.environ.get("BENCH_HERMES_ROUNDS", "20"))
    workdir = Path(tempfile.mkdtemp(prefix="hermes-bench-"))
    # Hermes reads its home when its module loads.
    os.environ["HERMES_HOME"] = str(workdir)
    module = hermes_module()
    stores: Dict[str, Any] = {
        "adapter": AdapterSessionDB(profile="bench-hermes", id_prefix="bench."),
    }
    if module is not None:
        stores["hermes"] = module.SessionDB(db_path=workdir / "state.db")
    timings: Dict[str, Dict[str, List[float]]] = {name: {} for name in stores}
    # One warm-up conversation each (connections, statement caches, the API's first requests).
    for name, db in stores.items():
        conversation(db, "warmup", {})
    for round_index in range(rounds):
        order = list(stores.items())
        if round_index % 2:
            order.reverse()
        for name, db in order:
            conversation(db, f"conv-{round_index}", timings[name])
    for db in stores.values():
        db.close()
    print(
        json.dumps(
            {
                "rounds": rounds,
                "appends": APPENDS,
                "hermes": module is not None,
                "results": {name: {op: summary(values) for op, values in ops.items()} for name, ops in timings.items()},
            }
        )
    )


if __name__ == "__main__":
    main()

"""Switching a Hermes Agent install over to Statehouse without editing Hermes.

With ``STATEHOUSE_HERMES=1`` in Hermes' environment and the start-up hook installed
(``python -m statehouse.hermes install-hook`` writes one ``.pth`` line into site-packages), every
``import hermes_state`` in that interpreter loads Hermes' own module and then replaces its
``SessionDB`` with Statehouse's: the gateway, CLI and agent loop keep their code and write to the API
(``STATEHOUSE_URL``, ``STATEHOUSE_TOKEN``). Everything else of ``hermes_state`` — the WAL helpers the
kanban board uses, the repair tools — stays Hermes' own. Unset the variable (or
``uninstall-hook``) and Hermes is back on its ``state.db``.

Which Statehouse profile a ``SessionDB(db_path=…)`` writes to follows Hermes' own profiles:
``<home>/profiles/<name>/state.db`` is profile ``<name>``; any other path is ``STATEHOUSE_PROFILE``
(default ``default``).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Optional, Sequence

from ._session_db import SessionDB as _SessionDB

MODULE = "hermes_state"
PTH_NAME = "statehouse-hermes.pth"
PTH_LINE = "import statehouse.hermes.switch as _s; _s.activate()\n"
# The same switch as a line appended to Hermes' own hermes_state.py (for installs that cannot take a
# .pth file): the module is in sys.modules while it runs, so activate() patches it in place.
PATCH_LINE = "import statehouse.hermes.switch as _statehouse; _statehouse.activate()  # Statehouse\n"


def enabled() -> bool:
    return os.environ.get("STATEHOUSE_HERMES", "").strip().lower() in ("1", "true", "yes", "on")


def profile_for(db_path: Optional[Path]) -> str:
    """The Statehouse profile of a Hermes state.db path (Hermes profiles map one to one)."""
    if db_path is not None:
        path = Path(db_path)
        if path.parent.parent.name == "profiles" and path.parent.name:
            folded = re.sub(r"[^a-z0-9_-]+", "-", path.parent.name.lower()).strip("-_")[:64]
            if folded:
                return folded if folded[0].isalnum() else f"p{folded}"[:64]
    return os.environ.get("STATEHOUSE_PROFILE") or "default"


class SessionDB(_SessionDB):
    """Statehouse's SessionDB as Hermes constructs it: ``SessionDB(db_path=None, read_only=False)``."""

    def __init__(self, db_path: Optional[Path] = None, read_only: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("profile", profile_for(db_path))
        super().__init__(db_path, read_only, **kwargs)


def patch(module: ModuleType) -> None:
    """Points an imported ``hermes_state`` at Statehouse."""
    module.SessionDB = SessionDB  # type: ignore[attr-defined]
    module.STATEHOUSE = True  # type: ignore[attr-defined]


class _Loader(importlib.abc.Loader):
    def __init__(self, inner: importlib.abc.Loader) -> None:
        self._inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Optional[ModuleType]:
        return self._inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._inner.exec_module(module)
        patch(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(
        self,
        fullname: str,
        path: Optional[Sequence[str]],
        target: Optional[ModuleType] = None,
    ) -> Optional[importlib.machinery.ModuleSpec]:
        if fullname != MODULE:
            return None
        for finder in sys.meta_path:
            if finder is self:
                continue
            find = getattr(finder, "find_spec", None)
            spec: Optional[importlib.machinery.ModuleSpec] = find(fullname, path, target) if find else None
            if spec is not None and spec.loader is not None:
                spec.loader = _Loader(spec.loader)
                return spec
        return None


def activate() -> None:
    """Run at interpreter start-up by the ``.pth`` line: hooks ``hermes_state`` when enabled."""
    if not enabled() or any(isinstance(finder, _Finder) for finder in sys.meta_path):
        return
    already = sys.modules.get(MODULE)
    if already is not None:
        patch(already)
        return
    sys.meta_path.insert(0, _Finder())


def site_packages() -> Path:
    import site
    import sysconfig

    candidates = [Path(sysconfig.get_paths()["purelib"])]
    try:
        candidates += [Path(path) for path in site.getsitepackages()]
    except AttributeError:
        pass
    for candidate in candidates:
        if candidate.is_dir() and os.access(candidate, os.W_OK):
            return candidate
    return Path(site.getusersitepackages())


def install_hook(directory: Optional[Path] = None) -> Path:
    target = (directory or site_packages()) / PTH_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(PTH_LINE)
    return target


def uninstall_hook(directory: Optional[Path] = None) -> Optional[Path]:
    target = (directory or site_packages()) / PTH_NAME
    if target.exists():
        target.unlink()
        return target
    return None

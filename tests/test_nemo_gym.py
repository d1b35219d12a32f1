"""The NeMo Gym resources server (environments/nemo_gym_integrals) through nemo-gym itself.

nemo-gym needs Python >= 3.12 and this suite may run on 3.10/3.11, so the test
builds a virtual environment with nemo-gym and this checkout (editable) in
``.venv-gym/`` (ignored by git, kept between runs: rebuilt only when
:data:`GYM_REQUIREMENTS` or pyproject.toml changes) and runs the server's own
tests (``resources_servers/integrals/tests/test_app.py``: the server started as
``ng_run`` starts it, ``/verify`` with real Responses-API bodies) there, in a
subprocess. It skips only when no Python >= 3.12 is found
(``INTEGRAL_REWARDS_GYM_PYTHON`` names one; else ``python3.13``, ``python3.12``
on the PATH, then pyenv's installed versions). A cold cache costs the install
(seconds with uv, from the dev extra; about a minute with pip, where uv is
absent); a warm one the server's start and tests.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
VENV = REPO / ".venv-gym"
SERVER_DIR = REPO / "environments" / "nemo_gym_integrals" / "resources_servers" / "integrals"
SERVER_TESTS = SERVER_DIR / "tests" / "test_app.py"
# The server's requirements.txt (what ng_run installs for it) but its
# editable line (this checkout, installed here by absolute path), and pytest.
GYM_REQUIREMENTS = tuple(
    line.strip() for line in (SERVER_DIR / "requirements.txt").read_text().splitlines()
    if line.strip() and not line.lstrip().startswith(("#", "-e"))) + ("pytest>=8",)
PYTHON_ENV = "INTEGRAL_REWARDS_GYM_PYTHON"


def _version(python: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run([python, "-c", "import sys; print(*sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    major, minor = out.stdout.split()
    return int(major), int(minor)


def find_python() -> str | None:
    """A Python >= 3.12 interpreter, or None."""
    candidates = [os.environ.get(PYTHON_ENV)] if os.environ.get(PYTHON_ENV) else []
    if sys.version_info >= (3, 12):
        candidates.append(sys.executable)
    candidates += [p for p in (shutil.which("python3.13"), shutil.which("python3.12")) if p]
    # pyenv's shims run only the versions it has selected: ask its installs directly.
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates += sorted((str(p) for p in pyenv_root.glob("versions/3.1[2-9]*/bin/python3")),
                         reverse=True)
    for python in candidates:
        version = _version(python)
        if version is not None and version >= (3, 12):
            return python
    return None


def _stamp() -> str:
    text = "\n".join(GYM_REQUIREMENTS) + (REPO / "pyproject.toml").read_text()
    return hashlib.sha256(text.encode()).hexdigest()


def gym_venv(python: str) -> Path:
    """``.venv-gym/bin/python``, built (or rebuilt) when its stamp is stale."""
    venv_python, stamp = VENV / "bin" / "python", VENV / ".stamp"
    if venv_python.exists() and stamp.exists() and stamp.read_text() == _stamp():
        return venv_python
    shutil.rmtree(VENV, ignore_errors=True)
    requirements = list(GYM_REQUIREMENTS) + ["-e", str(REPO)]
    uv = _uv()
    if uv is not None:
        # uv (the dev extra) resolves and installs the ~150 packages in parallel:
        # 7 s from an empty cache on 2 cores, where pip took 60-80 s.
        subprocess.run([uv, "venv", "-q", "--python", python, str(VENV)], check=True,
                       timeout=300)
        subprocess.run([uv, "pip", "install", "-q", "--python", str(venv_python),
                        *requirements], check=True, timeout=1500)
    else:
        subprocess.run([python, "-m", "venv", str(VENV)], check=True, timeout=300)
        # --no-compile: byte-compiling all ~150 packages (ray, mlflow, wandb, ...)
        # was 45 of the install's 98 s on 2 cores; the server's tests import a
        # small part of them, compiled as they are imported.
        pip = [str(venv_python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
               "--no-compile"]
        subprocess.run(pip + requirements, check=True, timeout=1500)
    stamp.write_text(_stamp())
    return venv_python


def _uv() -> str | None:
    """uv's executable: the one of the ``uv`` package if installed, else on the PATH."""
    try:
        import uv
    except ImportError:
        return shutil.which("uv")
    return uv.find_uv_bin()


@pytest.mark.slow
def test_nemo_gym_resources_server_through_nemo_gym(tmp_path):
    python = find_python()
    if python is None:
        pytest.skip(f"nemo-gym needs Python >= 3.12 and none was found (set {PYTHON_ENV})")
    venv_python = gym_venv(python)
    log = tmp_path / "server.log"
    # The server's own tests, with none of this suite's options (xdist, doctests).
    run = subprocess.run(
        [str(venv_python), "-m", "pytest", "-q", "-o", "addopts=", "-p", "no:cacheprovider",
         "--rootdir", str(SERVER_TESTS.parent), str(SERVER_TESTS)],
        cwd=REPO, capture_output=True, text=True, timeout=900,
        env={**os.environ, "NEMO_GYM_TEST_LOG": str(log)})
    server_log = log.read_text()[-3000:] if log.exists() else ""
    assert run.returncode == 0, run.stdout[-6000:] + "\n--- server log ---\n" + server_log
    assert " passed" in run.stdout and "skipped" not in run.stdout, run.stdout[-2000:]

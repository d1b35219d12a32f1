"""The ``integrals`` resources server through NeMo Gym's own code, in a
Python 3.12+ environment with nemo-gym (tests/test_nemo_gym.py builds it and
runs this file there).

The server is started as ``ng_run`` starts a resources server: NeMo Gym's
config parser resolves configs/integrals.yaml (host, port, defaults), and
``python app.py`` runs in this folder with the merged config in
``NEMO_GYM_CONFIG_DICT`` and its name in ``NEMO_GYM_CONFIG_PATH``. ``/verify``
gets Responses-API bodies built with nemo-gym's own models.
"""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil
import pytest
from nemo_gym.global_config import (
    NEMO_GYM_CONFIG_DICT_ENV_VAR_NAME,
    NEMO_GYM_CONFIG_PATH_ENV_VAR_NAME,
    ROLLOUT_INDEX_KEY_NAME,
    TASK_INDEX_KEY_NAME,
    GlobalConfigDictParser,
    GlobalConfigDictParserConfig,
)
from nemo_gym.openai_utils import (
    NeMoGymFunctionCallOutput,
    NeMoGymResponse,
    NeMoGymResponseFunctionToolCall,
    NeMoGymResponseOutputMessage,
    NeMoGymResponseOutputRefusal,
    NeMoGymResponseOutputText,
    NeMoGymResponseReasoningItem,
    NeMoGymSummary,
)
from omegaconf import OmegaConf

SERVER_DIR = Path(__file__).resolve().parents[1]
CONFIG = SERVER_DIR / "configs" / "integrals.yaml"
EXAMPLE = SERVER_DIR / "data" / "example.jsonl"
NAME = "integrals"
WORKERS = 2


def _message(text: str, i: int = 0) -> NeMoGymResponseOutputMessage:
    return NeMoGymResponseOutputMessage(
        id=f"msg_{i}", content=[NeMoGymResponseOutputText(annotations=[], text=text)])


def _response(*items) -> dict:
    return NeMoGymResponse(id="resp_1", created_at=1765000000.0, model="policy", object="response",
                           output=list(items), parallel_tool_calls=False, tool_choice="auto",
                           tools=[]).model_dump(mode="json")


def _call(name: str = "sympy_diff") -> NeMoGymResponseFunctionToolCall:
    return NeMoGymResponseFunctionToolCall(id="fc_1", call_id="call_1", name=name,
                                           arguments='{"expr": "x**3/3"}')


def _tool_output() -> NeMoGymFunctionCallOutput:
    return NeMoGymFunctionCallOutput(call_id="call_1", output="x**2")


def _thinking(text: str) -> NeMoGymResponseReasoningItem:
    return NeMoGymResponseReasoningItem(id="rs_1", summary=[NeMoGymSummary(text=text,
                                                                            type="summary_text")])


def _example_row() -> dict:
    return json.loads(EXAMPLE.read_text().splitlines()[0])


def _body(response: dict, integrand: str = "x**2", variable: str | None = "x") -> dict:
    row = _example_row()
    return {"responses_create_params": row["responses_create_params"], "response": response,
            "integrand": integrand, "variable": variable}


# (case, body, verdict, reason, confidence, reward)
CASES = [
    ("right", _body(_response(_message(r"So $\int x^2\,dx = \boxed{\frac{x^3}{3} + C}$."))),
     "CORRECT", "structural", "symbolic", 1.0),
    ("wrong", _body(_response(_message(r"\boxed{x^3}"))), "WRONG", None, None, 0.0),
    ("no_box", _body(_response(_message("It is x cubed over three."))),
     "UNPARSEABLE", "no_answer", "none", None),
    ("truncated", _body(_response(_message(r"so \boxed{\frac{x^3}{3"))),
     "UNPARSEABLE", "unbalanced", "none", None),
    ("refusal", _body(_response(NeMoGymResponseOutputMessage(
        id="msg_0", content=[NeMoGymResponseOutputRefusal(refusal="I cannot help.")]))),
     "UNPARSEABLE", "no_answer", "none", None),
    ("tool_call_then_answer", _body(_response(
        _message(r"Guess \boxed{x^3}; let me check.", 0), _call(), _tool_output(),
        _message(r"The derivative is off, so \boxed{x^3/3}.", 1))),
     "CORRECT", None, "symbolic", 1.0),
    ("ends_on_a_tool_call", _body(_response(_message(r"Maybe \boxed{x^3/3}.", 0), _call())),
     "UNPARSEABLE", "no_answer", "none", None),
    ("reasoning_item_not_graded", _body(_response(_thinking(r"\boxed{x^3}"),
                                                  _message(r"\boxed{x^3/3}"))),
     "CORRECT", None, "symbolic", 1.0),
    ("variable_inferred", _body(_response(_message(r"\boxed{-\cos t}")), "sin(t)", None),
     "CORRECT", None, "symbolic", 1.0),
    ("bad_integrand", _body(_response(_message(r"\boxed{x}")), "__import__('os')", "x"),
     "CHECKER_ERROR", None, "none", None),
]


@pytest.fixture(scope="module")
def server():
    """(base URL, process) of the server, started as ng_run starts it."""
    section = OmegaConf.load(CONFIG)[NAME]
    section["resources_servers"]["integrals"]["workers"] = WORKERS
    parsed = GlobalConfigDictParser().parse(GlobalConfigDictParserConfig(
        initial_global_config_dict=OmegaConf.create({NAME: section}),
        skip_load_from_cli=True, skip_load_from_dotenv=True))
    instance = parsed[NAME]["resources_servers"]["integrals"]
    env = {**os.environ, NEMO_GYM_CONFIG_DICT_ENV_VAR_NAME: OmegaConf.to_yaml(parsed),
           NEMO_GYM_CONFIG_PATH_ENV_VAR_NAME: NAME}
    log = open(Path(os.environ.get("NEMO_GYM_TEST_LOG", os.devnull)), "w")  # noqa: SIM115
    process = subprocess.Popen([sys.executable, instance["entrypoint"]], cwd=SERVER_DIR, env=env,
                               stdout=log, stderr=subprocess.STDOUT)
    url = f"http://{instance['host']}:{instance['port']}"
    deadline = time.monotonic() + 180
    try:
        while True:
            assert process.poll() is None, f"the server exited with {process.returncode}"
            try:
                if httpx.get(url + "/", timeout=2).json() == {"status": "ok"}:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the server did not come up in 180 s"
            time.sleep(0.5)
        yield url, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.mark.parametrize(("case", "body", "verdict", "reason", "confidence", "reward"), CASES,
                         ids=[c[0] for c in CASES])
def test_verify_returns_the_checkers_verdict(server, case, body, verdict, reason, confidence,
                                             reward):
    url, _ = server
    reply = httpx.post(url + "/verify", json=body, timeout=60)
    assert reply.status_code == 200, reply.text
    out = reply.json()
    assert out["verdict"] == verdict, out
    if reason is not None:
        assert out["reason"] == reason
    if confidence is not None:
        assert out["confidence"] == confidence
    if reward is not None:
        assert out["reward"] == pytest.approx(reward)
    assert isinstance(out["reward"], float)
    assert out["acc"] == (1.0 if verdict == "CORRECT" else 0.0)
    # NeMo Gym's verify contract: the request comes back with the reward.
    assert out["response"]["id"] == body["response"]["id"]
    assert out["integrand"] == body["integrand"]


@pytest.mark.parametrize("body", [
    {"response": _response(_message("x")), "integrand": "x"},       # no responses_create_params
    _body({"id": "resp_1", "output": "not a list"}),                # not a Responses-API output
    {k: v for k, v in _body(_response(_message("x"))).items() if k != "integrand"},
], ids=["no_create_params", "malformed_response", "no_integrand"])
def test_malformed_bodies_are_rejected_by_the_schema(server, body):
    url, process = server
    assert httpx.post(url + "/verify", json=body, timeout=60).status_code == 422
    assert process.poll() is None


def _loky_workers(process: subprocess.Popen) -> list[psutil.Process]:
    children = psutil.Process(process.pid).children(recursive=True)
    # The workers, not loky's resource tracker.
    return [c for c in children if "loky.backend.popen_loky_posix" in " ".join(c.cmdline())]


def test_64_concurrent_verifies_share_one_pool(server):
    url, process = server
    # Distinct integrands x**p, so the cache answers none of them: right,
    # wrong, right plus a constant, wrong, in turn.
    forms = [(r"\boxed{{\frac{{x^{{{n}}}}}{{{n}}}}}", 1.0), (r"\boxed{{x^{{{n}}}}}", 0.0),
             (r"\boxed{{\frac{{x^{{{n}}}}}{{{n}}} + 7}}", 1.0), (r"\boxed{{\sin x}}", 0.0)]
    bodies, expected = [], []
    for i in range(64):
        power = i // 4 + 2
        form, reward = forms[i % 4]
        body = _body(_response(_message(form.format(n=power + 1), i)), f"x**{power}")
        body["response"]["id"] = f"resp_{i}"
        bodies.append(body)
        expected.append(reward)

    async def verify_all() -> list[dict]:
        async with httpx.AsyncClient(base_url=url, timeout=120,
                                     limits=httpx.Limits(max_connections=64)) as client:
            replies = await asyncio.gather(*(client.post("/verify", json=b) for b in bodies))
        assert all(r.status_code == 200 for r in replies), [r.text for r in replies][:3]
        return [r.json() for r in replies]

    out = asyncio.run(verify_all())
    assert [o["response"]["id"] for o in out] == [f"resp_{i}" for i in range(64)]
    assert [o["reward"] for o in out] == expected
    # One reward, one pool: the configured number of checker processes, not one per request.
    assert len(_loky_workers(process)) == WORKERS


def test_aggregate_metrics_counts_verdicts(server):
    url, _ = server
    verified = [httpx.post(url + "/verify", json=case[1], timeout=60).json() for case in CASES[:3]]
    for task, rollout in enumerate(verified):  # what NeMo Gym's rollout collection adds
        rollout.update({TASK_INDEX_KEY_NAME: task, ROLLOUT_INDEX_KEY_NAME: 0})
    reply = httpx.post(url + "/aggregate_metrics", json={"verify_responses": verified}, timeout=60)
    assert reply.status_code == 200, reply.text
    metrics = reply.json()["agent_metrics"]
    assert metrics["verdict/CORRECT"] == pytest.approx(1 / 3)
    assert metrics["verdict/WRONG"] == pytest.approx(1 / 3)
    assert metrics["verdict/UNPARSEABLE"] == pytest.approx(1 / 3)

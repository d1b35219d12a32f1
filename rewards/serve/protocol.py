"""Request bodies in, typed requests out (or a 4xx and a message); response bodies.

Two routes score completions:

* ``POST /get_reward``, OpenRLHF's remote reward protocol (``--reward.remote_url
  http://HOST:PORT/get_reward``): ``{"query": [...], "prompts": [...],
  "labels": [...]}`` (queries are prompt + response; labels are integrands,
  or ``{"integrand": ..., "variable": ...}``;
  ``prompts`` may be left out when the queries are bare responses) ->
  ``{"rewards": [...], "scores": [...], "extra_logs": {...}}``
  (:func:`rewards.integrations.openrlhf.response_body`).
* ``POST /score``, for any other client: ``{"completions": [...],
  "integrands": [...], "variables": [...]}`` (``variables`` optional; a
  completion is a string or a list of chat messages) -> ``{"results": [{"score",
  "reward", "acc", "verdict", "reason", "confidence", "extracted_answer"}, ...]}``.

Anything else about a body (not JSON, not an object, a field of the wrong
type, lists of different lengths) is a :class:`BadRequest` naming the field.

>>> parse_get_reward({"query": ["q"], "labels": ["x"]}, max_items=10).prompts is None
True
>>> parse_get_reward({"query": "q", "labels": ["x"]}, max_items=10)
Traceback (most recent call last):
...
rewards.serve.protocol.BadRequest: 400: 'query' must be a list of strings
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..reward.outcome import completion_text


class BadRequest(ValueError):
    """A request the server answers with ``status`` and ``message`` (never a crash)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


@dataclass(frozen=True)
class RewardRequest:
    """OpenRLHF's body: queries (prompt + response), prompts, labels (integrands)."""

    queries: list[str]
    prompts: list[str] | None
    labels: list[Any]  # an integrand (or None), or {"integrand", "variable"}


@dataclass(frozen=True)
class ScoreRequest:
    """A parsed request: completions, integrands, optional variables."""
    completions: list[str | None]
    integrands: list[str | None]
    variables: list[str | None] | None


def parse_json(body: bytes) -> dict[str, Any]:
    """The JSON body, or a :class:`BadRequest`."""
    try:
        data = json.loads(body.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise BadRequest(f"body is not UTF-8: {exc}") from exc
    except RecursionError as exc:
        raise BadRequest("body nests too deeply") from exc
    except ValueError as exc:
        raise BadRequest(f"body is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise BadRequest(f"body must be a JSON object, not {type(data).__name__}")
    return data


def _list(data: dict[str, Any], key: str, what: str, *, required: bool,
          max_items: int) -> list | None:
    value = data.get(key)
    if value is None:
        if required:
            raise BadRequest(f"{key!r} is required: a list of {what}")
        return None
    if not isinstance(value, list):
        raise BadRequest(f"{key!r} must be a list of {what}")
    if len(value) > max_items:
        raise BadRequest(f"{key!r} has {len(value)} items; at most {max_items} per request",
                         status=413)
    return value


def _same_length(**lists: list | None) -> None:
    sizes = {k: len(v) for k, v in lists.items() if v is not None}
    if len(set(sizes.values())) > 1:
        raise BadRequest("lists of different lengths: "
                         + ", ".join(f"{k} {n}" for k, n in sizes.items()))


def _strings(values: list, key: str) -> list[str]:
    for i, v in enumerate(values):
        if not isinstance(v, str):
            raise BadRequest(f"{key!r} must be a list of strings ({key}[{i}] is "
                             f"{type(v).__name__})")
    return values


def _is_integrand(v: object) -> bool:
    # An integrand is text in SymPy syntax; a bare number ("labels": [1]) is
    # one too (taken as its text). null means "not judged" (CHECKER_ERROR
    # integrand_missing).
    return v is None or (isinstance(v, (str, int, float)) and not isinstance(v, bool))


def _integrands(values: list, key: str) -> list[str | None]:
    for i, v in enumerate(values):
        if not _is_integrand(v):
            raise BadRequest(f"{key!r} must hold integrands as strings ({key}[{i}] is "
                             f"{type(v).__name__})")
    return [None if v is None else str(v) for v in values]


def _labels(values: list) -> list[Any]:
    # OpenRLHF passes the dataset's label column as is: an integrand, or
    # {"integrand": ..., "variable": ...} (rewards.integrations.openrlhf).
    out: list[Any] = []
    for i, v in enumerate(values):
        if isinstance(v, dict):
            integrand, variable = v.get("integrand"), v.get("variable")
            if not (integrand is None or isinstance(integrand, str)) or \
                    not (variable is None or isinstance(variable, str)):
                raise BadRequest(f"labels[{i}]: 'integrand' and 'variable' must be strings")
            out.append({"integrand": integrand, "variable": variable})
        elif _is_integrand(v):
            out.append(None if v is None else str(v))
        else:
            raise BadRequest(f"'labels' must hold integrands (strings) or {{\"integrand\", "
                             f"\"variable\"}} objects (labels[{i}] is {type(v).__name__})")
    return out


def parse_get_reward(data: dict[str, Any], *, max_items: int) -> RewardRequest:
    """OpenRLHF's ``/get_reward`` body as a :class:`ScoreRequest`."""
    queries = _list(data, "query", "strings", required=True, max_items=max_items)
    prompts = _list(data, "prompts", "strings", required=False, max_items=max_items)
    labels = _list(data, "labels", "integrands (strings); OpenRLHF: --data.label_key",
                   required=True, max_items=max_items)
    _same_length(query=queries, prompts=prompts, labels=labels)
    return RewardRequest(_strings(queries, "query"),
                         None if prompts is None else _strings(prompts, "prompts"),
                         _labels(labels))


def parse_score(data: dict[str, Any], *, max_items: int) -> ScoreRequest:
    """The ``/score`` body as a :class:`ScoreRequest`."""
    completions = _list(data, "completions", "strings or chat-message lists", required=True,
                        max_items=max_items)
    integrands = _list(data, "integrands", "strings", required=True, max_items=max_items)
    variables = _list(data, "variables", "strings", required=False, max_items=max_items)
    _same_length(completions=completions, integrands=integrands, variables=variables)
    texts: list[str | None] = []
    for i, c in enumerate(completions or []):
        try:
            text = completion_text(c) if isinstance(c, (list, dict)) else c
        except (TypeError, AttributeError, ValueError):
            text = 0  # not text: reported below
        if text is not None and not isinstance(text, str):
            raise BadRequest(f"'completions' must hold strings or lists of chat messages "
                             f"(completions[{i}] is {type(c).__name__})")
        texts.append(text)
    if variables is not None:
        for i, v in enumerate(variables):
            if v is not None and not isinstance(v, str):
                raise BadRequest(f"'variables' must be a list of strings (variables[{i}] is "
                                 f"{type(v).__name__})")
    return ScoreRequest(texts, _integrands(integrands or [], "integrands"), variables)

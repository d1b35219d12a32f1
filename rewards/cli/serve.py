"""``python -m rewards serve``: the reward over HTTP (:mod:`rewards.serve`)."""
from __future__ import annotations

import argparse
import logging
import os
import sys

from ..reward.config import RewardConfig
from .help import DefaultsFormatter

EXIT_SETUP = 2


def serve_config(args: argparse.Namespace, environ: dict[str, str] | None = None):
    """The :class:`~rewards.serve.settings.ServeConfig` of the command line; the
    token from ``--token``, else from ``$REWARDS_SERVE_TOKEN``."""
    from ..serve.settings import TOKEN_ENV, ServeConfig

    environ = os.environ if environ is None else environ
    return ServeConfig(host=args.host, port=args.port,
                       max_body_bytes=int(args.max_body_mb * 2**20), max_items=args.max_items,
                       extra_logs=args.extra_logs, max_connections=args.max_connections,
                       request_timeout_s=args.request_timeout,
                       token=args.token or environ.get(TOKEN_ENV) or None)


def _configure_logging() -> None:
    # The server's own lines (clients that went away, CHECKER_ERROR, limits
    # hit) with a time, on stderr; a host that set up logging keeps its own.
    if logging.getLogger().handlers:
        return
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("rewards")
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def _serve(args: argparse.Namespace) -> int:
    from ..reward import AntiderivativeReward
    from ..serve.server import serve

    overrides = {k: v for k, v in (("workers", args.workers), ("timeout_s", args.timeout))
                 if v is not None}
    _configure_logging()
    try:
        config = serve_config(args)
        reward = (AntiderivativeReward.from_config(args.config, **overrides) if args.config
                  else AntiderivativeReward(**overrides))
    except (ValueError, OSError) as exc:
        print(f"serve: {exc}", file=sys.stderr)
        return EXIT_SETUP
    try:
        return serve(reward, config)
    except OSError as exc:  # the port is taken, the host cannot be bound
        print(f"serve: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return EXIT_SETUP
    finally:
        reward.close()


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``serve``."""
    from ..serve.settings import EXTRA_LOGS, TOKEN_ENV, ServeConfig

    defaults = ServeConfig()
    parser = sub.add_parser(
        "serve", formatter_class=DefaultsFormatter,
        help="serve the reward over HTTP (OpenRLHF's /get_reward, a plain /score, /health)",
        description="Score completions over HTTP with one worker pool; concurrent requests "
                    "are checked together. POST /get_reward takes OpenRLHF's body "
                    '{"query", "prompts", "labels"}; POST /score takes {"completions", '
                    '"integrands", "variables"}; GET /health. SIGTERM drains and exits.')
    parser.add_argument("--host", default=defaults.host,
                        help="address to bind; the default is loopback only (see "
                             "docs/security.md before binding wider)")
    parser.add_argument("--port", type=int, default=defaults.port, help="0: any free port")
    parser.add_argument("--config", default=None,
                        help="reward YAML (like configs/reward/default.yaml)")
    parser.add_argument("--workers", type=int, default=None,
                        help="checker processes (default: the config's; null = cores / "
                             "LOCAL_WORLD_SIZE)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds per check (default: the config's, "
                             f"{RewardConfig.timeout_s:g})")
    parser.add_argument("--max-body-mb", type=float, default=defaults.max_body_bytes / 2**20,
                        help="larger request bodies get 413")
    parser.add_argument("--max-items", type=int, default=defaults.max_items,
                        help="completions per request")
    parser.add_argument("--extra-logs", choices=EXTRA_LOGS, default=defaults.extra_logs,
                        help="/get_reward's per-sample extra_logs: omit them for OpenRLHF "
                             "0.8.x, whose HTTP client torch.cat's them (lists fail there)")
    parser.add_argument("--max-connections", type=int, default=defaults.max_connections,
                        help="open connections; one more gets 503")
    parser.add_argument("--request-timeout", type=float, default=defaults.request_timeout_s,
                        help="seconds from a request's first byte to its last (else 408)")
    parser.add_argument("--token", default=None,
                        help="require 'Authorization: Bearer TOKEN' (default: $"
                             f"{TOKEN_ENV}, else no token; the variable keeps it out of ps)")
    parser.set_defaults(func=_serve)

"""Help screens that show every default once."""
from __future__ import annotations

import argparse


class DefaultsFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Append ``(default: ...)`` to an option's help unless its default is
    empty (None, False) or the help text already explains it."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if action.default in (None, False, argparse.SUPPRESS) or "default" in text:
            return text
        return super()._get_help_string(action)


def _number(kind: type, *, allow_zero: bool):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if value != value or value < 0 or (value == 0 and not allow_zero):
            raise argparse.ArgumentTypeError(
                f"{text} must be {'>= 0' if allow_zero else '> 0'}")
        return value
    parse.__name__ = kind.__name__  # argparse names the type in its messages
    return parse


# Argument types that reject values which would silently do nothing (a batch
# of 0 rows, a limit of -5 rows) or crash later (a timeout of 0 s).
positive_int = _number(int, allow_zero=False)
positive_float = _number(float, allow_zero=False)
non_negative_int = _number(int, allow_zero=True)

"""Symbolic proof that F' - f is zero: the normal form first (:mod:`.fast`,
:mod:`.normal_form`), then SymPy's transforms under a time box
(:mod:`.ladder`). A failed proof is never evidence of a wrong answer."""

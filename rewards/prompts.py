"""The prompt a policy is trained and evaluated on.

One wording for the GRPO example and the lm-eval task, so a model is
evaluated on the prompt it was trained on.

>>> USER_TEMPLATE.format(integrand="x**2", symbol="x").splitlines()[2]
'    ∫ x**2 dx'
"""
from __future__ import annotations

SYSTEM_PROMPT = (
    "You are a careful mathematician. Solve the integration problem step by step, "
    "then state the final answer."
)
USER_TEMPLATE = (
    "Find the indefinite integral\n\n"
    "    ∫ {integrand} d{symbol}\n\n"
    "The integrand is written in SymPy syntax (** is exponentiation). Reason briefly, "
    "then put the final antiderivative, as a function of {symbol}, inside \\boxed{{}}. "
    "You may omit the constant of integration."
)

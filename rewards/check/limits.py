"""Every bound on what a check reads and on what it spends: one home.

Model output is untrusted: each size bound (:class:`Limits`, two profiles)
keeps the cost of reading and evaluating an input bounded by the input,
never by what it makes SymPy compute. An answer comes from the policy (:data:`ANSWER`); an integrand from a
dataset (:data:`INTEGRAND`), which may have steep features and long texts of
its own but is read by the same safe parsers. A parser or stage takes a
profile and reads its bounds from it; nothing else defines a size bound.

The guards bound what evaluating a parsed expression may cost, not how a
literal looks: ``x^{2024}`` and ``(1-x)^{2015}`` are cheap (SymPy never
expands a power of a sum by itself; d/dx and numeric evaluation are linear in
the exponent's digits), so a power of the variable may have a large
exponent; a power of a *number* is bounded by the size of the number it
makes; and a huge constant that is only an additive term of an answer
(``+ 10^{10^{10}}``) is dropped unevaluated, since it vanishes under d/dx.

What a check does with an input is bounded here too, by :class:`Caps` (one
instance, :data:`CAPS`): how many sample points, features, breakpoints and
switch points the evidence probes, how many digits it adds, how far a proof
goes, how long one point or the fast proof may take, and how much a result,
a log line or a memo keeps. A cap bounds work, not what counts as
evidence; the module that reads one says what a check does on reaching it.
These are two dataclasses, not one, because they vary differently: a
``Limits`` profile depends on who wrote the input (a policy or a dataset),
while a cap is the same for every input; fields of one object would give
each profile copies of the caps that no profile may change. Nothing else in
``rewards/`` defines a ``MAX_*`` bound (``tests/test_limits.py`` checks it).

Not here, because they bound neither what a check reads nor what it spends:
the method's own parameters, where points go and what counts as agreement (``evidence/points.py`` ``SPAN``,
``FAR_SPAN``; ``evidence/numeric.py`` ``LEVELS``, ``GUARD_DIGITS``,
``MIN_USABLE_POINTS``), the size above which compiled code takes a literal as
a value instead of printing it (``evidence/lambdify.py``, a switch of
representation that truncates nothing), the default of a request's own
setting (``proof/ladder.py`` ``LADDER_BUDGET_S``, the default of
``CheckRequest.proof_budget_s``), and the machinery of processes and sockets
(``reward/pool.py``, ``reward/batcher.py``, ``serve/server.py``).

>>> ANSWER.exponent, INTEGRAND.exponent
(5000, 50000)
>>> LATEX_FAST_PATH.sympy_chars == 4 * ANSWER.latex_chars
True
>>> CAPS.breakpoints, CAPS.extra_digits
(48, 4000)
"""
from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Limits:
    """Size bounds of one kind of input (see :data:`ANSWER`, :data:`INTEGRAND`)."""

    # --- text --------------------------------------------------------------
    # A whole response (characters; bytes are refused at 4x this before decoding).
    response_chars: int = 200_000
    # The extracted final answer.
    answer_chars: int = 5_000
    # Raw LaTeX before canonicalization (before any regex runs).
    latex_input_chars: int = 10_000
    # Canonical LaTeX: "too_long" (an extracted answer is at most 5,000 characters).
    latex_chars: int = 8000
    # Text handed to the LaTeX grammar in one call: "too_long" (its time grows
    # with the text: 1.3 s for one 2,500-character term, a fraction holding an
    # expanded polynomial over one denominator).
    latex_chunk_chars: int = 3000
    # Top-level terms of a sum handed to the LaTeX grammar in one call: a
    # longer sum is parsed in chunks of this many terms.
    latex_chunk_terms: int = 16
    # Bracket nesting of LaTeX: "too_deep" (the ANTLR parser's time grows steeply).
    latex_depth: int = 20
    # x^{x^{x^{x^{...}}}}: "too_deep".
    script_depth: int = 4
    # Braced ^{...} / _{...} groups per grammar call: "too_deep".
    script_groups: int = 40
    # '|' characters per grammar call: "too_deep".
    bars: int = 40
    # Tokens the fast LaTeX-to-Python translation handles.
    fast_tokens: int = 4000
    # e^{e^{e^{...}}} nesting the canonicalizer rewrites.
    exp_nesting: int = 8
    # Wrappers (\boxed, \text, ...) peeled off one answer.
    unwrap_depth: int = 8
    # SymPy-syntax text: characters, nesting (brackets and tree levels; a flat
    # a+b+c+... is one level) and AST nodes.
    sympy_chars: int = 5000
    sympy_depth: int = 60
    sympy_nodes: int = 5000

    # --- numbers -----------------------------------------------------------
    # All exact constants of a LaTeX answer together (bits): "number_too_large"
    # (str() of an int over 4300 digits raises ValueError).
    const_bits: int = 12_000
    # Constant base of a non-integer power (sqrt of a huge integer makes SymPy
    # hunt for perfect powers: seconds).
    root_base_bits: int = 200
    # Significant digits of a decimal literal: "number_too_large".
    decimal_digits: int = 100
    # Integer literals of SymPy text: nobody writes a 100-digit constant in an
    # antiderivative, and huge literals only feed attacks.
    literal_digits: int = 100
    # Every number SymPy may produce while a SymPy-text answer is built (~10^1000).
    number_digits: int = 1000
    # Numeric radicals (2^(1/3), sqrt(p/q)) make SymPy trial-factor the radicand,
    # and products of radicals merge into one; >100 digits costs seconds
    # (sqrt of a 1000-digit rational: ~1.4 s).
    radicand_digits: int = 100

    # --- powers ------------------------------------------------------------
    # |numeric exponent| of a power whose base is a function of the variable
    # only (x^{2024}, (1-x)^{2015}, \tan^{2025} x), and every number inside a
    # symbolic exponent is bounded by exponent_coefficient (e^{6048x}).
    exponent: int = 5000
    exponent_coefficient: int = 100_000
    # A base holding any other symbol (an integration constant, a stray
    # letter, a parameter): SymPy asks assumption questions about such a base
    # that can expand the power (cost ~n^3 for a complex base: 0.3 s at 100).
    symbolic_exponent: int = 100
    # A constant exponent (2^{n}, e^{n}) is bounded by the number it makes;
    # the numbers *inside* a constant exponent stay below this (exp(c log a)
    # becomes a**c, so c and a must stay small for the result to stay cheap).
    constant_exponent: int = 1000
    # e^{c} with c a plain number (e^{-1500}, a far switch written
    # e^{-1500}e^{x}) stays an unexpanded exp node and costs nothing to read;
    # a constant smaller than the numeric confirmation resolves (its extra
    # digits, Caps.extra_digits) gets no numeric-only
    # accept, only a proof.
    e_exponent: int = 20_000
    # A power of a base holding i, (x + i)^{n}: its real and imaginary parts
    # are dense polynomials that SymPy's realness queries expand (a query on
    # cosh(2^{(x+i)^{20}}) built a 600k-entry array, 6 s).
    complex_exponent: int = 10

    # --- functions ---------------------------------------------------------
    # n!, Gamma(n), binomial(n, k) with a constant n are computed exactly.
    factorial_arg: int = 1000
    # uppergamma/lowergamma/polylog/zeta with an integer order n expand into
    # O(n) terms with big coefficients (uppergamma(1000, x) takes seconds).
    special_order: int = 20
    # Special-function calls lifted out of one LaTeX answer.
    special_calls: int = 20
    # Functions of constants: towers of constants defeat SymPy's sign
    # decisions (sinh(sinh(sinh(sinh(sinh(2))))) hangs; erfi(10**999) makes
    # any later sign query hang): a function may take a constant that holds no
    # function itself (height 1), of modulus at most constant_arg unless the
    # function grows slowly (log, atan, Abs, ...).
    constant_height: int = 1
    constant_arg: int = 1000
    # Arguments of Max/Min (each a comparison SymPy may try to decide).
    minmax_args: int = 8

    # --- structure ---------------------------------------------------------
    # Top-level terms of a sum (an expanded polynomial of degree 300 has 301).
    terms: int = 600
    # Pieces of one piecewise answer (cases environment or Piecewise(...)),
    # cases environments in one answer, and the power of the variable a
    # piece's condition may hold.
    pieces: int = 12
    case_environments: int = 5
    condition_power: int = 4


# What the policy writes.
ANSWER = Limits()

# What a dataset holds: integrands may have steep features of their own
# (e^{-10^6 (x-1)^2}, x^{20000}) and long SymPy texts, but come from people,
# not from a policy learning to exploit the parser.
INTEGRAND = replace(ANSWER, exponent=50_000, exponent_coefficient=10**15,
                    sympy_chars=20_000, sympy_depth=200, sympy_nodes=20_000,
                    # e^{-300}, 10^{-700} x or a 1e-12-wide bump written out as exact
                    # integers in SymPy text: numbers of a few thousand digits are
                    # cheap to build and to evaluate.
                    literal_digits=2000, number_digits=5000,
                    # 10**(-1423) as a term: a power of a number is bounded by
                    # the number it makes (number_digits), not by its exponent.
                    constant_exponent=5000)

# SymPy text that the fast LaTeX path translated from LaTeX already bounded
# by latex_chars and latex_depth: the translation is up to 4x longer and
# nests brackets deeper than the LaTeX it came from.
LATEX_FAST_PATH = replace(ANSWER, sympy_chars=4 * ANSWER.latex_chars, sympy_depth=200,
                          sympy_nodes=20_000)

PROFILES = {"answer": ANSWER, "integrand": INTEGRAND, "latex_fast_path": LATEX_FAST_PATH}


@dataclass(frozen=True)
class Caps:
    """How much one check may spend, keep and show (see :data:`CAPS`)."""

    # --- time --------------------------------------------------------------
    # Time one point's evaluation may take before the point counts as unusable:
    # exp(cos(exp(z))) at |z| = 30 builds a number with 10^12 digits.
    point_seconds: float = 0.25
    # Time the normal-form fast proof may take before the ladder gets its
    # turn: its median is a few ms, its 99th percentile well under this.
    fast_proof_seconds: float = 0.3

    # --- sample points (evidence/points.py, evidence/domain.py) ------------
    # A check probes at most this many breakpoints (the ones nearest the origin);
    # an answer with more gets no numeric-only accept on the real line.
    breakpoints: int = 48
    # A periodic argument (tan x) has hundreds of roots within SPAN: the ones of
    # a few periods around the origin are kept.
    periodic_roots: int = 12
    # Degree up to which a polynomial argument's real roots are isolated exactly.
    exact_root_degree: int = 60
    # Features a check probes for localized terms, the nearest the origin first.
    features: int = 24
    # Function arguments whose critical points a check looks for (the largest
    # first): each costs a derivative and a root scan.
    critical_arguments: int = 32
    # A check probes at most this many switch points (the ones farthest out
    # first: the near ones lie among the generic points already).
    switches: int = 16
    # Degree up to which a growing power's base is solved for its switch points.
    switch_base_degree: int = 8
    # Most points the domain analysis adds inside bounded gaps when asked to
    # fill them.
    fill_points: int = 48

    # --- precision (evidence/numeric.py, evidence/domain.py) ---------------
    # Most digits added to the confirmation levels, for a long literal or for
    # the size of the values: a literal that needs more leaves a change of its
    # size unresolved (e^{-5000}), and the check gets no numeric-only accept.
    extra_digits: int = 4000
    # Most digits the size of the values adds to the strict levels.
    size_digits: int = 1200
    # Most additive terms of F' that the search for terms invisible at every
    # sample point sizes one by one.
    sized_terms: int = 400
    # Most digits a difference found far out (beyond FAR_OUT) is evaluated
    # with again, to tell a cancellation from a real difference.
    far_digits: int = 600
    # Most digits an answer undefined at a point is evaluated with again before
    # the point counts as outside its real domain.
    retry_digits: int = 2000
    # log2 of the largest magnitude evaluated. mpmath keeps a number's binary
    # exponent as a Python int, so ``x^(x^x)`` at x = 300 is cheap but one more
    # level needs an exponent of 10^740 bits: one C-level allocation that no
    # timer interrupts, which grew a process to 24 GB. Past this bound the point
    # is skipped (not "undefined": a correct e^{e^x} far out is only too big).
    log2_magnitude: int = 2**40
    # |exponent| above which a number's power (3**(10**8)) keeps an expression
    # out of SymEngine's double-precision first look (evidence/first_look.py):
    # SymEngine computes such a power exactly as it converts it, in C.
    first_look_exponent: int = 256
    # Points the first look hands to the 30/60-digit test before the screen
    # evaluates them all.
    first_look_tries: int = 2

    # --- proofs (proof/normal_form/) ---------------------------------------
    # Integer powers of a sum are expanded in full: (1+x)**10**6 would never
    # return.  Powers of one term (x**N, exp(N*x)) are sparse and cheap.
    sum_power: int = 200
    # Terms a normal-form polynomial operation may produce (a product: the
    # product of the lengths; a power: the monomial count). flint's C code
    # cannot be interrupted, and aborts the process when memory runs out;
    # below this one operation takes at most ~0.2 s. A trig identity of the
    # Rubi set needs 383,000 (4.7.7 #3, proved in ~0.2 s).
    polynomial_terms: int = 500_000
    term_power: int = 5000
    # Integers at most this large are split into primes for log(c) and
    # c**(p/q); larger ones stay whole (sound, merely less complete).
    factored_int: int = 10**12
    # Restarts of the conversion (more generator slots, wider exp units,
    # radical degrees) before giving up.
    replans: int = 8

    # --- what is kept and shown --------------------------------------------
    # Leaves whose srepr bytes the sample-point seed memoizes (the memo is
    # cleared when full): its memory stays bounded over a training run.
    seed_leaves: int = 4096
    # Whole expressions whose structure bytes the seed and the memo keys
    # memoize (a check digests its F' twice, a group shares its integrand);
    # cleared when full, like the leaves.
    seed_streams: int = 512
    # Calls and operations of parsed answers kept by their text, per set of
    # parser bounds (parse/sympy_text/builder.py, _Builder.build); cleared
    # when full.
    built_subterms: int = 8192
    # Nodes of parsed answers kept with their plain-symbol copy (the same
    # file, _to_plain); cleared when full.
    plain_nodes: int = 65_536
    # Nodes rebound to real symbols that are kept (prepare/real.py,
    # bind_real), per set of names rebound and for so many sets; cleared
    # when full.
    rebound_nodes: int = 20_000
    rebound_name_sets: int = 8
    # Expressions whose free symbols a worker keeps (reward/pool.py,
    # _cached_free_symbols); cleared when full.
    free_symbol_sets: int = 100_000
    # SymPy's constructor cache in a worker (SYMPY_CACHE_SIZE; SymPy's own
    # default is 1,000).
    sympy_cache_entries: int = 20_000
    # Allocations between a worker's young-generation collections (Python's
    # default is 700; reward/pool.py, _quiet_collector).
    young_collection_allocations: int = 10_000
    # Integrands a reward has warned about (several free symbols, none given):
    # once each, up to this many.
    warned_integrands: int = 10_000
    # Check requests a reward keeps, one per variable (a dataset names a handful).
    requests_by_variable: int = 1024
    # Candidates an extraction lists in its dict and its explanation.
    listed_candidates: int = 16
    # Expressions up to this many nodes are printed whole (about 500 characters).
    shown_whole_nodes: int = 120
    # Integers longer than this are printed by their size: str() of an int past
    # 4300 digits raises (Python's int_max_str_digits, a process-wide setting
    # that is not ours to raise), and a 1000-digit number says nothing in a trace.
    printed_int_digits: int = 200
    # A value quoted in a log line (an integrand, a request line) is cut to this
    # many characters: a 40 KB label made a 40 KB warning per sample.
    log_value_chars: int = 200
    # Invalid input rows the offline scorer names one by one on stderr before
    # the rest are counted.
    row_warnings: int = 5


# The caps every check runs under.
CAPS = Caps()

__all__ = ["ANSWER", "CAPS", "INTEGRAND", "LATEX_FAST_PATH", "PROFILES", "Caps", "Limits"]

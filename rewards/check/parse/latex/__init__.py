"""LaTeX answers to SymPy: special calls and ``cases`` lifted out
(:mod:`.special`, :mod:`.cases`), named canonicalization rules
(:mod:`.canon`, :mod:`.functions`), then the plain-expression path
(:mod:`.to_python`) or the grammar (:mod:`.grammar`) under its limits
(:mod:`.guards`, :mod:`.sums`)."""

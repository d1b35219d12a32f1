"""Numeric evidence that F' = f: seeded sample points and features
(:mod:`.points`), the multi-precision comparison (:mod:`.numeric`), the
domain rule (:mod:`.domain`), continuity at F's jumps (:mod:`.continuity`),
gathered for one check by :mod:`.gather`."""

"""From the two texts to F' and f: read both (:mod:`.ingest`), choose the
variable (:mod:`.variable`), drop integration constants (:mod:`.constants`),
make the variable and parameters real (:mod:`.real`, :mod:`.piecewise`) and
differentiate (:mod:`.derivative`)."""

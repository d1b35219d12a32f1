"""Datasets in and out: offline scoring, backends, shaping ablation.

:mod:`.io` (jsonl/parquet/csv/datasets in, jsonl/parquet out, resumable),
:mod:`.batch` (rows -> scored rows through the reward), :mod:`.backends`
(local pool or :mod:`.ray_backend`), :mod:`.scoring` (the ``score`` run and
its summary), :mod:`.ablation` (compare shaping presets on stored verdicts).
"""

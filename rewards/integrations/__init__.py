"""The reward in RL stacks other than TRL: verl (:mod:`.verl`), OpenRLHF's
file mode (:mod:`.openrlhf`); the HTTP server is :mod:`rewards.serve`.

Every adapter scores through one :class:`~rewards.AntiderivativeReward` per
process and configuration (:func:`.common.shared_reward`), so the per-sample
calls these stacks make from their thread pools are batched together, and
reports a number for every sample: these stacks cannot take ``None``.
"""

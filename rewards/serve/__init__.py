"""The reward over HTTP: ``python -m rewards serve``.

:mod:`.protocol` (request bodies in, typed requests or a 4xx with a message
out; response bodies), :mod:`.server` (the standard library's threading HTTP
server over one :class:`~rewards.AntiderivativeReward`, whose batcher checks
concurrent requests together; SIGTERM drains), :mod:`.settings` (every server
default).
"""

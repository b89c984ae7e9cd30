"""Continuous audit: follow a live seal host's receipts and audit chain, checkpointed.

``verify --follow`` (docs/follow.md) is this package under a thin command: ``tail`` (a
followed file: fingerprint, appended lines, rotation), ``folders`` (a receipt directory),
``remote`` (an object-storage prefix, polled), ``judge`` (receipts verified as they land,
sessions re-derived in order), ``chain`` (the stderr audit chain, record by record), ``store``
(checkpoints committed with the history), ``events`` (one JSON line per receipt and
finding), ``engine`` (one batch: step, commit), ``waiting`` (file events or polling),
``metrics`` (Prometheus) and ``loop`` (signals, ``--on-fail``, the exit code).
"""

"""``python -m sealverify.bench``: run the benchmark (sealverify.bench.run)."""

from sealverify.bench.run import main

raise SystemExit(main())

"""``python -m benchmarks``: run the benchmark (benchmarks.run)."""

from benchmarks.run import main

raise SystemExit(main())

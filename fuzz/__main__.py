"""``python -m fuzz``: run the harnesses (see :mod:`fuzz.run`)."""

from fuzz.run import main

main()

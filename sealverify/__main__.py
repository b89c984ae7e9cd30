"""``python -m sealverify``: the same command as ``sealverify``."""

from sealverify._internal.cli.main import main

if __name__ == "__main__":
    main()

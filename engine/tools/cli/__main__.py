"""``python -m engine.tools.cli``: the ``tickswap`` command."""

from engine.tools.cli import main

if __name__ == "__main__":
    raise SystemExit(main())

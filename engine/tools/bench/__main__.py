"""``python -m engine.tools.bench``: the same as ``tickswap bench``."""

from engine.tools.bench.suite import main

if __name__ == "__main__":
    raise SystemExit(main())

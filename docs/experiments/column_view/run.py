"""An experiment behind docs/guides/performance.md: an entity's ``x`` as a view of a column.

Issue 20 asked for the buffered state in per-world float64 columns with the entity's
attributes as views of them. This builds a minimal such view (``column_view.c``: ``x``
read and written through a C getter and setter on a float64 column) in a temporary
directory and times the same update, ``self.x += self.vx``, on 10,000 entities whose
``x`` is a view, against 10,000 whose ``x`` is a slot (as the engine's entities are) and
10,000 plain objects, interleaved, on the Python that runs it. It needs a C compiler and
setuptools; it is not part of the engine.

    python docs/experiments/column_view/run.py
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path
from typing import Any

COUNT = 10_000


def build(where: Path) -> Any:
    """Compile column_view.c in ``where`` and import it."""
    source = Path(__file__).with_name("column_view.c")
    shutil.copy(source, where / source.name)
    (where / "setup.py").write_text(
        "from setuptools import setup, Extension\n"
        "setup(name='column_view', ext_modules=[Extension('column_view', ['column_view.c'])])\n")
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=where, check=True,
                   stdout=subprocess.DEVNULL)
    built = next(where.glob("column_view*.so"), None) or next(where.glob("column_view*.pyd"))
    spec = importlib.util.spec_from_file_location("column_view", built)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    """Print the time of 10,000 updates per layout, and its ratio to the slot layout."""
    with tempfile.TemporaryDirectory() as folder:
        column_view = build(Path(folder))

        class Slotted:
            __slots__ = ("__dict__", "x")

        class SlotEntity(Slotted):
            def __init__(self) -> None:
                self.x = 0.0
                self.vx = 1.5

            def update(self) -> None:
                self.x += self.vx

        class ViewEntity(column_view.Viewed):  # type: ignore[misc, name-defined]
            def __init__(self) -> None:
                super().__init__()
                self.vx = 1.5

            def update(self) -> None:
                self.x += self.vx

        class Plain:
            def __init__(self) -> None:
                self.x = 0.0
                self.vx = 1.5

            def update(self) -> None:
                self.x += self.vx

        layouts = {"slot (the engine's)": SlotEntity, "view of a float64 column": ViewEntity,
                   "plain object": Plain}
        crowds = {name: [kind() for _ in range(COUNT)] for name, kind in layouts.items()}
        best = {name: float("inf") for name in layouts}
        for _ in range(9):  # interleaved rounds: a noisy neighbour slows every layout alike
            for name, crowd in crowds.items():
                def run(crowd: list[Any] = crowd) -> None:
                    for entity in crowd:
                        entity.update()
                best[name] = min(best[name], timeit.timeit(run, number=20) / 20)
        commit = min(timeit.repeat(column_view.commit, number=200, repeat=5)) / 200
        version = ".".join(map(str, sys.version_info[:3]))
        print(f"{COUNT} x `self.x += self.vx`, Python {version} (best of 9 interleaved rounds)")
        slot = best["slot (the engine's)"]
        for name, seconds in best.items():
            print(f"  {name:28s} {seconds * 1e3:7.3f} ms  {seconds / slot:5.2f}x the slot")
        print(f"  {'commit: copy the column':28s} {commit * 1e3:7.3f} ms")


if __name__ == "__main__":
    main()

"""``tickswap lab``: every game loop on the same scenario, on a simulated machine (``engine.tools.lab``)."""

from __future__ import annotations

from engine.disk.atomic import AtomicFile, OutputError
from engine.files.game import GameError
from engine.files.importer import load_game
from engine.tools import lab
from engine.tools.cli.options import LabOptions
from engine.tools.cli.outputs import check_outputs
from engine.tools.errors import UsageError, shown

__all__ = ["MAX_LAB_UPDATES", "lab_command"]

MAX_LAB_UPDATES = 1_000_000
"""The most updates ``tickswap lab`` simulates per loop (its traces are kept whole, for the table)."""


def lab_command(args: LabOptions) -> int:
    """``tickswap lab``: the loops side by side on a simulated machine, as a table (and a chart with ``--png``)."""
    if args.scenario != "ball":
        try:
            load_game(args.scenario)
        except GameError as error:
            raise UsageError(f"unknown scenario {shown(args.scenario)}; use 'ball' or a game ({error})") from None
    try:
        machine = lab.machine_from_args(
            args.machine, update_ms=args.update_ms, render_ms=args.render_ms, jitter_ms=args.jitter_ms,
            stall_at_ms=args.stall_at_ms, stall_ms=args.stall_ms, seed=args.seed)
    except ValueError as error:
        raise UsageError(str(error)) from None
    updates = args.seconds * args.ups
    if updates > MAX_LAB_UPDATES:  # each value in range, the product not: refused before it eats the memory
        raise UsageError(f"--seconds {args.seconds:g} at --ups {args.ups:g} is {updates:,.0f} updates per loop; "
                         f"the lab simulates at most {MAX_LAB_UPDATES:,}: shorten --seconds or lower --ups")
    if args.png:
        # The chart is an output like a screenshot: a PNG, into a directory that exists.
        check_outputs(pictures=[("--png", args.png)])

    def scenario() -> lab.Scenario:
        return lab.BallScenario() if args.scenario == "ball" else lab.GameScenario(args.scenario, seed=args.seed)

    reports = lab.run_lab(scenario, machine, seconds=args.seconds, ms_per_update=1000 / args.ups)
    print(f"scenario {args.scenario}, {args.seconds:g} s at {args.ups:g} updates/s, machine: update "
          f"{machine.update_ms:g} ms, render {machine.render_ms:g} ms, jitter ±{machine.jitter_ms:g} ms"
          + (f", stall {machine.stall_ms:g} ms at {machine.stall_at_ms:g} ms"
             if machine.stall_at_ms is not None else ""))
    print(lab.format_report(reports))
    if args.png:
        try:
            from engine.render.chart import draw_timelines

            with AtomicFile(args.png, suffix=".png") as output:
                draw_timelines(reports, args.png, file=output.open("wb"))
                output.commit()
        except OutputError as error:
            raise UsageError(str(error)) from None
        except OSError as error:
            raise UsageError(f"cannot write {args.png}: {error.strerror or error}") from None
        except Exception as error:
            raise UsageError(f"cannot draw the chart ({type(error).__name__}: {error}); the table above is complete") \
                from None
        print(f"chart written to {args.png}")
    return 0

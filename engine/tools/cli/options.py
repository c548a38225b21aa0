"""The ``tickswap`` command's options: every number and name checked as it is parsed, refused in one line.

A value argparse accepts is one the run can use: counts from 1 to 10**9, durations that
fit a clock, rates that give a step a clock can hold, seeds from 0 (``random.seed(-3)``
is ``random.seed(3)``), file names that are not empty. ``Parser`` prints a mistake as one
line naming the option and the value instead of a usage block. ``engine.run(build)``
takes the same ``run`` options (``add_run_options``), and after ``--host``/``--join`` the
session's (``add_host_options``, ``add_join_options``).

This is the only module that imports argparse: each command's Namespace ends here, made
into frozen dataclasses (``RunOptions``, ``ReplayOptions``, ``HostOptions``, ``JoinOptions``
...) that the commands read and never change.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from engine.constants import DEFAULT_MS_PER_UPDATE, MAX_INPUT_DELAY, MAX_PLAYERS, MS_PER_UPDATE_RANGE
from engine.display import Display, DisplayOption, display_options
from engine.json_events import add_json_option
from engine.messages import one_line, shown
from engine.net.emulate import MIN_REBIND_MS, Emulation
from engine.net.integrity import REJOIN_CODE_HEX, read_rejoin_code
from engine.net.nat import NAT_KINDS
from engine.net.rendezvous import DEFAULT_PORT as DEFAULT_RENDEZVOUS_PORT
from engine.state.names import __version__
from engine.tools.errors import UsageError

if TYPE_CHECKING:
    from engine.tools.ship.build import PackageOptions

__all__ = ["DIGITS", "SESSION_PORT", "CheckOptions", "HostOptions", "JoinOptions", "LabOptions", "Outputs", "Parser",
           "PeerOptions", "RendezvousOptions", "ReplayOptions", "RoomOptions", "RunOptions", "SeedsOptions",
           "SoakOptions", "add_display_options", "add_host_options", "add_join_options", "add_run_options",
           "add_session_commands", "build_parser", "check_options", "count", "display_of", "host_options",
           "join_options", "lab_options", "package_options", "rendezvous_options", "replay_options", "run_options",
           "seeds_options", "soak_options", "whole", "whole_number"]

MAX_MS = 1e7
"""The longest duration (ms) an option accepts: under three hours."""
# The rates whose step (1000 / rate) a game may have (``MS_PER_UPDATE_RANGE``): a run at
# any accepted rate can be recorded and replayed. Rounded inwards, so every rate in the
# range gives a step in the game's range.
UPS_RANGE = (math.ceil(1000 / MS_PER_UPDATE_RANGE[1] * 1000) / 1000, math.floor(1000 / MS_PER_UPDATE_RANGE[0]))
MAX_COUNT = 10**9


_GIVEN = "_tickswap_given"
"""The namespace attribute where ``_StoreOnce`` keeps what each single-value option was given (while parsing)."""


class _StoreOnce(argparse.Action):
    """argparse's ``store``, refusing an option given twice: argparse keeps the last one, silently.

    ``--input a.jsonl --input b.jsonl`` ran with ``b.jsonl`` alone; now it is refused in one
    line naming both (``--input is given twice (a.jsonl, b.jsonl): give it once``). It is
    every ``Parser``'s default action (``_once``), so no command's option is missed; an
    option meant to repeat says so with ``action="append"``, and a flag (``store_true``) given
    twice means what it means once.
    """

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        if option_string is not None:  # a positional is taken once by argparse itself
            given: dict[str, tuple[str, Any]] = getattr(namespace, _GIVEN, None) or {}
            if self.dest in given:
                first_option, first = given[self.dest]
                named = option_string if first_option == option_string else f"{first_option} (or {option_string})"
                parser.error(f"{named} is given twice ({_said(first)}, {_said(values)}): give it once")
            given[self.dest] = (option_string, values)
            setattr(namespace, _GIVEN, given)
        setattr(namespace, self.dest, values)  # what argparse's own store does


def _said(values: Any) -> str:
    """An option's value as the command line gave it (the words of one of several values, spaced; ``--room``
    with none: "no value")."""
    if values is None or values == "":
        return "no value"
    return " ".join(map(str, values)) if isinstance(values, list) else str(values)


def _once(parser: argparse.ArgumentParser) -> None:
    """Make ``parser``'s single-value options (``store``, argparse's default action) refuse a second occurrence."""
    parser.register("action", None, _StoreOnce)
    parser.register("action", "store", _StoreOnce)


def _namespace(parsed: argparse.Namespace) -> argparse.Namespace:
    """``parsed`` without ``_StoreOnce``'s bookkeeping: the options alone, as argparse gives them."""
    if hasattr(parsed, _GIVEN):
        delattr(parsed, _GIVEN)
    return parsed


class Parser(argparse.ArgumentParser):
    """argparse, with its mistakes in one line (``tickswap: --ups: expected ...``) instead of a usage block.

    No abbreviations: ``--tick 100`` is refused, not taken as ``--ticks`` (an option added
    later would silently change what an abbreviation in someone's script means). Every
    subcommand's parser is a ``Parser`` too, so none of them takes one either. Nor does any
    take a single-value option twice (``_StoreOnce``): ``--input a --input b`` is refused.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        _once(self)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """argparse's, without the bookkeeping of ``_StoreOnce`` in the namespace it returns."""
        parsed, extras = super().parse_known_args(args, namespace)
        return _namespace(parsed), extras
        self.commands: dict[str, Parser] = {}
        """The subcommands' parsers by name (``build_parser`` fills it; empty without subcommands)."""

    def error(self, message: str) -> NoReturn:
        print(one_line(f"{self.prog}: {message} (see {self.prog} --help)"), file=sys.stderr)
        raise SystemExit(2)

    def parse_command(self, argv: list[str]) -> argparse.Namespace:
        """``parse_args``, with words no option takes refused by the subcommand they follow.

        argparse leaves them to the top parser, so ``tickswap replay r.jsonl --seed 3`` said
        ``tickswap: unrecognized arguments`` where ``run``'s mistakes say ``tickswap run: ...``.
        """
        parsed: argparse.Namespace
        extras: list[str]
        parsed, extras = self.parse_known_args(argv)
        if extras:
            command = self.commands.get(getattr(parsed, "command", None) or "", self)
            command.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed


DIGITS = re.compile(r"-?[0-9]{1,100}")
"""A whole number as a command line writes it: ASCII digits, maybe a minus. ``int()`` also takes
``" 5"``, ``"+5"``, ``"1_000"`` and other scripts' digits, which a typo or a paste can bring in."""


def whole_number(text: str) -> int:
    """``text`` as a whole number (``DIGITS``), or the argparse error that names it."""
    if not DIGITS.fullmatch(text):
        raise argparse.ArgumentTypeError(f"expected a whole number, got {shown(text)}")
    return int(text)


def whole(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high``; out of range, one line naming both ends."""
    def parse(text: str) -> int:
        value = whole_number(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected a number from {low} to {high}, got {shown(value)}")
        return value
    parse.__name__ = f"whole_{low}_to_{high}"
    parse.__doc__ = f"An argparse type: a whole number from {low} to {high}."
    return parse


count = whole(1, MAX_COUNT)
"""An argparse type: a whole number from 1 to ``MAX_COUNT`` (ticks, frames, a tick to save at)."""
ticks_from_0 = whole(0, MAX_COUNT)
"""An argparse type: ``run --ticks``, from 0 (the world as ``build`` left it: a screenshot before the first tick)."""
players = whole(1, MAX_PLAYERS)
"""An argparse type: a number of players from 1 to ``MAX_PLAYERS`` (what a world takes); within it, a count
the game does not take is refused later, naming the game's own range."""


def _number(text: str, low: float, high: float, unit: str, zero_allowed: bool) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number{unit}, got {shown(text)}") from None
    if not math.isfinite(value) or not (low <= value <= high) or (value == 0 and not zero_allowed):
        raise argparse.ArgumentTypeError(f"expected a finite number{unit} from {low:g} to {high:g}, got {shown(text)}")
    return value


def _non_negative_ms(text: str) -> float:
    return _number(text, 0.0, MAX_MS, " of milliseconds", True)


def _ups(text: str) -> float:
    return _number(text, *UPS_RANGE, " of updates per second", False)


def _seconds(text: str) -> float:
    return _number(text, 0.001, 86_400.0, " of seconds", False)


def _rewind(text: str) -> float:
    return _number(text, 0.0, 3600.0, " of seconds", True)


def _seed(text: str) -> int:
    value = whole_number(text)
    if not 0 <= value < 2**64:
        # random.seed(-3) is random.seed(3): a negative seed would silently be another one.
        raise argparse.ArgumentTypeError(f"expected a seed from 0 to 2**64-1, got {shown(value)}")
    return value


def _hash_seeds(text: str) -> int:
    value = whole_number(text)
    if value != 0 and not 2 <= value <= 16:
        # One process compares with nothing; 0 is how the check is skipped.
        raise argparse.ArgumentTypeError(f"expected 0 (skip) or 2 to 16 processes, got {shown(value)}")
    return value


def _saves(text: str) -> int:
    value = whole_number(text)
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"expected 0 (skip) to 100 saves, got {shown(value)}")
    return value


def _file_name(text: str) -> str:
    if not text:
        raise argparse.ArgumentTypeError("expected a file name, got ''")
    return text


def _dest(option: DisplayOption) -> str:
    return option.flag.lstrip("-").replace("-", "_")


def _display_type(option: DisplayOption) -> Callable[[str], float]:
    def read(text: str) -> float:
        try:
            return option.read(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    read.__name__ = f"_{option.name}"  # named for its option, as the hand-written types are
    return read


def add_display_options(command: argparse.ArgumentParser) -> None:
    """``Display``'s options, each made from the field that declares it (``engine.display``)."""
    for option in display_options():
        default = getattr(Display(), option.name)
        if isinstance(default, bool):
            command.add_argument(option.flag, dest=_dest(option), action="store_true", help=option.help)
        elif option.choices:
            command.add_argument(option.flag, dest=_dest(option), choices=list(option.choices), default=default,
                                 help=option.help)
        else:
            command.add_argument(option.flag, dest=_dest(option), type=_display_type(option), default=default,
                                 help=option.help)


def display_of(args: argparse.Namespace) -> Display:
    """The ``Display`` a command's parsed options ask for: a switch flips its field's default."""
    chosen: dict[str, Any] = {}
    for option in display_options():
        given = vars(args)[_dest(option)]
        default = getattr(Display(), option.name)
        chosen[option.name] = (not default if given else default) if isinstance(default, bool) else given
    return Display(**chosen)


def add_run_options(run: argparse.ArgumentParser) -> None:
    """The options of ``tickswap run``, which ``python game.py`` (``engine.run``) takes too."""
    add_display_options(run)
    add_json_option(run)
    run.add_argument("--frames", type=count, help="stop after N frames (headless default: 180)")
    run.add_argument("--ticks", type=ticks_from_0, help="run N ticks of logic, no rendering, as fast as possible "
                     "(with --headless --screenshot PNG: then draw the state after tick N; 0: before the first)")
    run.add_argument("--screenshot", metavar="PNG", type=_file_name, help="save the last frame as a PNG")
    run.add_argument("--ups", type=_ups, help="updates per second (default: the game's own)")
    run.add_argument("--seed", type=_seed, help="seed for world.random (default 0; a loaded save keeps its own)")
    run.add_argument("--players", type=players, help="how many players the world has (default: the fewest the game "
                     "takes; a loaded save keeps its own); --input lines name theirs with \"player\": P")
    run.add_argument("--record", metavar="FILE", type=_file_name,
                     help="record every tick's input and state hashes as a replay")
    run.add_argument("--save-at", nargs=2, metavar=("N", "FILE"), type=str, action="append",
                     help="save the world to FILE after tick N (may be given several times)")
    run.add_argument("--load", metavar="FILE", type=_file_name,
                     help="start from a saved world instead of the game's beginning")
    run.add_argument("--input", metavar="FILE", type=_file_name,
                     help="feed scripted input: JSON lines {\"tick\": N, \"input\": [[type, key, x, y], ...]}")
    run.add_argument("--watch", action="store_true",
                     help="reload the game when its code, a module beside it, or a picture, sound or map it loads "
                          "changes, keeping its state (in a window, or --headless --frames N paced in real time; "
                          "needs watchfiles: pip install 'tickswap[watch]')")
    run.add_argument("--rewind", metavar="SECONDS", type=_rewind,
                     help="how far back F6 rewinds in a window (default 10; 0: no rewind ring)")
    run.add_argument("--profile", action="store_true",
                     help="at the end, print where the ticks' time went: updates by entity class, systems, "
                     "and the engine's share (the HUD shows it too)")


def build_parser() -> Parser:
    """The parser of the ``tickswap`` command and its subcommands (``bench`` parses its own)."""
    parser = Parser(prog="tickswap", description="Run tickswap's games.")
    parser.set_defaults(json=False)  # every command's namespace has it: the commands without --json print text
    # The version saves and recordings are written with, and checked against.
    parser.add_argument("--version", action="version", version=f"tickswap {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    parser.commands = commands.choices
    commands.add_parser("list", help="list the games, one a line")
    run = commands.add_parser("run", help="run a game")
    run.add_argument("game", help="a game's name (see `tickswap list`) or the path of your game's .py file")
    add_run_options(run)
    replay = commands.add_parser("replay", help="replay a recording and verify every state hash")
    replay.add_argument("file", type=_file_name, help="a replay written by `tickswap run GAME --record FILE`")
    replay.add_argument("--game", metavar="GAME", type=_file_name,
                        help="the game to replay it with: a game file, or an installed game's name (if it changed "
                             "since the recording, the replay says so)")
    display = replay.add_mutually_exclusive_group()
    display.add_argument("--headless", action="store_true", help="render the replay off-screen while verifying")
    display.add_argument("--window", action="store_true", help="show the replay in a window while verifying")
    replay.add_argument("--screenshot", metavar="PNG", type=_file_name,
                        help="with --headless: save the last frame as a PNG")
    replay.add_argument("--no-hud", action="store_true", help="hide the HUD")
    add_json_option(replay)
    replay.add_argument("--split", metavar="DIR", type=_file_name,
                        help="instead of replaying, write each player's input as DIR/player-P.jsonl: the --input "
                             "script of each peer of a recorded session")
    replay.add_argument("--peer", metavar="P,Q", type=_peer, action="append", default=[],
                        help="with --split: the players one peer played (1,2 for a joiner's --local 2): their "
                             "lines, each naming its player, in one script DIR/players-1-2.jsonl (repeatable)")

    check = commands.add_parser(
        "check", help="check that a game comes out the same in every update order",
        description="Run a game in spawn order and in shuffled update orders (reshuffled every tick, systems of "
                    "one priority permuted too) with the same seeded random input, and report the first tick whose "
                    "state differs, naming the entities and fields (and the systems' order). Exit 0 when every "
                    "order agrees, 1 when they differ.")
    check.add_argument("game", help="a game's name (see `tickswap list`) or the path of your game's .py file")
    check.add_argument("--ticks", type=count, default=300, help="ticks to run (default 300)")
    check.add_argument("--orders", type=count, help="shuffled orders besides spawn order (default 4; not with "
                       "--rollback, which checks rollback instead)")
    check.add_argument("--seed", type=_seed, default=0,
                       help="seed for the worlds, the shuffles and the input (default 0)")
    check.add_argument("--rollback", metavar="N", type=count,
                       help="instead of update orders, check rollback: after every tick roll back N ticks and "
                            "re-simulate them with the same input")
    check.add_argument("--players", type=players, help="how many players each world has, each fed input of its own "
                       "(default: the fewest the game takes); --input lines name theirs with \"player\": P")
    check.add_argument("--saves", metavar="N", type=_saves, default=3,
                       help="then save the game at N ticks spread over the run, load each save in a fresh world and "
                            "run it beside the straight run: catches state a save does not hold (default 3; 0 skips "
                            "it)")
    check.add_argument("--hash-seeds", metavar="K", type=_hash_seeds, default=3,
                       help="then run the game in K fresh processes, PYTHONHASHSEED 1 to K, and compare their state "
                            "hashes every tick: catches hash(str), set order and id() (default 3; 0 skips it; 2 to 16 "
                            "otherwise)")
    add_json_option(check)
    given = check.add_mutually_exclusive_group()
    given.add_argument("--input", metavar="FILE", type=_file_name,
                       help="feed every order the per-tick input of a recording or an input script")
    given.add_argument("--no-input", action="store_true", help="no input at all (default: seeded random input)")

    add_session_commands(commands)
    _add_package_command(commands)
    _add_serve_command(commands)
    _add_rendezvous_command(commands)
    commands.add_parser("bench", help="run the benchmarks and print their figures (tickswap bench --help)")
    lab = commands.add_parser("lab", help="compare every game loop on a simulated machine",
                              description="Run one scenario under each game loop on a simulated machine and "
                                          "print a table, then the first 100 ms of each loop as a timeline.")
    lab.add_argument("scenario", nargs="?", default="ball",
                     help="'ball' (a ball at constant speed, the default) or a game's name")
    from engine.tools.lab import MACHINES

    lab.add_argument("--machine", choices=sorted(MACHINES), help="a preset machine (costs below override it)")
    lab.add_argument("--update-ms", type=_non_negative_ms, help="what one update costs")
    lab.add_argument("--render-ms", type=_non_negative_ms, help="what one render costs")
    lab.add_argument("--jitter-ms", type=_non_negative_ms, help="random ± added to every cost")
    lab.add_argument("--stall-at-ms", type=_non_negative_ms, help="one stall at this clock time")
    lab.add_argument("--stall-ms", type=_non_negative_ms, help="how long that stall lasts (default 250)")
    lab.add_argument("--seconds", type=_seconds, default=2.0, help="simulated real time per loop (default 2)")
    lab.add_argument("--ups", type=_ups, default=1000 / DEFAULT_MS_PER_UPDATE,
                     help=f"updates per second (default {1000 / DEFAULT_MS_PER_UPDATE:g}: the default step)")
    lab.add_argument("--seed", type=_seed, default=0, help="seed for the jitter and the game (default 0)")
    lab.add_argument("--png", metavar="FILE", type=_file_name,
                     help="also draw the timelines as a chart (needs EGL or a display)")
    return parser


# -- argv as frozen dataclasses: the Namespace ends here ---------------------------------


@dataclass(frozen=True)
class Outputs:
    """What a run writes: a recording (``--record``), saves at ticks (``--save-at N FILE``), a last frame."""

    record: str | None = None
    save_at: tuple[tuple[int, str], ...] = ()
    screenshot: str | None = None

    @property
    def files(self) -> tuple[tuple[str, str], ...]:
        """Every file written, with the option that names it."""
        return ((("--record", self.record),) if self.record else ()) + tuple(
            ("--save-at", path) for _, path in self.save_at)


@dataclass(frozen=True)
class RunOptions:
    """``tickswap run`` (and ``python game.py``): what to run, what it writes (``outputs``), how it is shown.

    ``seed`` and ``players`` are ``None`` when not given (a loaded save keeps its own);
    ``ticks`` runs that many ticks with no loop, ``frames`` that many frames.
    """

    game: str | None
    display: Display
    outputs: Outputs
    frames: int | None = None
    ticks: int | None = None
    ups: float | None = None
    seed: int | None = None
    players: int | None = None
    load: str | None = None
    input: str | None = None
    watch: bool = False
    rewind: float | None = None
    profile: bool = False


def _save_at(pairs: list[list[str]] | None) -> tuple[tuple[int, str], ...]:
    found = []
    for tick, path in pairs or ():
        try:
            number = count(tick)
        except argparse.ArgumentTypeError as error:
            raise UsageError(f"--save-at N FILE: {error}") from None
        if not path:
            raise UsageError("--save-at N FILE: expected a file name, got ''")
        found.append((number, path))
    return tuple(found)


def run_options(args: argparse.Namespace) -> RunOptions:
    """``run``'s parsed options as a ``RunOptions`` (a ``--save-at`` tick that is no count: ``UsageError``)."""
    return RunOptions(
        game=vars(args).get("game"), display=display_of(args),
        outputs=Outputs(record=args.record, save_at=_save_at(args.save_at), screenshot=args.screenshot),
        frames=args.frames, ticks=args.ticks, ups=args.ups, seed=args.seed, players=args.players, load=args.load,
        input=args.input, watch=args.watch, rewind=args.rewind, profile=args.profile)


@dataclass(frozen=True)
class ReplayOptions:
    """``tickswap replay FILE``: the recording, the game to replay it with, and whether (and how) it is drawn."""

    file: str
    game: str | None
    drawn: bool
    display: Display
    screenshot: str | None = None
    split: str | None = None
    """``--split DIR``: write each player's input script there instead of replaying."""
    peers: tuple[tuple[int, ...], ...] = ()
    """``--peer P,Q`` (with ``--split``): the players each peer of several played, one script for each such peer."""


def _peer(text: str) -> tuple[int, ...]:
    """``--peer 1,2``: the players one peer played, each a whole number from 0, none twice."""
    words = text.split(",")
    if not all(word.isascii() and word.isdigit() and len(word) <= 3 for word in words):  # no sign: "-0" is no player
        raise argparse.ArgumentTypeError(f"expected players such as 1,2 (whole numbers, comma-separated), "
                                         f"got {shown(text)}")
    players = tuple(int(word) for word in words)
    if any(not 0 <= player < MAX_PLAYERS for player in players) or len(set(players)) != len(players):
        raise argparse.ArgumentTypeError(f"expected different players from 0 to {MAX_PLAYERS - 1}, got {shown(text)}")
    return tuple(sorted(players))


def replay_options(args: argparse.Namespace) -> ReplayOptions:
    """``replay``'s parsed options as a ``ReplayOptions``."""
    return ReplayOptions(file=args.file, game=args.game, drawn=args.headless or args.window,
                         display=Display(headless=args.headless, show_hud=not args.no_hud),
                         screenshot=args.screenshot, split=args.split, peers=tuple(args.peer))


@dataclass(frozen=True)
class LabOptions:
    """``tickswap lab``: the scenario, the simulated machine (a preset and costs that override it), the chart."""

    scenario: str
    machine: str | None
    update_ms: float | None
    render_ms: float | None
    jitter_ms: float | None
    stall_at_ms: float | None
    stall_ms: float | None
    seconds: float
    ups: float
    seed: int
    png: str | None


def lab_options(args: argparse.Namespace) -> LabOptions:
    """``lab``'s parsed options as a ``LabOptions``."""
    return LabOptions(scenario=args.scenario, machine=args.machine, update_ms=args.update_ms,
                      render_ms=args.render_ms, jitter_ms=args.jitter_ms, stall_at_ms=args.stall_at_ms,
                      stall_ms=args.stall_ms, seconds=args.seconds, ups=args.ups, seed=args.seed, png=args.png)


@dataclass(frozen=True)
class CheckOptions:
    """``tickswap check GAME``: how long, how many orders (or how far back a rollback), which input, what after."""

    game: str
    ticks: int
    orders: int | None
    seed: int
    rollback: int | None
    players: int | None
    saves: int
    hash_seeds: int
    input: str | None
    no_input: bool


def check_options(args: argparse.Namespace) -> CheckOptions:
    """``check``'s parsed options as a ``CheckOptions``."""
    return CheckOptions(game=args.game, ticks=args.ticks, orders=args.orders, seed=args.seed, rollback=args.rollback,
                        players=args.players, saves=args.saves, hash_seeds=args.hash_seeds, input=args.input,
                        no_input=args.no_input)


def _add_package_command(commands: Any) -> None:
    """Add ``tickswap package`` and its options to the command line's subcommands."""
    package = commands.add_parser(
        "package", help="build a standalone program of a game (PyInstaller; runs with no Python installed)",
        description="Build a program of GAME that runs where no Python is installed and takes tickswap run's "
                    "options (dist/NAME/NAME --ticks 300). It holds the engine, its libraries, and the game's "
                    "own directory: the modules beside it, its pictures, sounds, maps and fonts. Then it is "
                    "run once to check that it gives tickswap run's state hash. Needs PyInstaller: "
                    "pip install 'tickswap[ship]'.")
    package.add_argument("game", help="a game's .py file, a game package's directory, or an installed game's name")
    package.add_argument("--out", metavar="DIR", type=_file_name, default="dist",
                         help="where the bundle goes: DIR/NAME (default dist)")
    package.add_argument("--name", help="the program's name (default: the game file's stem, or the game's name)")
    package.add_argument("--onefile", action="store_true",
                         help="one program file instead of a folder (starts slower: it unpacks itself each time)")
    package.add_argument("--windowed", action="store_true",
                         help="Windows and macOS: no console window (and a .app on macOS); its messages are lost")
    package.add_argument("--hidden-import", metavar="MODULE", action="append", default=[],
                         help="a module the game imports by name at run time, which reading its code can't find")
    package.add_argument("--add-binary", metavar="FILE", type=_file_name, action="append", default=[],
                         help="a shared library to ship beside the engine's, where pyglet looks for its own "
                              "(FFmpeg's, for MP3 and OGG on Windows and macOS)")
    package.add_argument("--no-check", action="store_true",
                         help="don't run the bundle (with --web: in Pyodide under Node) to check it gives tickswap "
                              "run's state hash")
    package.add_argument("--web", metavar="OUT", type=_file_name,
                         help="instead, write a static folder OUT that plays the game in a browser (Pyodide): "
                              "index.html, the Pyodide runtime, the engine and the game; try it with "
                              "tickswap serve OUT")
    package.add_argument("--pyodide", metavar="DIR", type=_file_name,
                         help="with --web: the npm package pyodide's directory (default $TICKSWAP_PYODIDE, else "
                              "~/.cache/tickswap-web/node_modules/pyodide)")


def package_options(args: argparse.Namespace) -> PackageOptions:
    """``package``'s parsed options as ``engine.tools.ship``'s ``PackageOptions`` (imported only to package)."""
    from engine.tools.ship.build import PackageOptions

    return PackageOptions(game=args.game, out=Path(args.out), name=args.name, onefile=args.onefile,
                          windowed=args.windowed, hidden_imports=tuple(args.hidden_import),
                          binaries=tuple(Path(binary) for binary in args.add_binary), check=not args.no_check,
                          web=None if args.web is None else Path(args.web),
                          pyodide=None if args.pyodide is None else Path(args.pyodide))


SERVE_PORT = 8000
"""``tickswap serve``'s port unless ``--port`` says."""


@dataclass(frozen=True)
class ServeOptions:
    """``tickswap serve DIR``: the web build's folder and the port (0: any free one)."""

    directory: str
    port: int


def _add_serve_command(commands: Any) -> None:
    """Add ``tickswap serve DIR``."""
    serve = commands.add_parser("serve", help="serve a web build (tickswap package GAME --web DIR) on 127.0.0.1",
                                description="Serve DIR, a folder tickswap package GAME --web wrote, on "
                                            "http://127.0.0.1:PORT/ for a try in a browser (Ctrl-C stops).")
    serve.add_argument("directory", metavar="DIR", help="the web build's folder")
    serve.add_argument("--port", type=whole(0, 65535), default=SERVE_PORT,
                       help=f"the port (default {SERVE_PORT}; 0: any)")


def serve_options(args: argparse.Namespace) -> ServeOptions:
    """``serve``'s parsed options."""
    return ServeOptions(directory=args.directory, port=args.port)


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {shown(text)}") from None
    if not 0 < value <= 10_000:  # NaN fails too
        raise argparse.ArgumentTypeError(f"expected a number above 0, at most 10000, got {shown(text)}")
    return value


def _add_rendezvous_command(commands: Any) -> None:
    """Add ``rendezvous`` to the ``tickswap`` parser's subcommands."""
    command = commands.add_parser(
        "rendezvous", help="run a rendezvous: room codes meet here (ICE offers and STUN only, no game traffic)",
        description="Pass ICE offers between the two sides of a room code, and answer STUN binding requests. No game "
                    "datagram goes through it. Runs until Ctrl-C or SIGTERM.")
    command.add_argument("--port", type=whole(0, 65535), default=DEFAULT_RENDEZVOUS_PORT,
                         help=f"UDP port (default {DEFAULT_RENDEZVOUS_PORT}; 0: any free one, said on stderr)")
    command.add_argument("--bind", type=_bind_address, default="0.0.0.0",
                         help="address to listen on (default 0.0.0.0: every address of this machine)")
    command.add_argument("--max-rooms", type=whole(1, 1_000_000), default=4096,
                         help="the most rooms open at once (default 4096, about 10 MB at most)")
    command.add_argument("--rate", type=_rate, default=20.0,
                         help="datagrams a second taken from one IP address (default 20; twice that at once)")


@dataclass(frozen=True)
class RendezvousOptions:
    """``tickswap rendezvous``: where it listens, how many rooms it keeps, how fast one address may send."""

    bind: str
    port: int
    max_rooms: int
    rate: float


def rendezvous_options(args: argparse.Namespace) -> RendezvousOptions:
    """``rendezvous``'s parsed options as a ``RendezvousOptions``."""
    return RendezvousOptions(bind=args.bind, port=args.port, max_rooms=args.max_rooms, rate=args.rate)


@dataclass(frozen=True)
class SeedsOptions:
    """One process of ``tickswap check --hash-seeds`` (``python -m engine.tools.seeds``): which run to hash."""

    game: str
    ticks: int
    seed: int
    players: int
    input: str | None
    no_input: bool
    snapshot_at: int | None


def seeds_options(argv: list[str] | None = None) -> SeedsOptions:
    """``python -m engine.tools.seeds``'s argv (``check`` writes it) as a ``SeedsOptions``."""
    parser = argparse.ArgumentParser(allow_abbrev=False, prog="python -m engine.tools.seeds")
    _once(parser)
    parser.add_argument("game")
    parser.add_argument("--ticks", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--input")
    parser.add_argument("--no-input", action="store_true")
    parser.add_argument("--snapshot-at", type=int)
    args = _namespace(parser.parse_args(argv))
    return SeedsOptions(game=args.game, ticks=args.ticks, seed=args.seed, players=args.players, input=args.input,
                        no_input=args.no_input, snapshot_at=args.snapshot_at)


@dataclass(frozen=True)
class SoakOptions:
    """``python -m engine.tools.soak``: how long, how many entities, how many replaced a tick, the memory budget."""

    ticks: int
    entities: int
    churn: int
    budget_blocks: int
    tracemalloc: bool


def soak_options(argv: list[str] | None = None, description: str = "") -> SoakOptions:
    """``python -m engine.tools.soak``'s argv as a ``SoakOptions`` (more churn than entities: refused, exit 2)."""
    parser = argparse.ArgumentParser(allow_abbrev=False, prog="python -m engine.tools.soak", description=description)
    _once(parser)
    parser.add_argument("--ticks", type=whole(1, 10**9), default=1_000_000)
    parser.add_argument("--entities", type=whole(1, 10**9), default=1000)
    parser.add_argument("--churn", type=whole(0, 10**9), default=10, help="spawns and despawns per tick")
    parser.add_argument("--budget-blocks", type=whole(0, 10**9), default=2000,
                        help="allowed growth in allocated blocks after the first checkpoint (default 2000)")
    parser.add_argument("--tracemalloc", action="store_true", help="also trace allocations and report bytes (slow)")
    args = _namespace(parser.parse_args(argv))
    if args.churn > args.entities:
        parser.error(f"--churn {args.churn} is more than --entities {args.entities}")
    return SoakOptions(ticks=args.ticks, entities=args.entities, churn=args.churn, budget_blocks=args.budget_blocks,
                       tracemalloc=args.tracemalloc)


# -- host and join: a network session's options ------------------------------------------

SESSION_PORT = 7777
"""The port a host listens on, and a joiner's HOST without :PORT asks."""


def _real(low: float, high: float, name: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {shown(text)}") from None
        if not low <= value <= high:  # NaN fails too
            raise argparse.ArgumentTypeError(f"expected a number from {low:g} to {high:g}, got {shown(text)}")
        return value
    parse.__name__ = name
    return parse


def _bind_address(text: str) -> str:
    # "--bind 127.0.0.1:7000" is the natural slip; the socket then said "can't listen on
    # 127.0.0.1:7000:7770: Name or service not known".
    host, colon, port = text.rpartition(":")
    if colon and host.count(":") == 0 and port.isdigit():
        raise argparse.ArgumentTypeError(f"an address without its port, got {shown(text)}: give the port to --port "
                                         f"(--bind {host} --port {port})")
    return text


def _rebind_ms(text: str) -> float:
    value = _real(0.0, 1e9, "ms")(text)
    if 0 < value < MIN_REBIND_MS:
        raise argparse.ArgumentTypeError(f"expected 0 (never) or at least {MIN_REBIND_MS:g} ms, got {shown(text)}")
    return value


def _delay_at(text: str) -> tuple[int, int]:
    tick, colon, delay = text.partition(":")
    if not colon or not tick.isdigit() or not delay.isdigit():
        raise argparse.ArgumentTypeError(f"expected TICK:DELAY (e.g. 600:4), got {shown(text)}")
    if not 1 <= int(tick) <= 10**9 or not 0 <= int(delay) <= MAX_INPUT_DELAY:
        raise argparse.ArgumentTypeError(f"expected a tick from 1 and a delay from 0 to {MAX_INPUT_DELAY}, got "
                                         f"{shown(text)}")
    return int(tick), int(delay)


def _rejoin(text: str) -> str:
    if read_rejoin_code(text) is None:
        raise argparse.ArgumentTypeError(f"expected the {REJOIN_CODE_HEX}-digit rejoin code this player was given "
                                         f"when it first joined, got {shown(text)}")
    return text.strip().lower()


class _NotHere(argparse.Action):
    """An option of the other side of a session, refused in one line saying whose it is (not ``see --help``)."""

    def __init__(self, option_strings: list[str], dest: str, whose: str = "", **kwargs: Any) -> None:
        self.whose = whose
        super().__init__(option_strings, dest, nargs="?", help=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        parser.error(f"{option_string} is {self.whose}")


def _add_room_options(command: argparse.ArgumentParser) -> None:
    """The room options of ``host`` and ``join`` (``RoomOptions``)."""
    command.add_argument("--rendezvous", metavar="HOST:PORT",
                         help="with a room code: the rendezvous (tickswap rendezvous) that passes the ICE offers; "
                         "default $TICKSWAP_RENDEZVOUS; there is no public one "
                         f"(PORT default {DEFAULT_RENDEZVOUS_PORT})")
    command.add_argument("--stun", metavar="HOST:PORT",
                         help="with a room code: the STUN server that tells this peer its public address (default: "
                         "the rendezvous, which answers STUN; 'off': none)")
    command.add_argument("--turn", metavar="USER:PASSWORD@HOST:PORT",
                         help="with a room code: a TURN relay (coturn) for when no direct path exists (symmetric "
                         "NATs); USER@HOST:PORT takes the password from $TICKSWAP_TURN_PASSWORD")
    command.add_argument("--ice-host", metavar="ADDR", action="append",
                         help="with a room code: gather host candidates on this IPv4 address only (repeatable; "
                         "default: every address of this machine but loopback)")
    command.add_argument("--emulate-nat", choices=NAT_KINDS, metavar="KIND",
                         help="with a room code: put this peer behind an emulated home router on 127.0.0.1 "
                         f"({', '.join(NAT_KINDS)}); 'rebinding' moves its ports every --emulate-rebind MS "
                         "(default 1000) once play starts")


_EMULATED = (("loss", 1.0, "drop this share of datagrams"), ("delay", 10_000.0, "delay them (ms)"),
             ("jitter", 10_000.0, "vary the delay by up to this (ms)"), ("duplicate", 1.0, "send this share twice"),
             ("reorder", 1.0, "reorder this share"), ("flip", 1.0, "flip one bit in this share"),
             ("truncate", 1.0, "cut this share short"))


def _add_peer_options(command: argparse.ArgumentParser) -> None:
    """The options ``host`` and ``join`` share (``PeerOptions``)."""
    command.add_argument("--ticks", type=whole(1, 10**9),
                         help="play N confirmed ticks headless, as fast as the network allows (no window); the "
                         "host's is the session's: a joiner without it plays the host's, one with another is refused")
    command.add_argument("--headless", action="store_true", help="draw off-screen (EGL); give --frames N")
    command.add_argument("--frames", type=whole(1, 10**9), help="stop after N frames")
    command.add_argument("--no-hud", action="store_true", help="hide the HUD (F1 shows it)")
    command.add_argument("--input", metavar="FILE", help="the local player's scripted input (lines with no "
                         "player, or naming this peer's player)")
    command.add_argument("--record", metavar="FILE", help="record the confirmed ticks as a replay")
    add_json_option(command)
    command.add_argument("--screenshot", metavar="PNG", help="save the last frame as a PNG (with --frames or a window)")
    command.add_argument("--input-delay", type=whole(0, 30), default=2, help="local input delay in ticks (default 2)")
    command.add_argument("--max-prediction", type=whole(0, 60), default=8,
                         help="ticks run ahead of remote input, predicted (default 8; 0: lockstep)")
    command.add_argument("--desync-interval", type=whole(1, 100_000), default=60,
                         help="compare state hashes every N ticks (default 60; the host's is the session's)")
    command.add_argument("--disconnect-timeout", type=_real(0.1, 3600, "seconds"), default=5.0,
                         help="drop a peer silent this many seconds (default 5)")
    command.add_argument("--lobby-timeout", type=_real(0.1, 3600, "seconds"), default=60.0,
                         help="give up if the session has not started after this many seconds (default 60): "
                         "the host waiting for its players, a joiner for a host to answer")
    for name, high, what in _EMULATED:
        command.add_argument(f"--emulate-{name}", type=_real(0.0, high, "emulated_ms_or_share"), default=0.0,
                             help=f"network emulator: {what}")
    command.add_argument("--emulate-rebind", type=_rebind_ms, default=0.0, metavar="MS",
                         help="network emulator, a joiner's: once play starts, move its source port about every MS "
                         f"ms, as a NAT rebinding does (0: never; at least {MIN_REBIND_MS:g})")
    command.add_argument("--emulate-seed", type=whole(0, 2**31), default=0, help="the emulator's seed")
    command.add_argument("--allow-game-mismatch", action="store_true",
                         help="testing aid: play even if the game files differ (to plant a desync); "
                         "both the host and the joiner must give it")
    _add_room_options(command)


def add_session_commands(commands: Any) -> None:
    """Add ``host`` and ``join`` to the ``tickswap`` parser's subcommands."""
    add_host_options(commands.add_parser("host", help="host a network session of a game"), game=True)
    add_join_options(commands.add_parser("join", help="join a network session"), game=True)


def add_host_options(host: argparse.ArgumentParser, *, game: bool) -> None:
    """``host``'s arguments (``game``: with the game's name or file first; ``python game.py --host`` has none)."""
    from engine.net.lobby import REJOIN_WINDOW_S

    if game:
        host.add_argument("game", help="a game's name or the path of a game file")
    host.add_argument("--players", type=whole(1, MAX_PLAYERS),
                      help="how many players (2 or more; default: the fewest the game's PLAYERS allows, at least 2)")
    host.add_argument("--port", type=whole(0, 65535),
                      help=f"UDP port (default {SESSION_PORT}; 0: any free one; not with --room)")
    host.add_argument("--bind", type=_bind_address, help="address to listen on (default 127.0.0.1; not with --room)")
    host.add_argument("--room", nargs="?", const="", metavar="CODE",
                      help="open a room at the rendezvous instead of listening on a port: prints a short code "
                      "(or uses CODE) that joiners give to `tickswap join CODE`; ICE finds the path through routers")
    host.add_argument("--code", metavar="CODE",
                      help="the join code joiners give (tickswap join HOST:PORT CODE): 6 letters and digits, no 0, O, "
                      "1, I or L (default: a fresh one, printed); with --room, the room code is the join code")
    host.add_argument("--seed", type=whole(0, 2**63), default=0, help="seed of the world (default 0)")
    host.add_argument("--local", type=whole(1, MAX_PLAYERS - 1), default=1, metavar="N",
                      help="how many of the players play on this machine, players 0 to N-1 (default 1): the "
                      "keyboard is split between them (the game's PLAYER_KEYS, or WASD and the arrows) and every "
                      "pad is one of them; the joiners are the others")
    host.add_argument("--rejoin-window", type=_real(0.0, 86_400.0, "seconds_or_0_never"), default=REJOIN_WINDOW_S,
                      help=f"with 3 players or more, a dropped player may rejoin within this many seconds (default "
                      f"{REJOIN_WINDOW_S:g}; 0: never)")
    host.add_argument("--input-delay-at", metavar="TICK:DELAY", type=_delay_at, action="append",
                      help="change every peer's input delay to DELAY from TICK on (at least 64 ticks in; may be "
                      "given several times)")
    for option in ("--spectate", "--rejoin"):
        host.add_argument(option, action=_NotHere, whose="a joiner's (tickswap join HOST:PORT ... " + option + ")")
    _add_peer_options(host)


def add_join_options(join: argparse.ArgumentParser, *, game: bool) -> None:
    """``join``'s arguments (``game``: with the optional game after HOST:PORT)."""
    join.add_argument("address", help=f"HOST:PORT of the host (IPv4 or a name; PORT default {SESSION_PORT}), or a "
                      "room code (6 letters and digits, as the host printed: give --rendezvous too)")
    join.add_argument("code", nargs="?", help="after HOST:PORT, the join code the host printed (the key exchange is "
                      "bound to it: no one without it joins, or stands in the middle); after a room code, none")
    if game:
        join.add_argument("game", nargs="?", help="the game file (default: the registered game the host names)")
    join.add_argument("--spectate", action="store_true", help="watch: confirmed input only, no player (a running "
                      "session too: it starts from the host's last confirmed tick)")
    join.add_argument("--rejoin", metavar="CODE", type=_rejoin,
                      help="take back the seat of a player the host dropped, with the rejoin code it was given when "
                      "it first joined (within the host's --rejoin-window)")
    for option in ("--players", "--port", "--bind", "--seed", "--rejoin-window", "--input-delay-at", "--code"):
        join.add_argument(option, action=_NotHere, dest=f"host_only_{option[2:]}",
                          whose="the host's: a joiner plays the session the host set up (tickswap host GAME "
                          f"{option} ...)")
    join.add_argument("--local", type=whole(1, MAX_PLAYERS - 1), default=1, metavar="N",
                      help="how many players play on this machine (default 1): the host gives N seats side by side "
                      "(or refuses, saying how many are left); the keyboard is split between them as the host's is")
    _add_peer_options(join)


@dataclass(frozen=True)
class RoomOptions:
    """How a room is reached (``host --room``, ``join CODE``): the rendezvous, STUN, TURN, ICE's addresses, a router.

    ``None`` (or no ICE host) where not given: the rendezvous then comes from
    ``$TICKSWAP_RENDEZVOUS``, STUN from the rendezvous, ICE's host candidates from every
    address of this machine; ``emulate_nat`` puts the peer behind an emulated router.
    """

    rendezvous: str | None = None
    stun: str | None = None
    turn: str | None = None
    ice_hosts: tuple[str, ...] = ()
    emulate_nat: str | None = None

    @property
    def given(self) -> tuple[str, ...]:
        """The options given, as the command line names them (a session at an address takes none)."""
        return tuple(name for name, value in (("--rendezvous", self.rendezvous), ("--stun", self.stun),
                                              ("--turn", self.turn), ("--ice-host", self.ice_hosts),
                                              ("--emulate-nat", self.emulate_nat)) if value)


@dataclass(frozen=True)
class PeerOptions:
    """What ``host`` and ``join`` share: how long and how it is shown, the files, the timing, the emulated network.

    ``ticks``: play that many confirmed ticks with no frames; else frames are drawn (in a
    window, or ``headless`` until ``frames``). ``command`` names the session in the JSON
    summary (``host``, ``join``; ``session`` for ``python game.py --host``/``--join``).
    ``emulation``'s ``rebind_ms`` is ``--emulate-rebind``'s as given: in a room it moves the
    emulated router's ports, not this peer's transport's.
    """

    command: str
    emulation: Emulation
    room: RoomOptions
    ticks: int | None = None
    frames: int | None = None
    headless: bool = False
    no_hud: bool = False
    input: str | None = None
    record: str | None = None
    screenshot: str | None = None
    input_delay: int = 2
    max_prediction: int = 8
    desync_interval: int = 60
    disconnect_timeout: float = 5.0
    lobby_timeout: float = 60.0
    allow_game_mismatch: bool = False

    @property
    def display(self) -> Display:
        """How the session is shown: off-screen (``--headless``) or in a window, with or without the HUD."""
        return Display(headless=self.headless, show_hud=not self.no_hud)


@dataclass(frozen=True)
class HostOptions:
    """``tickswap host GAME`` (and ``python game.py --host``): the seats, where joiners reach it, the world's seed.

    ``game`` is ``None`` where the command names none (a game file hosting itself). ``room``:
    ``None`` to listen at an address (``port``, ``bind``), ``""`` to open a room with a fresh
    code, else that code. ``input_delay_at``: the input delay changes, (tick, delay) pairs.
    """

    game: str | None
    peer: PeerOptions
    rejoin_window: float
    """With 3 players or more, how long a dropped player may take its seat back (s; 0: never)."""
    players: int | None = None
    port: int | None = None
    bind: str | None = None
    room: str | None = None
    code: str | None = None
    seed: int = 0
    local: int = 1
    input_delay_at: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class JoinOptions:
    """``tickswap join HOST:PORT CODE [GAME]`` or ``join ROOM [GAME]`` (and ``python game.py --join ...``).

    ``code`` is the second word as given (after a room code it is the game); ``game`` the
    third, where the command takes one (``names_game``: ``tickswap join``, not a game file
    joining as itself). ``spectate`` watches with no seat; ``rejoin`` takes a dropped
    player's seat back with its rejoin code (lower case); ``local`` asks for that many seats
    side by side, played on this machine.
    """

    address: str
    peer: PeerOptions
    code: str | None = None
    game: str | None = None
    names_game: bool = True
    spectate: bool = False
    rejoin: str | None = None
    local: int = 1


def _peer_options(args: argparse.Namespace, command: str) -> PeerOptions:
    emulation = Emulation(loss=args.emulate_loss, delay_ms=args.emulate_delay, jitter_ms=args.emulate_jitter,
                          duplicate=args.emulate_duplicate, reorder=args.emulate_reorder, seed=args.emulate_seed,
                          flip=args.emulate_flip, truncate=args.emulate_truncate, rebind_ms=args.emulate_rebind)
    room = RoomOptions(rendezvous=args.rendezvous, stun=args.stun, turn=args.turn,
                       ice_hosts=tuple(args.ice_host or ()), emulate_nat=args.emulate_nat)
    return PeerOptions(command=command, emulation=emulation, room=room, ticks=args.ticks, frames=args.frames,
                       headless=args.headless, no_hud=args.no_hud, input=args.input, record=args.record,
                       screenshot=args.screenshot, input_delay=args.input_delay, max_prediction=args.max_prediction,
                       desync_interval=args.desync_interval, disconnect_timeout=args.disconnect_timeout,
                       lobby_timeout=args.lobby_timeout, allow_game_mismatch=args.allow_game_mismatch)


def host_options(args: argparse.Namespace, command: str = "session") -> HostOptions:
    """``host``'s parsed options (``add_host_options``) as a ``HostOptions``; ``command``: the JSON summary's name."""
    return HostOptions(game=vars(args).get("game"), peer=_peer_options(args, command), players=args.players,
                       port=args.port, bind=args.bind, room=args.room, code=args.code, seed=args.seed,
                       local=args.local, rejoin_window=args.rejoin_window,
                       input_delay_at=tuple(args.input_delay_at or ()))


def join_options(args: argparse.Namespace, command: str = "session") -> JoinOptions:
    """``join``'s parsed options (``add_join_options``) as a ``JoinOptions``; ``command``: the JSON summary's name."""
    return JoinOptions(address=args.address, peer=_peer_options(args, command), code=args.code,
                       game=vars(args).get("game"), names_game="game" in vars(args), spectate=args.spectate,
                       rejoin=args.rejoin, local=args.local)

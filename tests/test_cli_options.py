"""The command line's options end at the edge: argv becomes frozen dataclasses in engine.tools.cli.options."""

from __future__ import annotations

import argparse
import ast
import dataclasses
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.display import Display, display_options
from engine.tools.cli.options import (
    Outputs,
    RunOptions,
    build_parser,
    display_of,
    lab_options,
    replay_options,
    run_options,
)
from engine.tools.errors import UsageError

CLI = Path(engine.__file__).parent / "tools" / "cli"


def parsed(*argv: str) -> argparse.Namespace:
    return build_parser().parse_command(list(argv))


def test_only_the_options_module_imports_argparse():
    importers = set()
    for path in Path(engine.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Import) and any(alias.name == "argparse" for alias in node.names)) or \
                    (isinstance(node, ast.ImportFrom) and node.module == "argparse"):
                importers.add(path.name if path.parent == CLI else str(path))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
                    and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == "args":
                raise AssertionError(f"{path.name}: getattr(args, ...) takes a default for a mistyped option")
    assert importers == {"options.py"}


def test_a_run_is_frozen_dataclasses_what_to_run_what_to_write_how_to_show_it():
    options = run_options(parsed("run", "pong", "--headless", "--frames", "5", "--no-hud", "--record", "r.jsonl",
                                 "--save-at", "3", "a.json", "--save-at", "4", "b.json", "--seed", "7"))
    assert options == RunOptions(game="pong", display=Display(headless=True, show_hud=False),
                                 outputs=Outputs(record="r.jsonl", save_at=((3, "a.json"), (4, "b.json"))),
                                 frames=5, seed=7)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.seed = 0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.display.show_hud = True  # type: ignore[misc]
    assert options.outputs.files == (("--record", "r.jsonl"), ("--save-at", "a.json"), ("--save-at", "b.json"))


def test_a_save_at_tick_that_is_no_count_is_refused_at_the_edge():
    with pytest.raises(UsageError, match=r"--save-at N FILE: expected a number from 1 to 1000000000, got 0"):
        run_options(parsed("run", "pong", "--save-at", "0", "a.json"))


def test_every_display_option_is_made_from_the_field_that_declares_it():
    # A new display option is a field of Display and its use in the runner: the parser and the
    # reading of it follow from the field.
    run = build_parser().commands["run"]
    flags = {flag for action in run._actions for flag in action.option_strings}
    for option in display_options():
        assert option.flag in flags, option.flag
        default = getattr(Display(), option.name)
        changed: Any
        if isinstance(default, bool):
            argv, changed = [option.flag], not default
        elif option.choices:
            changed = next(choice for choice in option.choices if choice != default)
            argv = [option.flag, changed]
        else:
            changed = 30.0
            argv = [option.flag, "30"]
        assert display_of(parsed("run", "pong", *argv)) == dataclasses.replace(Display(), **{option.name: changed})


def test_a_display_refuses_what_its_options_refuse():
    with pytest.raises(ValueError, match="frames per second from 0.01 to 100000"):
        Display(max_fps=0)
    with pytest.raises(ValueError, match="loop must be one of"):
        Display(loop="fast")
    with pytest.raises(SystemExit):
        parsed("run", "pong", "--spin-ms", "-1")


def test_replay_and_lab_are_typed_too():
    replay = replay_options(parsed("replay", "r.jsonl", "--headless", "--screenshot", "x.png"))
    assert (replay.drawn, replay.display, replay.screenshot) == (True, Display(headless=True), "x.png")
    assert replay_options(parsed("replay", "r.jsonl")).drawn is False
    lab = lab_options(parsed("lab", "--machine", "slow", "--png", "c.png"))
    assert (lab.scenario, lab.machine, lab.png) == ("ball", "slow", "c.png")
    with pytest.raises(dataclasses.FrozenInstanceError):
        lab.png = None  # type: ignore[misc]


def test_check_package_and_rendezvous_are_typed_too():
    from engine.tools.cli.options import check_options, package_options, rendezvous_options

    check = check_options(parsed("check", "pong", "--rollback", "3", "--no-input"))
    assert (check.game, check.rollback, check.no_input, check.ticks, check.saves) == ("pong", 3, True, 300, 3)
    package = package_options(parsed("package", "pong", "--no-check", "--hidden-import", "a.b"))
    assert (package.game, package.check, package.hidden_imports) == ("pong", False, ("a.b",))
    rendezvous = rendezvous_options(parsed("rendezvous", "--port", "0", "--rate", "5"))
    assert (rendezvous.port, rendezvous.rate, rendezvous.max_rooms) == (0, 5.0, 4096)
    with pytest.raises(dataclasses.FrozenInstanceError):
        check.ticks = 1  # type: ignore[misc]


def test_host_and_join_are_typed_too():
    from engine.net.emulate import Emulation
    from engine.tools.cli.options import HostOptions, PeerOptions, RoomOptions, host_options, join_options

    host = host_options(parsed("host", "pong", "--players", "3", "--local", "2", "--room", "--ice-host", "127.0.0.1",
                               "--ticks", "100", "--input-delay-at", "600:4", "--emulate-loss", "0.1",
                               "--emulate-nat", "full-cone", "--rejoin-window", "5"), command="host")
    assert host == HostOptions(
        game="pong", players=3, local=2, room="", rejoin_window=5.0, input_delay_at=((600, 4),),
        peer=PeerOptions(command="host", ticks=100, emulation=Emulation(loss=0.1),
                         room=RoomOptions(ice_hosts=("127.0.0.1",), emulate_nat="full-cone")))
    assert host.peer.room.given == ("--ice-host", "--emulate-nat")
    with pytest.raises(dataclasses.FrozenInstanceError):
        host.peer.ticks = 1  # type: ignore[misc]
    join = join_options(parsed("join", "127.0.0.1:7777", "K7QX2P", "game.py", "--spectate", "--headless",
                               "--frames", "9", "--no-hud"), command="join")
    assert (join.address, join.code, join.game, join.names_game, join.spectate, join.rejoin) == \
        ("127.0.0.1:7777", "K7QX2P", "game.py", True, True, None)
    assert join.peer.display == Display(headless=True, show_hud=False) and join.peer.frames == 9
    rejoin = join_options(parsed("join", "127.0.0.1:7777", "K7QX2P", "--rejoin", "1A" * 24))
    assert (rejoin.rejoin, rejoin.peer.command, rejoin.game) == ("1a" * 24, "session", None)


@pytest.mark.parametrize("command", [("rendezvous",), ("host", "pong")])
def test_a_bind_address_given_with_its_port_is_refused_with_the_two_options(command, capsys):
    with pytest.raises(SystemExit) as exited:
        parsed(*command, "--bind", "127.0.0.1:47770")
    assert exited.value.code == 2
    assert ("--bind: an address without its port, got '127.0.0.1:47770': give the port to --port "
            "(--bind 127.0.0.1 --port 47770)") in capsys.readouterr().err
    assert parsed(*command, "--bind", "127.0.0.1").bind == "127.0.0.1"


def test_a_game_file_joining_as_itself_names_no_game():
    from engine.tools.cli.options import Parser, add_join_options, join_options

    parser = Parser(prog="python game.py --join")
    add_join_options(parser, game=False)
    join = join_options(parser.parse_args(["ABCDEF", "--rendezvous", "127.0.0.1:7770"]))
    assert (join.address, join.code, join.game, join.names_game) == ("ABCDEF", None, None, False)
    assert join.peer.room.rendezvous == "127.0.0.1:7770"


@pytest.mark.parametrize(("argv", "room", "hint"), [
    (("join", "127.0.0.1:7777", "K7QX2P", "game.py"), False, "tickswap join 127.0.0.1:7777 K7QX2P game.py"),
    (("join", "127.0.0.1:7777", "K7QX2P"), False, "tickswap join 127.0.0.1:7777 K7QX2P "),
    (("join", "ABCDEF", "game.py"), True, "tickswap join ABCDEF game.py"),
])
def test_a_dropped_joiner_is_told_the_command_that_takes_its_seat_back(argv: tuple[str, ...], room: bool,
                                                                        hint: str) -> None:
    from engine.tools.cli.net import _rejoin_hint
    from engine.tools.cli.options import join_options

    options = join_options(parsed(*argv))
    game_file = options.code if room else options.game  # after a room code, the second word is the game
    assert _rejoin_hint(options, room, options.address if room else "K7QX2P", game_file) == hint


VALUES = ("1", "3", "10", "0", "a.jsonl", "127.0.0.1:7777", "ABCDEF", "0.5", "stun.example:3478",
          "u:p@turn.example:3478", "1a" * 24)
"""Words one of which every single-value option takes (the first its type accepts is given)."""


def _a_value(action: argparse.Action) -> str:
    if action.choices:
        return str(next(iter(action.choices)))
    for word in VALUES:
        try:
            if callable(action.type):
                action.type(word)
            return word
        except (argparse.ArgumentTypeError, ValueError, TypeError):
            continue
    raise AssertionError(f"no word in VALUES is a value of {action.option_strings}")


def _single_value_options() -> list[tuple[str, argparse.ArgumentParser, argparse.Action]]:
    top = build_parser()
    found: list[tuple[str, argparse.ArgumentParser, argparse.Action]] = []
    for name, command in top.commands.items():
        for action in command._actions:
            takes_a_value = action.nargs != 0 and type(action).__name__ not in ("_NotHere", "_HelpAction",
                                                                                "_VersionAction")
            if action.option_strings and takes_a_value and not isinstance(action, argparse._AppendAction):
                found.append((name, command, action))
    return found


def test_every_single_value_option_of_every_command_is_refused_when_given_twice(capsys):
    # The newcomer's trial: --input a --input b (and --record a --record b) ran with b alone, silently.
    options = _single_value_options()
    assert {name for name, _, _ in options} >= {"run", "replay", "check", "host", "join", "lab", "package"}
    for name, command, action in options:
        positionals = ["x" for positional in command._actions
                       if not positional.option_strings and positional.nargs not in ("?", "*")]
        flag = action.option_strings[-1]
        value = _a_value(action)
        words = [name, *positionals, flag, *([value] * (action.nargs if isinstance(action.nargs, int) else 1))]
        once = words[len(positionals) + 1:]
        with pytest.raises(SystemExit) as refused:
            build_parser().parse_command([*words, *once])
        assert refused.value.code == 2
        said = capsys.readouterr().err
        assert f"tickswap {name}: {flag} is given twice (" in said and ": give it once" in said, (name, flag, said)


def test_a_repeated_option_names_both_values_and_an_option_meant_to_repeat_still_does(capsys):
    with pytest.raises(SystemExit):
        parsed("run", "pong", "--input", "a.jsonl", "--input", "b.jsonl")
    assert capsys.readouterr().err == ("tickswap run: --input is given twice (a.jsonl, b.jsonl): give it once "
                                       "(see tickswap run --help)\n")
    args = parsed("run", "pong", "--ticks", "9", "--save-at", "1", "a.json", "--save-at", "2", "b.json")
    assert args.save_at == [["1", "a.json"], ["2", "b.json"]] and args.ticks == 9
    assert not hasattr(args, "_tickswap_given"), "the bookkeeping ends at the edge"

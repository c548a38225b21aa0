"""One runner, many drivers: every tick a window's runner runs goes through its ``Driver`` (``engine.world.driver``).

Local play (``LocalDriver``, with a recorder as its hook), the studio (``StudioDriver``), a
replay (``ReplayDriver``) and a network session (``engine.net.Session``) are each handed the
window's events and every tick the frames owe, the same way; a recording made through local
play replays through the replay driver hash for hash.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

from engine import keys
from engine.display import Display
from engine.files.importer import load_game
from engine.files.replay import Recorder, ReplayDriver, Verification, read_replay
from engine.studio import Studio, StudioDriver
from engine.tools.cli.worlds import build_world
from engine.world.driver import LocalDriver

NETGAME = Path(__file__).with_name("netgame.py")
SCRIPT = {5: keys.RIGHT, 30: keys.LEFT, 50: keys.RIGHT}
"""Frame: the key pressed then (the one before is released), so a recording holds window input."""


def _play(runner: Any, frames: int) -> None:
    """Run ``frames`` frames one at a time, pressing the script's keys in the window."""
    held = None
    for frame in range(frames):
        if frame in SCRIPT:
            if held is not None:
                runner.window.dispatch_event("on_key_release", held, 0)
            held = SCRIPT[frame]
            runner.window.dispatch_event("on_key_press", held, 0)
        runner.run(frames=1)


def _record(path: Path, frames: int = 80) -> list[tuple[int, str]]:
    """Play the net game locally in a window, recording it through the local driver's hook; each tick's hash."""
    from engine.render.runner import GameRunner

    game = load_game(str(NETGAME))
    world = build_world(game, 5, players=2)
    recorder = Recorder(str(path), game=game.name, game_digest=game.digest, seed=5, ms_per_update=game.ms_per_update,
                        players=2)
    recorder.start(world)
    hashes: list[tuple[int, str]] = []

    def after_tick(world: Any) -> None:
        recorder.after_tick(world)
        hashes.append((world.tick_count, world.state_hash()))

    runner = GameRunner(game, LocalDriver(world, after_tick=after_tick), display=Display(headless=True))
    try:
        _play(runner, frames)
        recorder.close(world)
    finally:
        runner.close()
    return hashes


class _HashedReplay(ReplayDriver):
    """The replay driver, noting the world's hash after every tick it runs."""

    def __init__(self, verification: Verification) -> None:
        super().__init__(verification)
        self.hashes: list[tuple[int, str]] = []

    def advance(self, local: Any, elapsed_ms: float | None = None) -> int:
        ran = super().advance(local, elapsed_ms)
        if ran:
            self.hashes.append((self.world.tick_count, self.world.state_hash()))
        return ran


@pytest.mark.usefixtures("offscreen")
def test_a_recording_made_through_local_play_replays_through_the_replay_driver_hash_for_hash(tmp_path):
    from engine.render.runner import GameRunner

    path = tmp_path / "local.jsonl"
    played = _record(path)
    replay = read_replay(str(path))
    assert replay.input_ticks, "the window's keys were recorded"
    game = load_game(str(NETGAME))
    world = build_world(game, replay.seed, players=replay.players)
    verification = Verification(replay, world)
    driver = _HashedReplay(verification)
    runner = GameRunner(game, driver, display=Display(headless=True), ups=1000 / replay.ms_per_update)
    try:
        runner.run(frames=10_000)
    finally:
        runner.close()
    assert verification.result is not None and verification.result.ok, verification.result
    assert verification.result.checked > 1
    assert len(played) >= 60 and driver.hashes == played, "every tick's hash, through either driver"


# -- every driver through the same tick path -------------------------------------------------------------------


def _local(tmp_path: Path) -> Any:
    game = load_game(str(NETGAME))
    return game, LocalDriver(build_world(game, 5, players=2)), None


def _studio(tmp_path: Path) -> Any:
    game = load_game(str(NETGAME))
    return game, StudioDriver(Studio(game, build_world(game, 5, players=2), seconds=1.0)), None


def _replay(tmp_path: Path) -> Any:
    path = tmp_path / "r.jsonl"
    _record(path, frames=40)
    replay = read_replay(str(path))
    game = load_game(str(NETGAME))
    return game, ReplayDriver(Verification(replay, build_world(game, replay.seed, players=2))), None


def _session(tmp_path: Path) -> Any:
    from netsim import Net

    net = Net()
    host = net.host(load_game(str(NETGAME)))
    joiner = net.join(load_game(str(NETGAME)))
    net.open()

    def between() -> None:  # the joiner's frame, and the time a frame takes, on the network's clock
        joiner.poll()
        joiner.advance([])
        net.clock.advance(1000 / 60)

    assert host.machine.game is not None
    return host.machine.game, host, (between, net)


DRIVERS = {"local play": _local, "studio": _studio, "replay": _replay, "network session": _session}


@pytest.mark.usefixtures("offscreen")
@pytest.mark.parametrize("kind", sorted(DRIVERS))
def test_every_tick_of_a_runner_is_its_drivers_with_the_windows_events(tmp_path, monkeypatch, kind):
    from engine.render.runner import GameRunner

    game, driver, network = DRIVERS[kind](tmp_path)
    handed: list[dict[int, list[int]]] = []
    ran: list[int] = []
    advance = driver.advance

    def counted(local: Any, *rest: Any) -> int:
        handed.append({player: [event.key for event in events] for player, events in local.items()})
        ran.append(advance(local, *rest))
        return ran[-1]

    monkeypatch.setattr(driver, "advance", counted)
    runner = GameRunner(game, driver, display=Display(headless=True))
    try:
        start = runner.world.tick_count
        for frame in range(30):
            if frame == 3:  # player 0's key however the keyboard is split (netgame has 2 players)
                runner.window.dispatch_event("on_key_press", keys.SPACE, 0)
            runner.run(frames=1)
            if network is not None:
                network[0]()
        assert sum(ran) > 0 and runner.world.tick_count - start == sum(ran), "every tick ran in the driver's advance"
        pressed = [events for events in handed if any(events.values())]
        if kind == "replay":
            assert pressed == [], "a replay plays no one: the window's keys reach nobody"
        else:
            assert pressed == [{0: [keys.SPACE]}], "the window's key is handed to the driver once, as player 0's"
    finally:
        runner.close()
        if network is not None:
            for peer in network[1].peers:
                peer.close()


def test_the_runner_takes_six_parameters_at_most():
    from engine.render.runner import GameRunner

    parameters = [parameter for parameter in inspect.signature(GameRunner).parameters.values()
                  if parameter.kind is not inspect.Parameter.VAR_KEYWORD]
    assert [parameter.name for parameter in parameters] == ["name", "driver", "display", "ups", "local_players",
                                                            "controllers"]


# -- the old keywords: still working, warning ---------------------------------------------------------------------


@pytest.mark.usefixtures("offscreen")
def test_the_old_local_play_keywords_warn_naming_the_local_driver_and_still_work():
    from engine.render.runner import GameRunner

    ticks: list[int] = []
    with pytest.warns(DeprecationWarning, match=r"GameRunner\(after_tick=, seed=\.\.\.\).*LocalDriver\(world"):
        runner = GameRunner("patrol", display=Display(headless=True), seed=3,
                            after_tick=lambda world: ticks.append(world.tick_count))
    try:
        assert isinstance(runner.driver, LocalDriver) and runner.world.seed == 3
        runner.run(frames=5)
        assert ticks == list(range(1, runner.world.tick_count + 1)) and ticks
        with pytest.warns(DeprecationWarning, match=r"GameRunner.before_tick.*LocalDriver\(world, before_tick="):
            runner.before_tick = lambda world: ticks.append(-world.tick_count)
        runner.run(frames=1)
        assert ticks[-2:] == [-(runner.world.tick_count - 1), runner.world.tick_count]
    finally:
        runner.close()
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="go with local play, not with a driver"):
        GameRunner("patrol", LocalDriver(runner.world), seed=3)


@pytest.mark.usefixtures("offscreen")
def test_the_old_studio_keywords_warn_naming_the_studio_driver_and_still_work():
    from engine.render.runner import GameRunner

    game = load_game("patrol")
    with pytest.warns(DeprecationWarning, match=r"GameRunner\(studio=\.\.\.\).*StudioDriver\(studio"):
        runner = GameRunner(game, display=Display(headless=True), studio=Studio(game))
    try:
        assert isinstance(runner.driver, StudioDriver) and runner.studio is runner.driver.studio
        runner.run(frames=5)
        assert runner.studio.head == runner.world.tick_count > 0, "the studio's ring kept every tick"
    finally:
        runner.close()


@pytest.mark.usefixtures("offscreen")
def test_a_driver_whose_world_changes_is_drawn_with_the_new_one():
    from engine.render.runner import GameRunner

    game = load_game(str(NETGAME))
    first, second = build_world(game, 1, players=2), build_world(game, 2, players=2)

    class Swapping(LocalDriver):
        """Local play that moves to another world after three frames (a level loaded, a session joined again)."""

        polls = 0

        @property
        def world(self) -> Any:
            return second if self.polls > 3 else first

        def poll(self) -> None:
            self.polls += 1

    runner = GameRunner(game, Swapping(first), display=Display(headless=True))
    try:
        runner.run(frames=10)
        assert runner.world is second and runner.hud.world is second and second.tick_count > 0
        assert first.tick_count > 0, "the first world ticked until the driver moved on"
    finally:
        runner.close()
        first.close()

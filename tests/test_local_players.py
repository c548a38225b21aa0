"""Local players (issue 30, item 1): several players on one machine, each with input of their own.

Every pad is a player and the keyboard is split (the game's ``PLAYER_KEYS``, or WASD and the
arrows), in a window's run (its event feed driven here without a real window), in recordings
and replays, and in a network session whose host plays two players against a remote third.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import World, keys
from engine.display import Display
from engine.files.game import GameError
from engine.input import InputEvent
from engine.testing import load_game

DUEL = '''"""Two fighters, each moved by its own player's arrows, jumping on Space."""
from engine import Entity, keys

PLAYERS = range(1, 3)


class Fighter(Entity):
    saved = ("player",)

    def __init__(self, player):
        super().__init__(x=100.0 + 200 * player, y=100.0)
        self.player = player

    def update(self, world):
        me = world.input_of(self.player)
        self.x += 2 * (me.pressed(keys.RIGHT) - me.pressed(keys.LEFT))
        self.y += 2 * (me.pressed(keys.UP) - me.pressed(keys.DOWN))
        if me.just_pressed(keys.SPACE):
            self.y += 50


def build(world):
    for player in range(world.players):
        world.spawn(Fighter(player))
'''


@pytest.fixture
def duel(tmp_path: Path) -> Path:
    path = tmp_path / "duel.py"
    path.write_text(DUEL)
    return path


@pytest.fixture
def runner_of():
    made = []

    def make(game_file, players=2, **kwargs):
        from engine.render.runner import GameRunner

        game = load_game(str(game_file))
        world = World(players=players)
        game.setup(world)
        from engine.world.driver import LocalDriver

        hooks = {hook: kwargs.pop(hook) for hook in ("before_tick", "after_tick") if hook in kwargs}
        runner = GameRunner(game, LocalDriver(world, **hooks), display=Display(headless=True), **kwargs)
        made.append(runner)
        return runner

    yield make
    for runner in made:
        runner.close()


def _one_tick(runner) -> None:
    ticks = runner.world.tick_count
    while runner.world.tick_count == ticks:
        runner.run(frames=1)


def _fighters(world):
    return sorted((entity for entity in world.entities), key=lambda fighter: fighter.player)


# -- the rule ---------------------------------------------------------------------------------


def test_the_default_split_reads_each_half_of_the_keyboard_as_its_players_arrows_space_and_return():
    from engine.input import LocalPlayers

    local = LocalPlayers(2)
    routed = {name: local.route(InputEvent("key_press", getattr(keys, name), modifiers=keys.MOD_SHIFT))
              for name in ("W", "A", "S", "D", "SPACE", "E", "UP", "LEFT", "RCTRL", "RETURN", "R")}
    assert routed["W"] == [(0, InputEvent("key_press", keys.UP))], "a split key carries no modifiers"
    assert [routed[name][0][1].key for name in ("A", "S", "D", "SPACE", "E")] == [
        keys.LEFT, keys.DOWN, keys.RIGHT, keys.SPACE, keys.RETURN]
    assert [routed[name][0] for name in ("UP", "LEFT", "RCTRL", "RETURN")] == [
        (1, InputEvent("key_press", keys.UP)), (1, InputEvent("key_press", keys.LEFT)),
        (1, InputEvent("key_press", keys.SPACE)), (1, InputEvent("key_press", keys.RETURN))]
    assert routed["R"] == [(0, InputEvent("key_press", keys.R, modifiers=keys.MOD_SHIFT))], \
        "a key no part names is the first player's, as itself"
    mouse = InputEvent("mouse_press", keys.MOUSE_LEFT, 3.0, 4.0)
    assert local.route(mouse) == [(0, mouse)] and local.route(InputEvent("text", "w")) == [
        (0, InputEvent("text", "w"))], "the mouse and typed text are the first player's"


def test_a_split_keys_caret_motion_is_its_players_not_the_first_players():
    """Player 1 holding Up (its arrows) repeats MOTION_UP: that is player 1's, never player 0's input."""
    from engine.input import LocalPlayers

    local = LocalPlayers(2)
    held = InputEvent("text_motion", keys.MOTION_UP)
    assert local.route(held) == [(1, held)]
    assert local.route(InputEvent("text_motion", keys.MOTION_NEXT_WORD)) == [
        (0, InputEvent("text_motion", keys.MOTION_NEXT_WORD))], "a motion of no player's key is the first player's"
    assert LocalPlayers(1).route(held) == [(0, held)], "alone, the whole keyboard is the player's"
    assert LocalPlayers((3, 5)).route(held) == [(5, held)], "the world's player of that part"


def test_one_player_alone_has_the_whole_keyboard_untouched_and_every_pad():
    from engine.input import LocalPlayers

    local = LocalPlayers(1)
    for key in (keys.W, keys.UP, keys.RCTRL):
        event = InputEvent("key_press", key, modifiers=keys.MOD_CTRL)
        assert local.route(event) == [(0, event)]
    assert {local.pad_player(slot) for slot in range(4)} == {0}


@pytest.mark.parametrize(("players", "player_keys", "pads"), [
    (2, None, [0, 1, 0, 1]),               # each half of the keyboard, then a pad beside each
    (3, None, [2, 0, 1, 2]),               # the third player's pad first
    (4, None, [2, 3, 0, 1]),
    (2, {}, [1, 0, 1, 0]),                 # the keyboard whole for player 0: the first pad is player 1's
    ((5, 6), None, [5, 6, 5, 6]),          # a host's local players need not start at 0
])
def test_pad_slot_k_plays_local_player_k_past_the_keyboards(players, player_keys, pads):
    from engine.input import LocalPlayers

    local = LocalPlayers(players, player_keys)
    assert [local.pad_player(slot) for slot in range(4)] == pads


def test_a_key_held_by_two_devices_of_one_player_is_released_when_the_last_lets_go():
    from engine.input import LocalPlayers

    local = LocalPlayers(2)
    press, release = (InputEvent(kind, keys.RCTRL) for kind in ("key_press", "key_release"))
    assert local.route(press) == [(1, InputEvent("key_press", keys.SPACE))]
    assert local.route(InputEvent("key_press", keys.NUM_0)) == [], "Space is already held by player 1"
    assert local.route(release) == [], "the keypad's 0 still holds it"
    assert local.route(InputEvent("key_release", keys.NUM_0)) == [(1, InputEvent("key_release", keys.SPACE))]
    one = LocalPlayers(1)  # two pads, one player: their A is one button
    a_down, a_up = InputEvent("key_press", keys.PAD_A), InputEvent("key_release", keys.PAD_A)
    assert one.route(a_down, pad=0) == [(0, a_down)] and one.route(a_down, pad=1) == []
    assert one.route(a_up, pad=0) == [] and one.route(a_up, pad=1) == [(0, a_up)]
    assert one.route(a_up, pad=1) == [(0, a_up)], "a release nothing pressed is passed on, as it would be alone"


def test_a_games_player_keys_split_the_keyboard_its_way():
    from engine.input import DEFAULT_PLAYER_KEYS, LocalPlayers
    from engine.input.local import check_player_keys

    split = check_player_keys({0: (keys.W, keys.S), 1: {keys.UP: keys.W, keys.DOWN: keys.S}}, 2)
    local = LocalPlayers(2, split)
    assert local.route(InputEvent("key_press", keys.W)) == [(0, InputEvent("key_press", keys.W))]
    assert local.route(InputEvent("key_press", keys.DOWN)) == [(1, InputEvent("key_press", keys.S))]
    assert local.route(InputEvent("key_press", keys.A)) == [(0, InputEvent("key_press", keys.A))]
    assert local.keyboard_players == 2 and DEFAULT_PLAYER_KEYS[0][keys.W] == keys.UP


@pytest.mark.parametrize(("value", "said"), [
    ([keys.W], "PLAYER_KEYS must be a dict of each player's keys"),
    ({1: (keys.W,)}, "PLAYER_KEYS names players 0, 1, ... in turn"),
    ({0: (keys.W,), "1": (keys.UP,)}, "PLAYER_KEYS names players 0, 1, ... in turn"),
    ({0: (), 1: (), 2: ()}, "PLAYER_KEYS names 3 players, but the game is played by at most 2"),
    ({0: keys.W}, "PLAYER_KEYS[0] must be a dict of keys to the keys read"),
    ({0: (keys.PAD_A,)}, "PLAYER_KEYS[0] names 1048576, which is no keyboard key"),
    ({0: ("w",)}, "PLAYER_KEYS[0] names 'w', which is no keyboard key"),
    ({0: {keys.W: "up"}}, "PLAYER_KEYS[0] reads W as 'up', which is no key"),
    ({0: (keys.F2,)}, "PLAYER_KEYS[0] names F2, which the engine keeps"),
    ({0: {keys.W: keys.ESCAPE}}, "PLAYER_KEYS[0] names ESCAPE, which the engine keeps"),
    ({0: (keys.W,), 1: {keys.W: keys.UP}}, "PLAYER_KEYS gives W to player 0 and to player 1"),
])
def test_a_bad_player_keys_is_refused_when_the_game_loads_in_one_line(tmp_path, value, said):
    game = tmp_path / "bad.py"
    game.write_text(f"PLAYERS = 2\nPLAYER_KEYS = {value!r}\ndef build(world):\n    pass\n")
    with pytest.raises(GameError) as caught:
        load_game(str(game))
    message = str(caught.value)
    assert message.startswith(f"{game}: ") and said in message and "\n" not in message


# -- in a window's run ----------------------------------------------------------------------


def test_two_players_on_one_keyboard_move_independently(duel, runner_of):
    runner = runner_of(duel)
    first, second = _fighters(runner.world)
    runner.run(frames=2)
    window = runner.window
    window.dispatch_event("on_key_press", keys.D, keys.MOD_SHIFT)  # player 0: right
    window.dispatch_event("on_key_press", keys.LEFT, 0)            # player 1: left
    window.dispatch_event("on_key_press", keys.RCTRL, 0)           # player 1: jump (Space)
    _one_tick(runner)
    world = runner.world
    assert world.input_of(0).pressed(keys.RIGHT) and not world.input_of(0).pressed(keys.LEFT)
    assert world.input_of(1).pressed(keys.LEFT) and world.input_of(1).just_pressed(keys.SPACE)
    assert world.input_of(0).modifiers == 0, "player 0's key carries no modifier of the shared keyboard"
    assert (first.x, first.y) == (102.0, 100.0) and (second.x, second.y) == (298.0, 150.0)
    window.dispatch_event("on_key_release", keys.D, 0)
    window.dispatch_event("on_key_press", keys.W, 0)               # player 0: up; player 1 still holds left
    _one_tick(runner)
    assert (first.x, first.y) == (102.0, 102.0) and (second.x, second.y) == (296.0, 150.0)
    window.dispatch_event("on_key_press", keys.F2, 0)              # the engine's keys stay the engine's
    runner.run(frames=1)
    assert runner.paused and not any(world.input_queue_of(p).state()[0] for p in range(2))


def test_two_pads_are_two_players_and_an_unplugged_one_lets_go(duel, runner_of):
    from test_pads import _fakes, _Vec

    FakeController, FakeManager = _fakes()
    pads = [FakeController(), FakeController()]
    manager = FakeManager(list(pads))
    runner = runner_of(duel, controllers=manager)
    pads[0].dispatch_event("on_dpad_motion", pads[0], _Vec(1, 0))    # the first pad: player 0, right
    pads[1].dispatch_event("on_button_press", pads[1], "a")
    pads[1].dispatch_event("on_stick_motion", pads[1], "leftstick", _Vec(-0.5, 0.0))
    _one_tick(runner)
    world = runner.world
    assert world.input_of(0).held == {keys.PAD_RIGHT} and world.input_of(1).held == {keys.PAD_A}
    assert world.input_of(1).stick(0) == (-0.5, 0.0) and world.input_of(0).stick(0) == (0.0, 0.0)
    manager.controllers.remove(pads[1])
    manager.dispatch_event("on_disconnect", pads[1])
    _one_tick(runner)
    assert world.input_of(1).held == frozenset() and world.input_of(1).stick(0) == (0.0, 0.0)
    assert world.input_of(0).held == {keys.PAD_RIGHT}, "the other pad's player holds on"


def test_a_recording_of_two_local_players_replays(duel, runner_of, tmp_path, capsys):
    from engine.files.replay import Recorder
    from engine.tools.cli import main

    recording = tmp_path / "two.jsonl"
    game = load_game(str(duel))
    recorder = Recorder(str(recording), game=game.name, game_digest=game.digest, seed=0,
                        ms_per_update=game.ms_per_update, players=2)
    runner = runner_of(duel, after_tick=recorder.after_tick)
    recorder.start(runner.world)
    window = runner.window
    for frame in range(40):
        if frame == 3:
            window.dispatch_event("on_key_press", keys.A, 0)
            window.dispatch_event("on_key_press", keys.UP, 0)
        if frame == 20:
            window.dispatch_event("on_key_release", keys.A, 0)
            window.dispatch_event("on_key_press", keys.NUM_0, 0)
        runner.run(frames=1)
    recorder.close(runner.world)
    end = runner.world.state_hash()
    first, second = _fighters(runner.world)
    assert first.x < 100.0 and first.y == 100.0 and second.x == 300.0 and second.y > 150.0
    lines = [json.loads(line) for line in recording.read_text().splitlines()]
    assert {line.get("player", 0) for line in lines if "input" in line} == {0, 1}
    assert main(["replay", str(recording), "--game", str(duel)]) == 0
    assert "all match" in capsys.readouterr().out
    from engine.files.replay.format import read_replay

    assert read_replay(recording).end_hash == end


# -- in a network session: two players on the host's machine against a remote third -------------

SCRIPTS = [
    {5: [InputEvent("key_press", keys.RIGHT)], 40: [InputEvent("key_release", keys.RIGHT)]},
    {7: [InputEvent("key_press", keys.LEFT)], 90: [InputEvent("key_release", keys.LEFT)],
     91: [InputEvent("key_press", keys.RIGHT)], 260: [InputEvent("key_release", keys.RIGHT)]},
    {3: [InputEvent("key_press", keys.RIGHT)], 200: [InputEvent("key_release", keys.RIGHT)]},
]


@pytest.mark.parametrize("emulation", [None, dict(loss=0.2, delay_ms=30, seed=5)])
def test_a_session_with_two_local_players_on_one_peer_ends_bit_identical_with_an_offline_run(emulation):
    from netsim import Net, reference

    from engine.net import Emulation, SessionOptions

    options = SessionOptions(emulation=Emulation(**emulation)) if emulation else None
    net = Net()
    host = net.host(players=3, local=2, options=options)
    joiner = net.join(options=options)
    joiner.script = SCRIPTS[2]  # before its welcome: its own player's, whichever seat it gets
    net.open()
    assert host.local_players == (0, 1) and joiner.player == 2 and joiner.local_players == (2,)
    assert "all 3 players are in: the session starts" in net.said[0]
    host.machine.scripts = {0: SCRIPTS[0], 1: SCRIPTS[1]}
    assert host.set_input_delay(4, at=100) == 100  # both local players' input moves at once, every peer agreeing
    net.play_ticks(300)
    assert host.ended is None and joiner.ended is None
    assert host.machine.sync is not None and joiner.machine.sync is not None
    assert host.machine.sync.input_delay == joiner.machine.sync.input_delay == 4
    assert host.world is not None and joiner.world is not None
    assert host.world.state_hash() == joiner.world.state_hash() == reference(300, SCRIPTS)
    assert reference(300, SCRIPTS) != reference(300, [SCRIPTS[0], {}, SCRIPTS[2]]), "player 1's input counts"


def test_a_window_hands_a_session_each_local_players_events_as_that_players():
    from netsim import Net

    net = Net()
    host = net.host(players=3, local=2)
    net.join()
    net.open()
    given = {1: {0: [InputEvent("key_press", keys.RIGHT)], 1: [InputEvent("key_press", keys.LEFT)]}}
    net.play_frames(200, inputs=lambda peer, frame: given.get(frame, {}) if peer == 0 else ())
    for peer in net.peers:
        assert peer.machine.sync is not None and peer.world is not None
        assert peer.machine.sync.emitted > 20
        everyone: list[Any] = list(peer.world.entities)
        movers = sorted(everyone, key=lambda mover: mover.player)
        assert movers[0].x > 0.0 and movers[1].x < 100.0 and movers[2].x == 200.0, [m.x for m in movers]
    with pytest.raises(ValueError, match=r"player 2 is not played here \(this peer plays \[0, 1\]\)"):
        host.advance({2: [InputEvent("key_press", keys.LEFT)]})


def test_a_host_plays_fewer_players_than_the_session_has():
    from netsim import GAME

    from engine.net import Session
    from engine.net.emulate import MemoryNetwork

    for local in (0, 3, True):
        with pytest.raises(ValueError, match=f"local={local!r}: a host plays 1 to 2 of its 3 players itself"):
            Session.host(GAME, players=3, local=local, transport=MemoryNetwork().transport(7777))


# -- the command line: tickswap host GAME --players 3 --local 2, real processes on 127.0.0.1 ------------------


def test_a_host_with_two_local_players_and_a_joiner_end_on_the_hash_of_a_plain_run_and_replay(tmp_path):
    import shutil

    from test_net_session import GAME, SCRIPTS, hash_of, host, join, plain_run, replays, script

    shutil.copy(GAME, tmp_path / "game.py")
    script(tmp_path / "here.jsonl", {0: SCRIPTS[0], 1: SCRIPTS[1]}, named=True)
    script(tmp_path / "p2.jsonl", {2: SCRIPTS[2]}, named=False)
    first, port = host(tmp_path, "--local", "2", "--ticks", "300", "--input", "here.jsonl", "--record", "h.jsonl",
                       players=3)
    second = join(tmp_path, port, "--ticks", "300", "--input", "p2.jsonl", "--record", "j.jsonl")
    (status1, out1, err1), (status2, out2, err2) = first.finish(), second.finish()
    assert (status1, status2) == (0, 0), err1 + err2
    assert "hosting game.py for 3 players (players 0 and 1 here) on 127.0.0.1:" in err1, err1
    assert "player 2 joined" in err1 and "joined 127.0.0.1:" in err2 and "as player 2 of 3" in err2, err1 + err2
    assert hash_of(out1) == hash_of(out2) == plain_run(tmp_path, 300, 3)
    replays(tmp_path, "h.jsonl")
    replays(tmp_path, "j.jsonl")


@pytest.mark.parametrize(("args", "said"), [
    (["--players", "3", "--local", "3"], "--local 3: with --players 3 no seat is left for a joiner (a host plays at "
                                         "most 2 of its players itself); give --players 4 or more"),
    (["--players", "3", "--local", "2", "--input", "other.jsonl"],
     "--input other.jsonl scripts player 2, but this peer plays players 0 and 1: a peer scripts only its own players"),
])
def test_a_host_refuses_local_players_it_cannot_have_in_one_line_before_opening_its_port(tmp_path, capsys, args,
                                                                                          said, monkeypatch):
    import shutil

    from test_net_session import GAME

    from engine.tools.cli import main

    shutil.copy(GAME, tmp_path / "game.py")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "other.jsonl").write_text('{"player": 2, "tick": 3, "input": [["key_press", "LEFT", 0, 0]]}\n')
    assert main(["host", str(tmp_path / "game.py"), "--port", "0", "--ticks", "10", *args]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1 and "hosting" not in err, err


def test_a_runner_that_makes_its_own_world_gives_it_the_fewest_players_the_game_takes(duel, tmp_path):
    from engine.render.runner import GameRunner

    two = tmp_path / "two.py"
    two.write_text(DUEL.replace("PLAYERS = range(1, 3)", "PLAYERS = range(2, 4)"))
    runner = GameRunner(str(two), display=Display(headless=True))
    try:
        assert runner.world.players == 2 and runner.local_players.players == (0, 1)
        runner.window.dispatch_event("on_key_press", keys.UP, 0)
        _one_tick(runner)
        assert runner.world.input_of(1).pressed(keys.UP) and not runner.world.input.pressed(keys.UP)
    finally:
        runner.close()


def test_pong_for_two_on_one_keyboard_left_paddle_on_w_s_right_on_the_arrows(runner_of):
    from games.pong.logic import Paddle

    runner = runner_of("pong")
    window = runner.window
    window.dispatch_event("on_key_press", keys.RCTRL, 0)  # player 1 serves (Right Ctrl is its Space)
    _one_tick(runner)
    window.dispatch_event("on_key_release", keys.RCTRL, 0)
    left, right = sorted(runner.world.entities_of(Paddle), key=lambda paddle: paddle.x)
    before = (left.y, right.y)
    window.dispatch_event("on_key_press", keys.W, 0)
    window.dispatch_event("on_key_press", keys.DOWN, 0)
    for _ in range(5):
        _one_tick(runner)
    assert left.y > before[0] and right.y < before[1]


PUNCH = '''from engine import Entity, buffered, keys

PLAYERS = 2
PLAYER_KEYS = {0: {keys.W: keys.UP, keys.F: keys.J}, 1: {keys.UP: keys.UP, keys.NUM_1: keys.J}}
order = []


class Boxer(Entity):
    saved = ("player",)
    punches = buffered(0)

    def __init__(self, player):
        super().__init__()
        self.player = player

    def update(self, world):
        if world.input_of(self.player).just_pressed(keys.J):  # a punch read as J: order-dependent on purpose
            order.append(self.player)
            self.punches = len(order)


def build(world):
    order.clear()
    for player in range(world.players):
        world.spawn(Boxer(player))
'''


def test_check_presses_the_keys_a_games_player_keys_reads_for_every_player(tmp_path, capsys):
    from engine.tools.cli import main

    game = tmp_path / "punch.py"
    game.write_text(PUNCH)
    assert main(["check", str(game), "--ticks", "200", "--hash-seeds", "0", "--saves", "0"]) == 1
    out = capsys.readouterr().out
    assert "order dependent" in out or "differs" in out, out


# -- with sessions that survive a drop: the host's own players are players too ---------------------


def test_a_host_with_two_local_players_plays_on_when_its_one_joiner_drops_and_takes_it_back_with_its_code():
    """3 players, 2 on the host's keyboard: the remote third dropping leaves two, who play on; a spectator arrives."""
    import re
    from dataclasses import replace

    from netsim import Net, offline
    from test_net_play import PLAYER_SCRIPTS
    from test_net_survive import CONNECT, DISCONNECT, cut

    from engine.net import Session, SessionOptions

    options = SessionOptions(ticks=900, disconnect_timeout=0.5)
    net = Net()
    host = net.host(players=3, local=2, options=options)
    third = net.join(options=options)
    net.open()
    host.machine.scripts = {0: PLAYER_SCRIPTS[0], 1: PLAYER_SCRIPTS[1]}
    third.script = PLAYER_SCRIPTS[2]
    code = third.rejoin_code
    assert code is not None
    back: list[Session] = []
    watchers: list[Session] = []

    def meddle(round_: int) -> None:
        if round_ == 150:
            net.kill(third)
        if round_ > 150 and 2 in host.machine.dropped and not watchers:
            watchers.append(net.join(spectate=True))  # it starts from a save holding the two local players' input
        if round_ > 150 and 2 in host.machine.dropped and not back and watchers and watchers[0].ready:
            again = net.join(options=replace(options, rejoin=code))
            again.script = PLAYER_SCRIPTS[2]
            back.append(again)
    net.play_session(900, between=meddle)
    assert back, f"the host ended instead of playing on: {host.ended}"
    again, watcher = back[0], watchers[0]
    assert watcher.machine.late and again.machine.late
    said = "\n".join(net.said[0])
    dropped_at = re.search(r"player 2 is disconnected from tick (\d+)", said)
    back_at = re.search(r"player 2 is back from tick (\d+)", said)
    assert dropped_at is not None and back_at is not None, said
    dropped, returned = int(dropped_at.group(1)), int(back_at.group(1))
    assert re.search(r"player 2 \(127\.0\.0\.1:\d+\) sent nothing for 0\.5 s: dropped at tick \d+: the others play on",
                     said), said
    scripts = [PLAYER_SCRIPTS[0], PLAYER_SCRIPTS[1],
               {**cut(PLAYER_SCRIPTS[2], before=dropped, after=returned), dropped: [DISCONNECT],
                returned: [CONNECT]}]
    expected = offline(900, scripts)
    for peer in (host, again, watcher):
        assert peer.machine.ended is None and peer.machine.finished, peer.machine.ended
        assert peer.world is not None
        assert peer.world.tick_count == 900 and peer.world.state_hash() == expected.hash
    assert again.player == 2 and again.local_players == (2,) and host.local_players == (0, 1)


@pytest.mark.parametrize(("extra", "said"), [
    (["--spectate"], "--local 2: a spectator plays no one"),
    (["--rejoin", "0" * 48], "--local 2: a rejoin takes back one seat"),
])
def test_join_local_is_refused_for_a_spectator_and_a_rejoin(capsys, extra, said):
    """A joiner plays several players with --local N (issue 39); a spectator or a rejoin has no seats to ask for."""
    from engine.tools.cli import main

    assert main(["join", "127.0.0.1:9", "TESTCD", "--ticks", "10", "--local", "2", *extra]) == 2
    assert said in capsys.readouterr().err

"""world.play: sounds are effects, asked for during a tick and played after it, never state."""

from __future__ import annotations

import random

import pytest

from engine import Entity, World
from engine.display import Display
from engine.world import take_sounds


class Drummer(Entity):
    """Plays a sound every third tick, louder and louder."""

    def update(self, world: World) -> None:
        self.x += 1
        if world.tick_count % 3 == 0:
            world.play("drum.wav", volume=min(1.0, self.x / 10))


def test_playing_changes_no_state_hash():
    hashes = []
    for play in (True, False):
        with World(seed=3) as world:
            drummer = world.spawn(Drummer())
            if not play:
                def silent(w: World, d: Drummer = drummer) -> None:  # the same, silent
                    d.x = d.x + 1

                drummer.update = silent  # type: ignore[method-assign, assignment]  # replaced on this one instance
            for _ in range(9):
                world.tick()
            hashes.append(world.state_hash())
            assert world.random.random() == World(seed=3).random.random()
    assert hashes[0] == hashes[1]


def test_sounds_are_handed_over_after_their_tick_with_its_number(world):
    world.spawn(Drummer())
    heard: list[tuple[int, str, float]] = []
    for _ in range(7):
        world.tick()
        heard.extend((request.tick, request.path, request.volume) for request in take_sounds(world))
    assert heard == [(1, "drum.wav", 0.1), (4, "drum.wav", 0.4), (7, "drum.wav", 0.7)]
    assert take_sounds(world) == []


def test_a_failing_tick_drops_its_sounds_and_the_retry_asks_once(world):
    class Flaky(Entity):
        fail = True

        def update(self, world: World) -> None:
            world.play("boom.ogg")
            if Flaky.fail:
                raise RuntimeError("not yet")

    world.spawn(Flaky())
    with pytest.raises(Exception, match="not yet"):
        world.tick()
    assert take_sounds(world) == []
    Flaky.fail = False
    world.tick()
    assert [(r.tick, r.path) for r in take_sounds(world)] == [(1, "boom.ogg")]


def test_bad_requests_are_refused_by_name(world):
    with pytest.raises(ValueError, match="volume goes from 0.0 to 1.0"):
        world.play("a.wav", volume=2)
    with pytest.raises(ValueError, match="a sound is a .wav"):
        world.play("a.txt")
    with pytest.raises(TypeError, match="path of a sound file"):
        world.play(None)


@pytest.mark.usefixtures("offscreen")
def test_a_headless_run_is_silent_and_its_replay_asks_for_the_same_sounds_at_the_same_ticks(tmp_path):
    import sys

    from engine.render.runner import GameRunner

    game = tmp_path / "drums.py"
    game.write_text(
        "from engine import Entity, keys\n"
        "class Drum(Entity):\n"
        "    def update(self, world):\n"
        "        if world.input.just_pressed(keys.SPACE):\n"
        "            world.play('drum.wav')\n"
        "        if world.tick_count % 5 == 0:\n"
        "            world.play('tick.wav', 0.5)\n"
        "def build(world):\n"
        "    world.spawn(Drum())\n")
    media_before = "pyglet.media" in sys.modules
    recorded: dict[int, list] = {}
    from engine.files.importer import load_game
    from engine.tools.cli.worlds import build_world
    from engine.world.driver import LocalDriver

    loaded = load_game(str(game))
    after = LocalDriver(build_world(loaded, 0), after_tick=lambda w: recorded.__setitem__(w.tick_count, []))
    live = GameRunner(loaded, after, display=Display(headless=True))
    live.world.input_queue.press(32)
    live.run(frames=20)
    live.world.input_queue.press(32)
    live.run(frames=20)
    played = list(live.sound.played)
    assert media_before or "pyglet.media" not in sys.modules, "headless never touches the audio system"
    assert [r.path for r in played].count("drum.wav") == 2 and "tick.wav" in [r.path for r in played]
    ticks = live.world.tick_count
    live.close()

    # A replay feeds the recorded input before each tick: the same sounds at the same ticks.
    first_drum = next(r.tick for r in played if r.path == "drum.wav")
    second_drum = [r.tick for r in played if r.path == "drum.wav"][1]
    inputs = {first_drum: [32], second_drum: [32]}

    def feed(world):
        for key in inputs.get(world.tick_count + 1, []):
            world.input_queue.press(key)

    fed = LocalDriver(build_world(loaded, 0), players=(), before_tick=feed)  # the window's keys reach no one
    replay = GameRunner(loaded, fed, display=Display(headless=True))
    while replay.world.tick_count < ticks:
        replay.run(frames=1)
    assert list(replay.sound.played) == played
    replay.close()


def test_a_player_without_an_audio_device_goes_on_silently(monkeypatch, capsys, tmp_path):
    import pyglet.media

    from engine.render.sound import SoundPlayer
    from engine.world.sounds import SoundRequest

    def no_device(*args, **kwargs):
        raise pyglet.media.exceptions.MediaException("no audio device")

    monkeypatch.setattr(pyglet.media, "load", no_device)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "drum.wav").write_bytes(b"RIFF")
    player = SoundPlayer(silent=False)
    player.play([SoundRequest("drum.wav", 1.0, 1), SoundRequest("drum.wav", 1.0, 2)])
    assert len(player.played) == 2
    assert capsys.readouterr().err.count("cannot play 'drum.wav'") == 1, "said once, never raised"


def test_a_missing_sound_file_is_said_once_even_headless(capsys, tmp_path):
    from engine.render.sound import SoundPlayer
    from engine.world.sounds import SoundRequest

    player = SoundPlayer(silent=True)
    missing = str(tmp_path / "nope.wav")
    player.play([SoundRequest(missing, 1.0, 1), SoundRequest(missing, 1.0, 2)])
    assert len(player.played) == 2
    assert capsys.readouterr().err.count(f"no sound file {missing!r}") == 1


def test_a_world_nobody_plays_for_keeps_only_the_latest_requests(world):
    from engine.world.sounds import KEPT

    class Noisy(Entity):
        def update(self, world: World) -> None:
            world.play("a.wav")
            world.play("b.wav")

    world.spawn(Noisy())
    for _ in range(KEPT):
        world.tick()
    taken = take_sounds(world)
    assert len(taken) == KEPT and taken[-1].tick == KEPT and taken[-1].path == "b.wav"


def test_a_ticks_run_says_once_that_a_sound_file_is_missing(tmp_path, capsys):
    from engine.tools.cli import main

    game = tmp_path / "noisy.py"
    game.write_text(
        "from engine import Entity\n"
        "class Noisy(Entity):\n"
        "    def update(self, world):\n"
        "        world.play('nope.wav')\n"
        "def build(world):\n"
        "    world.spawn(Noisy())\n"
    )
    assert main(["run", str(game), "--ticks", "20"]) == 0
    assert capsys.readouterr().err.count("no sound file 'nope.wav'") == 1


def test_the_working_directory_hint_is_given_only_for_a_relative_path(tmp_path, capsys):
    from engine.world.sounds import missing_file

    assert missing_file("nope.wav", set(), "sound") and missing_file(str(tmp_path / "gone.wav"), set(), "sound")
    relative, absolute = capsys.readouterr().err.splitlines()
    assert "relative path is looked up from" in relative
    assert "gone.wav" in absolute and "relative path" not in absolute


# -- a limit on plays of one sound -----------------------------------------------------------------

class Tower(Entity):
    """Fires every fourth tick, at a volume of its own: fifty of them are a battery."""

    def __init__(self, volume: float) -> None:
        super().__init__()
        self.volume = volume

    def update(self, world: World) -> None:
        if world.tick_count % 4 == 0:
            world.play("shot.wav", self.volume, limit=4)


def test_a_limited_sound_is_asked_at_most_limit_times_a_tick_the_loudest_in_any_update_order():
    heard = []
    for order in range(3):
        with World(seed=order) as world:
            for index in range(50):
                world.spawn(Tower(volume=round(0.02 * (index + 1), 2)))
            if order:
                world.shuffle_order(random.Random(order))
            world.tick()
            heard.append(sorted((r.tick, r.volume, r.limit) for r in take_sounds(world)))
    assert heard[0] == [(1, 0.94, 4), (1, 0.96, 4), (1, 0.98, 4), (1, 1.0, 4)]
    assert heard[1] == heard[0] == heard[2]


def test_different_limits_on_one_sound_in_one_tick_the_smallest_holds_and_unlimited_sounds_are_untouched(world):
    class Mixed(Entity):
        def update(self, world: World) -> None:
            for volume in (0.2, 0.9, 0.5):
                world.play("shot.wav", volume)
            world.play("shot.wav", 0.1, limit=2)
            for _ in range(6):
                world.play("step.wav", 0.3)

    world.spawn(Mixed())
    world.tick()
    taken = [(r.path, r.volume, r.limit) for r in take_sounds(world)]
    assert taken == [("shot.wav", 0.9, 2), ("shot.wav", 0.5, 2)] + [("step.wav", 0.3, None)] * 6


@pytest.mark.parametrize("limit", [0, -1, 1.5, True, 5000])
def test_a_bad_limit_is_refused_by_name(world, limit):
    with pytest.raises(ValueError, match=f"limit={limit!r}.*a whole number from 1 to 1024"):
        world.play("shot.wav", limit=limit)


def write_wav(path, milliseconds: int) -> None:
    import wave

    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(8000)
        writer.writeframes(b"\0\0" * (8 * milliseconds))


def test_the_player_skips_a_limited_play_while_limit_plays_still_sound_counting_time_in_ticks(tmp_path):
    from engine.render.sound import SoundPlayer
    from engine.world.sounds import SoundRequest, sound_length_ms

    shot = tmp_path / "shot.wav"
    write_wav(shot, 100)  # 6.4 ticks of 15.625 ms
    assert sound_length_ms(str(shot)) == 100.0
    player = SoundPlayer(silent=True)
    # Two at tick 1, one each at ticks 3, 7, 8: with limit 2, tick 3's finds two sounding
    # (until 1 * 15.625 + 100 = 115.6 ms), tick 8's (125 ms) finds them done.
    requests = [SoundRequest(str(shot), 1.0, tick, 2) for tick in (1, 1, 3, 7, 8, 8, 8)]
    player.play(requests)
    assert [r.tick for r in player.limited] == [3, 7, 8]
    assert len(player.played) == 7, "every request is logged, heard or not"
    unlimited = SoundPlayer(silent=True)
    unlimited.play([SoundRequest(str(shot), 1.0, tick) for tick in (1, 1, 3)])
    assert list(unlimited.limited) == []


def test_a_sound_of_unknown_length_is_capped_only_within_its_tick(tmp_path):
    from engine.render.sound import SoundPlayer
    from engine.world.sounds import SoundRequest, sound_length_ms

    music = tmp_path / "boom.ogg"
    music.write_bytes(b"OggS not really")
    broken = tmp_path / "broken.wav"
    broken.write_bytes(b"RIFF....")
    assert sound_length_ms(str(music)) is None and sound_length_ms(str(broken)) is None
    player = SoundPlayer(silent=True)
    player.play([SoundRequest(str(music), 1.0, tick, 1) for tick in (1, 2, 3)])
    assert list(player.limited) == []


@pytest.mark.usefixtures("offscreen")
def test_a_headless_run_hears_a_battery_of_fifty_as_limit_shots(tmp_path):
    from engine.render.runner import GameRunner

    write_wav(tmp_path / "shot.wav", 200)
    game = tmp_path / "battery.py"
    game.write_text(
        "from pathlib import Path\n"
        "from engine import Entity\n"
        "SHOT = str(Path(__file__).with_name('shot.wav'))\n"
        "class Gun(Entity):\n"
        "    def update(self, world):\n"
        "        if (world.tick_count + self.id) % 3 == 0:\n"
        "            world.play(SHOT, 0.5, limit=3)\n"
        "def build(world):\n"
        "    for _ in range(50):\n"
        "        world.spawn(Gun())\n")
    runner = GameRunner(str(game), display=Display(headless=True))
    runner.run(frames=60)
    heard = [r for r in runner.sound.played if r not in runner.sound.limited]
    per_tick = {r.tick: sum(1 for h in runner.sound.played if h.tick == r.tick) for r in runner.sound.played}
    runner.close()
    assert max(per_tick.values()) == 3, "at most 3 requests a tick reach the player"
    # 200 ms is 12.8 ticks: a window of 13 ticks never holds more than 3 heard shots.
    starts = sorted(r.tick for r in heard)
    assert starts and all(len([t for t in starts if s <= t < s + 12]) <= 3 for s in starts)


def test_a_sound_request_names_its_file_path_as_a_music_request_does_and_sound_warns():
    from engine.world.music import MusicRequest
    from engine.world.sounds import SoundRequest

    request = SoundRequest("boom.wav", 0.5, 3, 2)
    assert (request.path, request.volume, request.tick, request.limit) == ("boom.wav", 0.5, 3, 2)
    assert "path" in MusicRequest.__dataclass_fields__
    with pytest.warns(DeprecationWarning, match=r"SoundRequest\.sound is deprecated and goes in tickswap 0\.6: "
                                                r"use SoundRequest\.path"):
        assert request.sound == "boom.wav"

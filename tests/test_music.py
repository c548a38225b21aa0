"""world.music: streamed music is an effect, asked for during a tick, played after it, kept by saves."""

from __future__ import annotations

import importlib
import json
import sys

import pytest

from engine import Entity, SaveError, World
from engine.testing import load_game
from engine.world import music_of, take_music
from engine.world.save import load_world


class DJ(Entity):
    """Switches tracks at ticks 2 and 5, asks again for the same track (nothing changes), stops at 7."""

    def update(self, world: World) -> None:
        self.x += 1
        tick = world.tick_count + 1
        if tick in (2, 3):
            world.music("a.ogg", volume=0.5)
        elif tick == 5:
            world.music("b.ogg", loop=False)
        elif tick in (7, 8):
            world.music(None)


def _asked(world: World, ticks: int) -> list[tuple[int, str | None, bool, float]]:
    asked = []
    for _ in range(ticks):
        world.tick()
        asked += [(request.tick, request.path, request.loop, request.volume) for request in take_music(world)]
    return asked


def test_music_changes_are_handed_over_after_their_tick_once_and_change_no_state(world):
    world.spawn(DJ())
    assert _asked(world, 9) == [(2, "a.ogg", True, 0.5), (5, "b.ogg", False, 1.0), (7, None, True, 1.0)]
    assert take_music(world) == [] and music_of(world).current is None
    with World() as silent:
        def still(w: World) -> None:
            pass

        silent.spawn(Entity()).update = still  # type: ignore[method-assign, assignment]  # replaced on this one instance
        for _ in range(9):
            silent.tick()
    with World() as quiet:
        dj = quiet.spawn(DJ())
        def silent_dj(w: World, d: DJ = dj) -> None:
            d.x = d.x + 1

        dj.update = silent_dj  # type: ignore[method-assign, assignment]  # replaced on this one instance
        for _ in range(9):
            quiet.tick()
        assert quiet.state_hash() == world.state_hash()


def test_a_failing_tick_drops_its_music_and_the_retry_asks_once(world):
    class Flaky(Entity):
        fail = True

        def update(self, world: World) -> None:
            world.music("theme.ogg")
            if Flaky.fail:
                raise RuntimeError("not yet")

    world.spawn(Flaky())
    with pytest.raises(Exception, match="not yet"):
        world.tick()
    assert take_music(world) == [] and music_of(world).current is None
    Flaky.fail = False
    world.tick()
    world.tick()
    assert [(r.tick, r.path) for r in take_music(world)] == [(1, "theme.ogg")]


def test_a_request_between_ticks_after_a_failed_tick_is_not_taken_for_the_failed_ones(world):
    class Failing(Entity):
        def update(self, world: World) -> None:
            world.music("a.ogg")
            raise RuntimeError("broken")

    failing = world.spawn(Failing())
    with pytest.raises(Exception, match="broken"):
        world.tick()
    world.despawn(failing)
    world.music("a.ogg")  # between ticks: the failed tick's request must not make this one "already playing"
    assert [(r.tick, r.path) for r in take_music(world)] == [(0, "a.ogg")]
    current = music_of(world).current
    assert current is not None and current.path == "a.ogg"


@pytest.mark.parametrize(("args", "error", "said"), [
    ((42,), TypeError, "world.music takes the path of a music file, or None to stop, got 42"),
    (("",), TypeError, "got ''"),
    (("song.txt",), ValueError, r"world.music\('song.txt'\): music is a .wav"),
    (("song.ogg", "yes"), TypeError, "loop='yes'\\): loop is True or False"),
    (("song.ogg", True, 1.5), ValueError, "volume=1.5\\): volume goes from 0.0 to 1.0"),
    (("song.ogg", True, float("nan")), ValueError, "volume=nan"),
])
def test_bad_music_requests_are_refused_in_one_line_by_value(world, args, error, said):
    with pytest.raises(error, match=said):
        world.music(*args)
    assert take_music(world) == []


def test_a_load_resumes_the_music_a_save_kept(tmp_path, world):
    world.spawn(DJ())
    _asked(world, 6)
    path = tmp_path / "save.json"
    world.save(path)
    assert json.loads(path.read_text())["world"]["music"] == ["b.ogg", False, 1.0]
    with World.load(path) as loaded:
        assert loaded.state_hash() == world.state_hash(), "music is an effect, never in the hash"
        assert [(r.tick, r.path, r.loop) for r in take_music(loaded)] == [(6, "b.ogg", False)]
        assert _asked(loaded, 3) == [(7, None, True, 1.0)]


def test_a_save_without_music_says_nothing_of_it_and_bad_saved_music_is_refused_in_one_line(tmp_path, world):
    path = tmp_path / "save.json"
    world.save(path)
    data = json.loads(path.read_text())
    assert "music" not in data["world"]
    with World.load(path) as loaded:
        assert take_music(loaded) == []
    for bad, said in ((["a.ogg", True, 3], r"world.music: world.music\('a.ogg', volume=3\): volume goes"),
                      (["a.exe", True, 1.0], "music is a .wav"), ("a.ogg", "must be \\[path, loop, volume\\]")):
        data["world"]["music"] = bad
        path.write_text(json.dumps(data))
        with pytest.raises(SaveError, match=said) as caught:
            World.load(path)
        assert "\n" not in str(caught.value)


def test_the_player_switches_tracks_streams_them_and_stops_the_old_one(monkeypatch, tmp_path, capsys):
    from engine.render.music import MusicPlayer
    from engine.world.music import MusicRequest

    media = importlib.import_module("pyglet.media")  # after engine.render, which picks pyglet's backend

    loaded, players = [], []

    class FakePlayer:
        loop: bool  # set by the music player
        volume: float

        def __init__(self):
            self.state = "new"
            players.append(self)

        def queue(self, source):
            self.source = source

        def play(self):
            self.state = "playing"

        def pause(self):
            self.state = "paused"

        def delete(self):
            self.state = "deleted"

    def load(path, streaming):
        loaded.append((path, streaming))
        return path

    monkeypatch.setattr(media, "load", load)
    monkeypatch.setattr(media, "Player", FakePlayer)
    monkeypatch.chdir(tmp_path)
    for name in ("a.ogg", "b.ogg"):
        (tmp_path / name).write_bytes(b"OggS")
    player = MusicPlayer(silent=False)
    player.play([MusicRequest("a.ogg", True, 0.5, 1)])
    assert loaded == [("a.ogg", True)] and players[0].state == "playing"
    assert players[0].loop is True and players[0].volume == 0.5
    player.play([MusicRequest("nope.ogg", True, 1.0, 2), MusicRequest("b.ogg", False, 1.0, 2)])
    assert players[0].state == "deleted" and players[1].state == "playing" and players[1].loop is False
    assert loaded[-1] == ("b.ogg", True) and len(player.asked) == 3
    player.play([MusicRequest("nope.ogg", True, 1.0, 3), MusicRequest("nope.ogg", True, 1.0, 4)])
    player.play([MusicRequest("nope.ogg", True, 1.0, 5)])
    assert players[1].state == "deleted" and player.playing is None
    assert capsys.readouterr().err.count("no music file 'nope.ogg'") == 1, "said once, never raised"
    player.play([MusicRequest("a.ogg", True, 1.0, 6)])
    player.play([MusicRequest(None, True, 1.0, 7)])
    assert players[-1].state == "deleted" and player.playing is None


def test_a_player_without_an_audio_device_goes_on_silently(monkeypatch, capsys, tmp_path):
    from engine.render.music import MusicPlayer
    from engine.world.music import MusicRequest

    media = importlib.import_module("pyglet.media")  # after engine.render, which picks pyglet's backend

    def no_device(*args, **kwargs):
        raise media.exceptions.MediaException("no audio device")

    monkeypatch.setattr(media, "load", no_device)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.ogg").write_bytes(b"OggS")
    (tmp_path / "b.ogg").write_bytes(b"OggS")
    player = MusicPlayer(silent=False)
    player.play([MusicRequest("a.ogg", True, 1.0, 1)])
    player.play([MusicRequest("b.ogg", True, 1.0, 2)])
    assert player.playing is None and len(player.asked) == 2
    assert capsys.readouterr().err.count("cannot play the music") == 1


@pytest.mark.usefixtures("offscreen")
def test_a_headless_run_is_silent_and_logs_the_music_at_its_ticks(tmp_path):
    from engine.render.runner import GameRunner

    game = tmp_path / "dj.py"
    game.write_text("from engine import Entity\n"
                    "class DJ(Entity):\n"
                    "    def update(self, world):\n"
                    "        if world.tick_count == 3:\n"
                    "            world.music('theme.ogg')\n"
                    "def build(world):\n"
                    "    world.spawn(DJ())\n")
    media_before = "pyglet.media" in sys.modules
    runner = GameRunner(str(game), headless=True)
    runner.run(frames=10)
    assert [(r.tick, r.path) for r in runner.music.asked] == [(4, "theme.ogg")]
    assert runner.pads is None and runner.music.playing is None
    assert media_before or "pyglet.media" not in sys.modules, "headless never touches the audio system"
    runner.close()


def test_a_ticks_run_says_once_that_a_music_file_is_missing(tmp_path, capsys):
    from engine.tools.cli import main

    game = tmp_path / "dj.py"
    game.write_text("from engine import Entity\n"
                    "class DJ(Entity):\n"
                    "    def update(self, world):\n"
                    "        world.music('nope.ogg' if world.tick_count % 2 else 'gone.ogg')\n"
                    "def build(world):\n"
                    "    world.spawn(DJ())\n")
    assert main(["run", str(game), "--ticks", "20"]) == 0
    err = capsys.readouterr().err
    assert err.count("no music file 'nope.ogg'") == 1 and err.count("no music file 'gone.ogg'") == 1


def test_a_saved_track_outside_its_games_directory_is_refused_and_one_inside_resumes(tmp_path):
    from engine.testing import load_game, save_game
    from engine.world.save import load_world

    (tmp_path / "game").mkdir()
    (tmp_path / "game" / "theme.ogg").write_bytes(b"")
    (tmp_path / "game" / "g.py").write_text(
        "from pathlib import Path\nfrom engine import Entity\n"
        "class DJ(Entity):\n    def update(self, world):\n"
        "        world.music(str(Path(__file__).parent / 'theme.ogg'))\n"
        "def build(world):\n    world.spawn(DJ())\n")
    game = load_game(tmp_path / "game" / "g.py")
    with World() as world:
        game.setup(world)
        world.tick()
        save_game(world, game, str(tmp_path / "s.json"))
    with load_world(tmp_path / "s.json", game, world_class=World) as loaded:
        assert [r.path for r in take_music(loaded)] == [str(tmp_path / "game" / "theme.ogg")]
    data = json.loads((tmp_path / "s.json").read_text())
    for elsewhere in (str(tmp_path / "secret.ogg"), "../../../../tmp/secret.ogg", "/etc/secret.wav"):
        data["world"]["music"][0] = elsewhere
        (tmp_path / "edited.json").write_text(json.dumps(data))
        with pytest.raises(SaveError, match="outside its game's directory") as caught:
            load_world(tmp_path / "edited.json", game, world_class=World)
        assert "\n" not in str(caught.value)


DJ_GAME = ("from pathlib import Path\nfrom engine import Entity\n"
           "class DJ(Entity):\n    def update(self, world):\n"
           "        world.music(Path(__file__).parent / 'music' / 'theme.ogg')\n"
           "def build(world):\n    world.spawn(DJ())\n")


def test_a_saves_music_is_named_inside_its_game_and_the_save_loads_with_a_copy_of_the_game_elsewhere(
        tmp_path, capsys):
    # Issue 39's defects 3 and 4: the music was saved by its absolute path, so a copy of the
    # game elsewhere (or the packaged program, which runs a copy) refused the save.
    import shutil

    from engine.tools.cli import main

    first = tmp_path / "first"
    (first / "music").mkdir(parents=True)
    (first / "music" / "theme.ogg").write_bytes(b"OggS")
    (first / "dj.py").write_text(DJ_GAME)
    assert main(["run", str(first / "dj.py"), "--ticks", "5", "--save-at", "5", str(tmp_path / "s.json")]) == 0
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["world"]["music"][0] == {"beside": "music/theme.ogg"}, data["world"]["music"]
    assert str(tmp_path) not in (tmp_path / "s.json").read_text(), "no directory of the game's in its save"
    second = tmp_path / "elsewhere" / "second"
    shutil.copytree(first, second)
    shutil.rmtree(first)
    capsys.readouterr()
    assert main(["run", str(second / "dj.py"), "--ticks", "3", "--load", str(tmp_path / "s.json")]) == 0, \
        capsys.readouterr().err
    game = load_game(second / "dj.py")
    with load_world(tmp_path / "s.json", game, world_class=World) as loaded:
        assert [r.path for r in take_music(loaded)] == [str(second / "music" / "theme.ogg")]


def test_a_saved_track_beside_its_game_is_checked_as_a_picture_is_and_needs_its_game(tmp_path):
    from engine.tools.cli import main

    (tmp_path / "music").mkdir()
    (tmp_path / "music" / "theme.ogg").write_bytes(b"OggS")
    (tmp_path / "dj.py").write_text(DJ_GAME)
    assert main(["run", str(tmp_path / "dj.py"), "--ticks", "2", "--save-at", "2", str(tmp_path / "s.json")]) == 0
    game = load_game(tmp_path / "dj.py")
    data = json.loads((tmp_path / "s.json").read_text())
    for bad in ("../theme.ogg", "/etc/theme.ogg", "a\\b.ogg", "", "music/../../x.ogg"):
        data["world"]["music"][0] = {"beside": bad}
        (tmp_path / "edited.json").write_text(json.dumps(data))
        with pytest.raises(SaveError, match=r"world\.music.*beside") as caught:
            load_world(tmp_path / "edited.json", game, world_class=World)
        assert "\n" not in str(caught.value)
    with pytest.raises(SaveError, match="names its music inside its game's directory: load it with its game"):
        load_world(tmp_path / "s.json", world_class=World)

"""Looks of pictures know their size and their file when made; angle at spawn; one entity count.

Issue 29, defects 4, 5 and 7: ``Look(image=...)`` had no box (mouse picking and
``overlapping_at`` never found it), a missing picture was found only when first drawn
(``--ticks`` runs never saw it), ``Entity(angle=...)`` was a TypeError, and the HUD's
entity count was not the summary line's.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine import Entity, Look, World
from engine.disk.png import PictureError, png_size

ROOT = Path(__file__).resolve().parent.parent
BALL = str(ROOT / "games" / "pong" / "ball.png")


def test_a_picture_look_has_its_pictures_size_as_its_box():
    width, height = png_size(BALL)
    assert Look(image=BALL).box == (float(width), float(height))
    assert Look(image=BALL, size=(3, 5)).box == (3.0, 5.0), "a size given wins"
    assert Look(image=BALL, region=(0, 0, 2, 3)).box == (2.0, 3.0), "a region's size"


def test_overlapping_at_finds_an_entity_drawn_as_a_picture():
    width, _ = png_size(BALL)

    class Tower(Entity):
        look = Look(image=BALL)

    with World() as world:
        tower = world.spawn(Tower(x=100, y=100))
        assert world.overlapping_at(100 + width / 2 - 1, 100, (1, 1)) == [tower]
        assert world.overlapping_at(100 + width / 2 + 2, 100, (1, 1)) == []


def test_a_missing_picture_is_refused_when_the_look_is_made_naming_the_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PictureError, match=r"cannot read the picture tower\.png: No such file .*relative path is "
                                           r"read from the working directory, .*: build it .*Path\(__file__\)\.parent / 'tower\.png'\)"):
        Look(image="tower.png")
    (tmp_path / "tower.png").write_bytes(b"GIF89a not a png")
    with pytest.raises(PictureError, match=r"the picture tower\.png is not a PNG file"):
        Look(image="tower.png")
    with pytest.raises(PictureError, match=r"the picture .* is a directory, not a file"):
        Look(image=str(tmp_path))


def test_a_game_whose_class_look_names_a_missing_picture_is_refused_at_load_in_one_line(tmp_path):
    game = tmp_path / "towers.py"
    game.write_text("from pathlib import Path\nfrom engine import Entity, Look\n\n"
                    "class Tower(Entity):\n    look = Look(image=Path(__file__).parent / 'tower.png')\n\n"
                    "def build(world):\n    world.spawn(Tower())\n")
    done = subprocess.run([sys.executable, "-m", "engine.tools.cli", "run", str(game), "--ticks", "5"],
                          capture_output=True, text=True)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "tower.png" in lines[0] and "Traceback" not in done.stderr, done.stderr


def test_every_sample_game_loads_with_its_pictures_from_any_directory(tmp_path):
    # Looks built at import from paths beside the game (the usual way) must not depend on the cwd.
    code = ("from engine.files.importer import load_game\n"
            "for name in ['pong', 'platformer', 'comet', 'explorer']: load_game(name)\nprint('ok')")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr


def test_an_entity_takes_its_angle_when_made():
    assert Entity(angle=30.0).angle == 30.0
    assert Entity(1, 2, 45).angle == 45
    with World() as world:
        turned = world.spawn(Entity(angle=90.0))
        world.tick()
        assert turned.previous("angle") == 90.0 and turned.draw_angle(0.5) == 90.0, "no turn to interpolate"
        assert world.snapshot()["entities"][0]["state"]["angle"] == 90.0


def test_the_hud_and_the_summary_line_count_the_same_entities(tmp_path):
    # A camera and a controller draw nothing; a crowd is one entity with members: the HUD used to
    # count the looks drawn, the summary line the entities.
    game = tmp_path / "counted.py"
    game.write_text(
        "from engine import Camera, Crowd, Entity, Look\n\n"
        "class Flock(Crowd):\n    look = Look('square', 2)\n\n"
        "class Dot(Entity):\n    look = Look('circle', 4)\n\n"
        "def build(world):\n"
        "    world.spawn(Camera())\n    world.spawn(Entity())\n"
        "    for x in range(3):\n        world.spawn(Dot(x=x * 10))\n"
        "    flock = world.spawn(Flock(8))\n    flock.spawn_members(position=[[0, 0]] * 5)\n")
    done = subprocess.run([sys.executable, "-m", "engine.tools.cli", "run", str(game), "--ticks", "3"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "6 entities, 5 crowd members, state" in done.stdout
    from engine.clock import VirtualClock
    from engine.files.importer import load_game
    from engine.loops import make_loop

    pytest.importorskip("pyglet")
    from engine.render import create_window, use_headless

    try:
        use_headless(True)
        window = create_window(480, 200, headless=True)
    except Exception as error:  # no off-screen context here: the count itself is still checked above
        pytest.skip(f"no off-screen drawing: {error}")
    try:
        from engine.render.hud import Hud

        with World() as world:
            load_game(str(game)).build(world)
            world.tick()
            loop = make_loop("fixed", lambda *_: None, lambda alpha: None, ms_per_update=15.625, clock=VirtualClock())
            hud = Hud(window, loop, world)
            hud.draw(0.0)
            assert "6 entities, 5 crowd members" in hud._label.text
    finally:
        window.close()


def test_each_kind_has_a_factory_that_makes_the_look_the_constructor_makes():
    assert Look.rect((4, 2), (1, 2, 3), layer=2) == Look("square", (4, 2), (1, 2, 3), layer=2)
    assert Look.circle(6, screen=True) == Look("circle", 6, screen=True)
    assert Look.diamond(5) == Look("diamond", 5)
    assert Look.picture(BALL, region=(0, 0, 2, 2)) == Look(image=BALL, region=(0, 0, 2, 2))
    assert Look.caption("Score: 0", 18, anchor_x="left") == Look(text="Score: 0", size=18, anchor_x="left")
    assert (Look.caption("hi").shape, Look.picture(BALL).shape, Look.rect().size) == ("text", "image", (8.0, 8.0))


@pytest.mark.parametrize(("factory", "first", "option"), [
    ("caption", "hi", {"shape": "circle"}), ("caption", "hi", {"image": BALL}), ("caption", "hi", {"region": (0, 0, 1, 1)}),
    ("circle", 4, {"text": "hi"}), ("rect", 4, {"image": BALL}), ("picture", BALL, {"text": "hi"}),
    ("picture", BALL, {"anchor_x": "left"}), ("diamond", 3, {"shape": "circle"})])
def test_a_factory_refuses_the_options_of_another_kind(factory, first, option):
    # The type checker refuses these calls too; at run time they are a TypeError naming the option.
    with pytest.raises(TypeError, match=f"unexpected keyword argument '{next(iter(option))}'"):
        getattr(Look, factory)(first, **option)


def test_a_text_or_picture_given_a_shape_warns_naming_the_factory_and_keeps_its_old_meaning():
    with pytest.warns(DeprecationWarning, match=r"a text Look with shape='circle' .*goes in tickswap 0\.6: "
                                                r"use Look\.caption\('hi', \.\.\.\)") as caught:
        look = Look("circle", text="hi")
    assert look == Look.caption("hi") and caught[0].filename == __file__
    with pytest.warns(DeprecationWarning, match=r"a picture Look with shape='diamond' .*use Look\.picture\("):
        assert Look("diamond", image=BALL) == Look.picture(BALL)


def test_a_look_without_a_contradiction_does_not_warn(recwarn):
    Look(text="hi")
    Look("text", text="hi")
    Look(image=BALL)
    Look("circle", 4)
    Look.frames(BALL, png_size(BALL))
    assert [str(w.message) for w in recwarn if w.category is DeprecationWarning] == []

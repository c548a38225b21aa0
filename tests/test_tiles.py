"""TileMap: reading Tiled maps (.tmj and .tmx), refusing bad ones in one line, tiles, objects, saves."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mapfiles import tmj, tmx

from engine import Entity, Tile, TileMap, World
from engine.tiles import MapError, MapObject

# Tiled's rows, top first: the bottom row is solid ground (gid 1, tile 0), a green tile above.
ROWS = [[0, 0, 0, 0], [0, 2, 0, 0], [1, 1, 1, 1]]


def _tile_at(level: TileMap, x: float, y: float) -> Tile:
    """The tile at (x, y), which the test knows is there."""
    found = level.tile_at(x, y)
    assert found is not None, f"no tile at {(x, y)}"
    return found


def test_a_map_lies_with_its_bottom_left_at_the_origin_y_up(tmp_path):
    level = TileMap.load(tmj(tmp_path, ROWS))
    assert (level.columns, level.rows, level.tile_width, level.tile_height) == (4, 3, 8, 8)
    assert (level.width, level.height, level.layers) == (32, 24, ("ground",))
    assert level.properties == {"title": "First"}
    bottom = level.tile_at(1.0, 1.0)
    assert bottom == Tile(x=4.0, y=4.0, width=8.0, height=8.0, column=0, row=0, layer="ground", id=0,
                          properties={"solid": True}, solid=True)
    green = _tile_at(level, 12.0, 12.0)
    assert (green.id, green.column, green.row, green.solid) == (1, 1, 1, False)
    assert level.tile_at(1.0, 20.0) is None  # an empty cell
    assert level.tile_at(-1.0, 1.0) is None and level.tile_at(1.0, 24.0) is None  # outside
    assert level.tile_at(1.0, 1.0, layer="ground") == bottom
    with pytest.raises(ValueError, match="no tile layer 'sky'"):
        level.tile_at(1.0, 1.0, layer="sky")


def test_a_tmx_map_reads_as_the_same_map(tmp_path):
    level = TileMap.load(tmx(tmp_path, ROWS))
    assert (level.columns, level.rows, level.layers, level.properties) == (4, 3, ("ground",), {"title": "Second"})
    assert _tile_at(level, 1.0, 1.0).solid and _tile_at(level, 12.0, 12.0).id == 1
    assert level.objects == [MapObject(name="start", kind="Player", x=12.0, y=20.0, width=8.0, height=8.0,
                                       properties={}, layer="things")]


def test_objects_give_their_centre_in_world_coordinates(tmp_path):
    coin = {"id": 1, "name": "coin", "type": "Coin", "x": 16, "y": 4, "width": 4, "height": 2, "rotation": 0,
            "visible": True, "properties": [{"name": "value", "type": "int", "value": 5}]}
    level = TileMap.load(tmj(tmp_path, ROWS, objects=[coin]))
    assert level.objects == [MapObject(name="coin", kind="Coin", x=18.0, y=19.0, width=4.0, height=2.0,
                                       properties={"value": 5}, layer="things")]


def test_a_layer_marked_solid_makes_all_its_tiles_solid(tmp_path):
    level = TileMap.load(tmj(tmp_path, ROWS, solid_ids=(), layer_properties={"solid": True}))
    assert _tile_at(level, 12.0, 12.0).solid and _tile_at(level, 1.0, 1.0).solid


def _refused(path) -> str:
    with pytest.raises(MapError) as caught:
        TileMap.load(path)
    message = str(caught.value)
    assert "\n" not in message and Path(path).name in message
    return message


def test_bad_maps_are_refused_in_one_line_naming_the_file_and_the_problem(tmp_path):
    assert "cannot be read" in _refused(tmp_path / "missing.tmj")
    (tmp_path / "notes.txt").write_text("hello")
    assert "is not a Tiled map" in _refused(tmp_path / "notes.txt")
    good = tmj(tmp_path, ROWS)
    (tmp_path / "damaged.tmj").write_text(good.read_text()[:100])
    assert "damaged: not valid JSON at line 1, column 91 (Unterminated string starting at); cut short?" in _refused(tmp_path / "damaged.tmj")
    (tmp_path / "damaged.tmx").write_text("<map><layer")
    assert "damaged: not valid XML at line 1" in _refused(tmp_path / "damaged.tmx")
    assert "infinite" in _refused(tmj(tmp_path, ROWS, name="infinite.tmj", infinite=True))
    assert "isometric" in _refused(tmj(tmp_path, ROWS, name="iso.tmj", orientation="isometric"))
    assert "tile 9, which no tileset has" in _refused(tmj(tmp_path, [[9]], name="range.tmj"))
    assert "flipped" in _refused(tmj(tmp_path, [[0x80000001]], name="flip.tmj"))
    document = json.loads(good.read_text())
    document["tilesets"][0]["image"] = "nowhere.png"
    (tmp_path / "noimage.tmj").write_text(json.dumps(document))
    assert "nowhere.png" in _refused(tmp_path / "noimage.tmj")
    document = json.loads(good.read_text())
    tileset = document["tilesets"][0]
    del tileset["image"]
    tileset["tiles"] = [{"id": 0, "image": "tiles.png", "imagewidth": 8, "imageheight": 8}]
    (tmp_path / "collection.tmj").write_text(json.dumps(document))
    assert "image collection" in _refused(tmp_path / "collection.tmj")
    assert "cells" in _refused(tmj(tmp_path, [[0]], name="huge.tmj", width=100_000, height=100_000))
    assert "a tile is 1 to" in _refused(tmj(tmp_path, [[0]], name="bigtile.tmj", tilewidth=0))


class Box(Entity):
    hitbox = (4.0, 4.0)


def test_solid_tiles_answer_collision_queries_after_the_entities(tmp_path):
    with World() as world:
        level = world.spawn(TileMap.load(tmj(tmp_path, ROWS)))
        box = world.spawn(Box(x=4.0, y=9.0))
        world.tick()
        at = world.overlapping_at(4.0, 7.0, (2.0, 4.0))
        assert at == [box, level.tile_at(4.0, 4.0)]
        assert world.overlapping_at(4.0, 7.0, (2.0, 4.0), kind=Tile) == [level.tile_at(4.0, 4.0)]
        assert world.overlapping_at(4.0, 7.0, (2.0, 4.0), kind=Box) == [box]
        assert world.overlapping_at(12.0, 12.0, (2.0, 2.0)) == []  # the green tile is not solid
        assert world.overlapping_at(4.0, 10.0, (2.0, 4.0), kind=Tile) == []  # only touching: no overlap
        assert world.overlapping(box, kind=Tile) == [level.tile_at(4.0, 4.0)]
        wide = world.overlapping_at(16.0, 4.0, (32.0, 2.0), kind=Tile)
        assert [(tile.column, tile.row) for tile in wide] == [(0, 0), (1, 0), (2, 0), (3, 0)]


def test_a_map_is_in_snapshots_by_name_and_content_never_by_path(tmp_path):
    hashes = []
    for place in ("one", "two"):
        (tmp_path / place).mkdir()
        with World() as world:
            world.spawn(TileMap.load(tmj(tmp_path / place, ROWS)))
            world.tick()
            hashes.append(world.state_hash())
            saved = world.snapshot()["entities"][0]["saved"]
    assert hashes[0] == hashes[1]
    assert saved == {"map": "level.tmj", "digest": TileMap.load(tmp_path / "one" / "level.tmj").digest}


def test_a_saved_map_loads_back_with_its_tiles_and_collisions(tmp_path):
    with World() as world:
        world.spawn(TileMap.load(tmj(tmp_path, ROWS)))
        world.tick()
        world.save(tmp_path / "save.json")
        before = world.state_hash()
    with World.load(tmp_path / "save.json") as loaded:
        assert loaded.state_hash() == before
        level = loaded.entities[0]
        assert isinstance(level, TileMap) and _tile_at(level, 1.0, 1.0).solid
        loaded.tick()
        assert loaded.overlapping_at(4.0, 4.0, (2.0, 2.0), kind=Tile) == [level.tile_at(4.0, 4.0)]


def test_a_save_never_names_a_path_and_a_changed_map_is_refused_by_name(tmp_path):
    with World() as world:
        world.spawn(TileMap.load(tmj(tmp_path, ROWS)))
        world.save(tmp_path / "save.json")
    assert str(tmp_path) not in (tmp_path / "save.json").read_text()
    document = json.loads((tmp_path / "save.json").read_text())
    assert document["entities"][0]["saved"]["map"] == "level.tmj"
    text = (tmp_path / "save.json").read_text()
    (tmp_path / "changed.json").write_text(text.replace(document["entities"][0]["saved"]["digest"], "0" * 64))
    from engine import SaveError

    with pytest.raises(SaveError, match="the map 'level.tmj' .* is not loaded in this process"):
        World.load(tmp_path / "changed.json")


def test_a_save_naming_another_map_file_than_its_content_is_refused(tmp_path):
    with World() as world:
        world.spawn(TileMap.load(tmj(tmp_path, ROWS)))
        world.save(tmp_path / "save.json")
    text = (tmp_path / "save.json").read_text().replace('"level.tmj"', '"../../../etc/passwd"')
    (tmp_path / "renamed.json").write_text(text)
    from engine import SaveError

    with pytest.raises(SaveError, match="names the map '../../../etc/passwd', but its content is that of 'level.tmj'"):
        World.load(tmp_path / "renamed.json")


GAME = '''
from pathlib import Path
from engine import Entity, TileMap, Tile

class Faller(Entity):
    hitbox = (4.0, 4.0)
    def update(self, world):
        if not world.overlapping_at(self.x, self.y - 1, self.hitbox, kind=Tile):
            self.y -= 1

def build(world):
    world.spawn(TileMap.load(Path(__file__).parent / "level.tmj"))
    world.spawn(Faller(x=12.0, y=20.0))
'''


def _tickswap(*arguments, cwd):
    return subprocess.run([sys.executable, "-m", "engine.tools.cli", *arguments], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_a_game_with_a_map_saves_loads_and_replays_on_the_command_line(tmp_path):
    tmj(tmp_path, ROWS)
    (tmp_path / "game.py").write_text(GAME)
    straight = _tickswap("run", "game.py", "--ticks", "20", cwd=tmp_path)
    assert straight.returncode == 0, straight.stderr
    halves = _tickswap("run", "game.py", "--ticks", "10", "--save-at", "10", "half.json", cwd=tmp_path)
    assert halves.returncode == 0, halves.stderr
    rest = _tickswap("run", "game.py", "--ticks", "10", "--load", "half.json", cwd=tmp_path)
    assert rest.returncode == 0, rest.stderr
    assert straight.stdout.split("state ")[1][:16] == rest.stdout.split("state ")[1][:16]
    recorded = _tickswap("run", "game.py", "--ticks", "20", "--record", "run.replay", cwd=tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    replayed = _tickswap("replay", "run.replay", "--game", "game.py", cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr


def test_a_game_whose_map_is_bad_is_refused_in_one_line_with_status_2(tmp_path):
    (tmp_path / "game.py").write_text(GAME)
    (tmp_path / "level.tmj").write_text("{")
    result = _tickswap("run", "game.py", "--ticks", "5", cwd=tmp_path)
    assert result.returncode == 2
    assert "level.tmj is damaged: not valid JSON at line 1, column 2" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_check_refuses_a_bad_map_as_bad_input_too(tmp_path):
    (tmp_path / "game.py").write_text(GAME)
    (tmp_path / "level.tmj").write_text("{")
    result = _tickswap("check", "game.py", "--ticks", "5", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "level.tmj" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_command_line_save_of_a_game_with_a_map_loads_in_a_test_with_the_same_hash(tmp_path):
    from engine.testing import load_game

    tmj(tmp_path, ROWS)
    (tmp_path / "game.py").write_text(GAME)
    saved = _tickswap("run", "game.py", "--ticks", "7", "--save-at", "7", "seven.json", cwd=tmp_path)
    assert saved.returncode == 0, saved.stderr
    # A fresh process, as a test run is: no map read yet until load_save runs the game's build.
    code = ("import sys; from engine.testing import load_game, load_save\n"
            "world = load_save(load_game(sys.argv[1]), sys.argv[2]); print(world.state_hash())")
    loaded = subprocess.run([sys.executable, "-c", code, str(tmp_path / "game.py"), str(tmp_path / "seven.json")],
                            capture_output=True, text=True, timeout=120)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip()[:16] == saved.stdout.split("state ")[1][:16]
    game = load_game(str(tmp_path / "game.py"))
    with World() as world:
        game.setup(world)
        for _ in range(7):
            world.tick()
        assert world.state_hash()[:16] == saved.stdout.split("state ")[1][:16]


def _edited(tmp_path, name, edit) -> Path:
    """The good test map with ``edit(document)`` applied, written as ``name``."""
    document = json.loads(tmj(tmp_path, ROWS, objects=[{"id": 1, "name": "start", "type": "Player", "x": 8, "y": 0,
                                                         "width": 8, "height": 8, "rotation": 0,
                                                         "visible": True}]).read_text())
    edit(document)
    (tmp_path / name).write_text(json.dumps(document))
    return tmp_path / name


@pytest.mark.parametrize(("content", "said"), [
    (b"", "is empty"),
    (b"[1,2,3]", "is not a valid Tiled map: it holds a JSON list, not a map object"),
    (b'{"hello":1}', "is not a valid Tiled map: the map has no 'width'"),
    (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff\xfe", "is not UTF-8 text"),
    (b'{"a": NaN}', "is damaged: a: NaN is not a number"),
])
def test_a_damaged_map_file_is_named_in_words_never_by_a_parser_exception(tmp_path, content, said):
    (tmp_path / "level.tmj").write_bytes(content)
    message = _refused(tmp_path / "level.tmj")
    assert said in message and "Error" not in message


@pytest.mark.parametrize(("edit", "said"), [
    (lambda d: d.pop("layers"), "the map has no 'layers'"),
    (lambda d: d.pop("tilesets"), "the map has no 'tilesets'"),
    (lambda d: d.update(width="4"), "the map.width must be a whole number, got '4'"),
    (lambda d: d["layers"][1]["objects"][0].pop("x"), "layers[1].objects[0] has no 'x'"),
    (lambda d: d["layers"][0].update(offsetx=3), "layers[0] has no 'offsety'"),
    (lambda d: d["layers"][0].pop("data"), "layers[0] has no 'data'"),
    (lambda d: d["layers"][0].update(data=[1, "2"]), "layers[0].data holds '2', not a tile id"),
    (lambda d: d["layers"][0].update(type="tiles"), "layers[0].type is 'tiles': a layer type is one of"),
    (lambda d: d["tilesets"][0].pop("tilecount"), "tilesets[0] has no 'tilecount'"),
    (lambda d: d["layers"].append({"type": "group", "name": "g", "opacity": 1, "visible": True,
                                   "layers": [{"type": "objectgroup", "name": "o", "opacity": 1, "visible": True,
                                               "draworder": "topdown", "objects": [{"id": 5, "y": 1}]}]}),
     "layers[2].layers[0].objects[0] has no 'x'"),
])
def test_a_map_missing_a_field_names_it_by_its_path(tmp_path, edit, said):
    message = _refused(_edited(tmp_path, "level.tmj", edit))
    assert f"level.tmj is not a valid Tiled map: {said}" in message and "KeyError" not in message


def test_a_map_cut_in_half_is_named_by_line_and_column_as_cut_short(tmp_path):
    whole = json.dumps(json.loads(tmj(tmp_path, ROWS).read_text()), indent=1)
    (tmp_path / "half.tmj").write_text(whole[:len(whole) // 2])
    message = _refused(tmp_path / "half.tmj")
    assert "half.tmj is damaged: not valid JSON at line" in message and "cut short?" in message


def test_xml_with_a_doctype_or_entities_is_refused_before_any_parser_expands_them(tmp_path):
    good = tmx(tmp_path, ROWS).read_text()
    laughs = good.replace('<?xml version="1.0" encoding="UTF-8"?>\n', '<?xml version="1.0"?>\n<!DOCTYPE map [\n'
                          '<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n')
    (tmp_path / "laughs.tmx").write_text(laughs.replace('value="Second"', 'value="&b;"'))
    assert "laughs.tmx has a DOCTYPE or ENTITY declaration (line 2)" in _refused(tmp_path / "laughs.tmx")
    external = good.replace("<map ", '<!DOCTYPE map SYSTEM "file:///etc/passwd">\n<map ', 1)
    (tmp_path / "external.tmx").write_text(external)
    assert "DOCTYPE" in _refused(tmp_path / "external.tmx")
    (tmp_path / "nowidth.tmx").write_text(good.replace(' width="4"\n', "\n", 1))
    assert "nowidth.tmx is not a valid Tiled map: <map> has no 'width' attribute" in _refused(tmp_path / "nowidth.tmx")
    (tmp_path / "half.tmx").write_text(good[:len(good) // 2])
    assert "half.tmx is damaged: not valid XML at line" in _refused(tmp_path / "half.tmx")


def test_an_external_tileset_is_checked_like_the_map(tmp_path):
    document = json.loads(tmj(tmp_path, ROWS).read_text())
    document["tilesets"] = [{"firstgid": 1, "source": "tiles.tsx"}]
    (tmp_path / "level.tmj").write_text(json.dumps(document))
    (tmp_path / "tiles.tsx").write_text('<!DOCTYPE x [<!ENTITY a "b">]><tileset/>')
    assert "level.tmj's tileset tiles.tsx has a DOCTYPE" in _refused(tmp_path / "level.tmj")
    (tmp_path / "tiles.tsx").unlink()
    assert "names tiles.tsx, which cannot be read" in _refused(tmp_path / "level.tmj")


@pytest.mark.parametrize("value", ["yes", 1])
def test_a_solid_property_that_is_not_a_bool_is_refused_naming_the_tile_or_layer(tmp_path, value):
    kind = "string" if isinstance(value, str) else "int"

    def tile(document):
        document["tilesets"][0]["tiles"] = [{"id": 2, "properties": [{"name": "solid", "type": kind, "value": value}]}]

    def layer(document):
        document["layers"][0]["properties"] = [{"name": "solid", "type": kind, "value": value}]

    message = _refused(_edited(tmp_path, "tile.tmj", tile))
    assert f"tile 2 of tileset 'tiles' has solid = {value!r}: solid must be a bool property" in message
    message = _refused(_edited(tmp_path, "layer.tmj", layer))
    assert f"layer 'ground' has solid = {value!r}: solid must be a bool property" in message


def test_a_tileset_image_is_named_without_a_doubled_quote(tmp_path):
    message = _refused(_edited(tmp_path, "level.tmj", lambda d: d["tilesets"][0].update(image="nowhere.png")))
    assert "names nowhere.png, which cannot be read" in message and "''" not in message

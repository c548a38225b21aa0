"""Tiled objects and properties: polylines and polygons with their points, bools as bools, TMX checked as JSON is.

Issue 29, defects 6 and 8: polylines and polygons loaded with no points and no warning; a
JSON bool written "false" loaded as the truthy string 'false'; in TMX a bool "yes" loaded
as not solid, an object at x="nan" or y="1e999" loaded, a polyline's x, y was its first
point (the guide says every object's x, y is its centre), and a bad property value gave
a parser's message (``type str doesn't define __round__ method``, ``Unknown Map Format``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mapfiles import tmj, tmx

from engine import TileMap
from engine.tiles import MapError

ROWS = [[0, 0, 0, 0], [0, 2, 0, 0], [1, 1, 1, 1]]  # 4 x 3 tiles of 8 px: the map is 24 px high
ROUTE = {"id": 5, "name": "route", "type": "Path", "x": 4, "y": 2, "width": 0, "height": 0, "rotation": 0,
         "visible": True, "polyline": [{"x": 0, "y": 0}, {"x": 20, "y": 0}, {"x": 20, "y": 10}]}
AREA = {"id": 6, "name": "pond", "type": "Water", "x": 2, "y": 4, "width": 0, "height": 0, "rotation": 0,
        "visible": True, "polygon": [{"x": 0, "y": 0}, {"x": 8, "y": 0}, {"x": 8, "y": 6}, {"x": 0, "y": 0}]}


def _object(level: TileMap, name: str):
    return next(found for found in level.objects if found.name == name)


def _tmx_with(tmp_path: Path, objects: str, name: str = "level.tmx") -> Path:
    path = tmx(tmp_path, ROWS, name=name)
    text = path.read_text().replace(
        '<object id="1" name="start" type="Player" x="8" y="0" width="8" height="8"/>', objects)
    path.write_text(text)
    return path


def test_a_polyline_and_a_polygon_load_with_their_points_in_world_coordinates(tmp_path):
    level = TileMap.load(tmj(tmp_path, ROWS, objects=[ROUTE, AREA]))
    route = _object(level, "route")
    # Tiled: y down from the map's top; here y up from its bottom (24 px high).
    assert route.points == ((4.0, 22.0), (24.0, 22.0), (24.0, 12.0)) and route.shape == "polyline"
    assert (route.x, route.y, route.width, route.height) == (14.0, 17.0, 20.0, 10.0), "the centre of its box"
    pond = _object(level, "pond")
    assert pond.points == ((2.0, 20.0), (10.0, 20.0), (10.0, 14.0)), "closed: the first point is not repeated"
    assert pond.shape == "polygon" and (pond.x, pond.y) == (6.0, 17.0)
    start = TileMap.load(tmj(tmp_path, ROWS, name="plain.tmj", objects=[{**ROUTE, "id": 7, "name": "box",
                                                                         "width": 8, "height": 4}]))
    box = start.objects[0]
    assert box.points == (((4.0, 22.0), (24.0, 22.0), (24.0, 12.0))) and box.shape == "polyline"


def test_a_rectangle_has_no_points_and_its_centre_as_before(tmp_path):
    level = TileMap.load(tmj(tmp_path, ROWS, objects=[{"id": 1, "name": "start", "type": "Player", "x": 8, "y": 0,
                                                       "width": 8, "height": 8, "rotation": 0, "visible": True}]))
    start = level.objects[0]
    assert (start.x, start.y, start.points, start.shape) == (12.0, 20.0, (), "rectangle")


def test_a_turned_polyline_has_its_points_turned_as_tiled_shows_them(tmp_path):
    turned = {**ROUTE, "rotation": 90}
    route = TileMap.load(tmj(tmp_path, ROWS, objects=[turned])).objects[0]
    # A quarter turn clockwise on screen: 20 to the right becomes 20 down.
    assert [(round(x, 6), round(y, 6)) for x, y in route.points] == [(4.0, 22.0), (4.0, 2.0), (-6.0, 2.0)]


def test_tmx_polylines_are_the_same_objects_as_json_ones(tmp_path):
    level = TileMap.load(_tmx_with(tmp_path, '<object id="5" name="route" type="Path" x="4" y="2">'
                                             '<polyline points="0,0 20,0 20,10"/></object>'
                                             '<object id="6" name="pond" type="Water" x="2" y="4">'
                                             '<polygon points="0,0 8,0 8,6"/></object>'))
    json_level = TileMap.load(tmj(tmp_path, ROWS, objects=[ROUTE, AREA]))
    assert level.objects == json_level.objects


def test_a_json_bool_written_as_a_string_loads_as_the_bool_it_says(tmp_path):
    flagged = {**ROUTE, "properties": [{"name": "loops", "type": "bool", "value": "false"},
                                       {"name": "shown", "type": "bool", "value": "true"},
                                       {"name": "word", "type": "string", "value": "false"}]}
    level = TileMap.load(tmj(tmp_path, ROWS, objects=[flagged], layer_properties={"solid": False}))
    assert dict(level.objects[0].properties) == {"loops": False, "shown": True, "word": "false"}
    document = json.loads((tmp_path / "level.tmj").read_text())
    document["layers"][0]["properties"] = [{"name": "solid", "type": "bool", "value": "false"}]
    (tmp_path / "stringy.tmj").write_text(json.dumps(document))
    green = TileMap.load(tmp_path / "stringy.tmj").tile_at(12.0, 12.0)
    assert green is not None and green.solid is False


def _refused(path: Path) -> str:
    with pytest.raises(MapError) as caught:
        TileMap.load(path)
    message = str(caught.value)
    assert "\n" not in message and path.name in message
    return message


@pytest.mark.parametrize(("holder", "said"), [
    ('<property name="solid" type="bool" value="yes"/>', "property 'solid' is a bool property but holds 'yes'"),
    ('<property name="hp" type="int" value="three"/>', "property 'hp' is an int property but holds 'three'"),
    ('<property name="hp" type="int" value="5.5"/>', "property 'hp' is an int property but holds '5.5'"),
    ('<property name="tint" type="color" value="#zzzzzz"/>', "property 'tint' is a color property but holds '#zzzzzz'"),
    ('<property name="speed" type="float" value="nan"/>', "property 'speed' is a float property but holds 'nan'"),
])
def test_a_tmx_property_that_does_not_fit_its_type_is_refused_naming_the_object_and_the_property(tmp_path, holder,
                                                                                               said):
    path = _tmx_with(tmp_path, f'<object id="3" name="gate" x="8" y="0" width="8" height="8"><properties>{holder}'
                               '</properties></object>')
    message = _refused(path)
    assert "object 3 'gate' in layer 'things'" in message and said in message, message
    assert "round" not in message and "Unknown Map Format" not in message


def test_a_tmx_tile_or_layer_whose_solid_is_yes_is_refused_by_name(tmp_path):
    path = tmx(tmp_path, ROWS)
    path.write_text(path.read_text().replace('name="solid" type="bool" value="true"', 'name="solid" type="bool" '
                                                                                       'value="yes"'))
    assert "tile 0 of tileset 'tiles': property 'solid' is a bool property but holds 'yes'" in _refused(path)


@pytest.mark.parametrize(("attributes", "said"), [
    ('x="nan" y="0"', "'x' must be a finite number, got 'nan'"),
    ('x="0" y="1e999"', "'y' must be a finite number, got '1e999'"),
    ('x="0" y="0" width="8"', "a width or a height but not both"),
    ('x="0" y="0" rotation="inf"', "'rotation' must be a finite number"),
])
def test_a_tmx_object_at_a_place_that_is_no_number_is_refused_as_json_is(tmp_path, attributes, said):
    message = _refused(_tmx_with(tmp_path, f'<object id="3" name="gate" {attributes}/>'))
    assert "<object> 1 (id '3')" in message and said in message, message


def test_tmx_polyline_points_that_are_no_numbers_are_refused(tmp_path):
    message = _refused(_tmx_with(tmp_path, '<object id="3" x="0" y="0"><polyline points="0,0 nan,4"/></object>'))
    assert "point 'nan,4' is not two finite numbers" in message


@pytest.mark.parametrize(("value", "said"), [
    ({"name": "hp", "type": "int", "value": "three"}, "property 'hp' is an int property but holds 'three'"),
    ({"name": "waves", "type": "int", "value": 5.5}, "property 'waves' is an int property but holds 5.5"),
    ({"name": "tint", "type": "color", "value": "#zzzzzz"}, "property 'tint' is a color property"),
    ({"name": "solid", "type": "bool", "value": "yes"}, "property 'solid' is a bool property but holds 'yes'"),
])
def test_a_json_property_that_does_not_fit_its_type_is_refused_naming_the_object_and_the_property(tmp_path, value,
                                                                                                said):
    message = _refused(tmj(tmp_path, ROWS, objects=[{**ROUTE, "properties": [value]}]))
    assert "object 5 'route' in layer 'things'" in message and said in message, message

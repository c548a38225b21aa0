"""Docs that match the code: README and the pages under docs/ say what the engine does.

Every python block of every page runs in tests/test_docs_site.py; this module checks what
a block alone can't: that the games the pages describe run from the command line, that
README stays a first page whose links resolve, and that the commands the pages name exist.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)]


def section(path: Path, heading: str, until: str | None = None) -> str:
    """The text of a page after ``heading`` (up to ``until``, when given)."""
    text = path.read_text().split(heading, 1)[1]
    return text.split(until, 1)[0] if until else text


def first_python_block(text: str) -> str:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)[0]


def test_readme_names_a_test_command_that_ci_runs():
    text = README.read_text()
    assert "<!-- test-command" in text
    assert "pytest" in text.split("<!-- test-command", 1)[1].split("```", 3)[1]


def test_readme_is_a_first_page_of_at_most_250_lines():
    assert len(README.read_text().splitlines()) <= 250


def test_readme_first_game_runs_as_the_readme_says(tmp_path, capsys, offscreen):
    game = tmp_path / "comet.py"
    game.write_text(first_python_block(section(README, "## Your first game")))
    from engine.tools.cli import main

    assert main(["run", str(game), "--ticks", "1000"]) == 0
    assert "1000 ticks" in capsys.readouterr().out
    shot = tmp_path / "comet.png"
    assert main(["run", str(game), "--headless", "--frames", "120", "--screenshot", str(shot)]) == 0
    assert shot.stat().st_size > 0
    assert main(["check", str(game)]) == 0


def test_tutorial_game_runs_as_the_tutorial_says(tmp_path, capsys, offscreen):
    game = tmp_path / "comet.py"
    game.write_text(first_python_block(section(DOCS / "tutorial.md", "## The game")))
    from engine.tools.cli import main

    assert main(["run", str(game), "--ticks", "1000"]) == 0
    assert "1000 ticks" in capsys.readouterr().out
    shot = tmp_path / "comet.png"
    assert main(["run", str(game), "--headless", "--frames", "120", "--screenshot", str(shot)]) == 0
    assert shot.stat().st_size > 0
    # The tutorial's record, replay, save and load, from the command line.
    record, save = tmp_path / "c.jsonl", tmp_path / "game.json"
    assert main(["run", str(game), "--ticks", "600", "--record", str(record), "--save-at", "600", str(save)]) == 0
    assert main(["replay", str(record), "--game", str(game)]) == 0
    assert main(["run", str(game), "--ticks", "100", "--load", str(save)]) == 0


def test_tutorial_game_scores_spins_collides_and_asks_for_its_chime(tmp_path):
    from engine import World
    from engine.world import take_sounds

    path = tmp_path / "comet.py"
    path.write_text(first_python_block(section(DOCS / "tutorial.md", "## The game")))
    spec = importlib.util.spec_from_file_location("tutorial_comet", path)
    assert spec is not None and spec.loader is not None
    game = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(game)
    with World() as world:
        game.build(world)
        sounds = []
        for _ in range(1000):
            world.tick()
            sounds.extend(take_sounds(world))
        comet, score = world.entities_of(game.Comet)[0], world.entities_of(game.Score)[0]
        assert comet.angle == 6000.0
        assert score.points >= 1 and score.look.text == f"Score {score.points}"
        assert len(sounds) == score.points and sounds[0].path == str(tmp_path / "chime.wav")


def test_every_command_the_cli_reference_lists_exists():
    from engine.tools.cli.options import build_parser

    subcommands = build_parser()._subparsers
    assert subcommands is not None and subcommands._group_actions[0].choices is not None
    commands = set(subcommands._group_actions[0].choices)
    usage = re.findall(r"```text\n(.*?)```", (DOCS / "cli.md").read_text(), flags=re.S)[0]
    listed = set(re.findall(r"^tickswap (\w+)", usage, flags=re.M))
    assert listed == commands


def test_crowd_guide_example_moves_every_member():
    section_text = (DOCS / "guides" / "crowds.md").read_text()
    code = first_python_block(section_text).replace("world.close()", "")
    namespace: dict = {}
    exec(compile(code, "crowd guide", "exec"), namespace)
    world, rain = namespace["world"], namespace["rain"]
    before = rain.current("position")[:, 1].copy()
    world.tick()
    assert rain.count == 100_000
    assert (rain.current("position")[:, 1] == before - 3.0).all()
    world.close()


def test_input_guide_script_example_is_a_script_the_reader_accepts(tmp_path):
    from engine.input.scripts import read_input_script

    text = section(DOCS / "guides" / "input.md", "## Input scripts")
    script = tmp_path / "input.jsonl"
    script.write_text(re.findall(r"```text\n(.*?)```", text, flags=re.S)[0])
    events = read_input_script(script)
    assert sorted(events) == [12, 30]
    assert [event.type for event in events[30]] == ["key_release", "mouse_press"]


def test_input_guide_shows_the_line_that_pushes_events_in_a_test_and_it_runs():
    text = section(DOCS / "guides" / "input.md", "## Input reaches ticks, not frames")
    code = first_python_block(text)
    assert "world.input_queue.press(" in code and "world.tick()" in code
    exec(compile(code, "input guide", "exec"), {})  # its own assert: the hero moved on the pushed key


def test_tile_maps_guide_changes_rooms_in_one_tick_and_collides_with_the_new_room_only(tmp_path):
    from mapfiles import tmj

    from engine import InputEvent, Tile, TileMap, World, keys

    door = {"id": 1, "name": "door", "type": "door", "x": 24, "y": 12, "width": 8, "height": 8, "rotation": 0,
            "visible": True, "properties": [{"name": "to", "type": "string", "value": "forest"},
                                            {"name": "x", "type": "float", "value": 4},
                                            {"name": "y", "type": "float", "value": 12}]}
    bat = {**door, "id": 2, "name": "bat", "type": "bat", "x": 8, "properties": []}
    tmj(tmp_path, [[0, 0, 0, 0]] * 3 + [[1, 0, 0, 0]], name="cave.tmj", objects=[door, bat])  # the door at y 16
    tmj(tmp_path, [[0, 0, 0, 1]] * 4, name="forest.tmj")
    code = first_python_block(section(DOCS / "guides" / "tile-maps.md", "## Changing rooms"))
    namespace: dict = {"__file__": str(tmp_path / "rooms.py"), "__name__": "rooms"}
    exec(compile(code, "tile maps guide", "exec"), namespace)
    with World() as world:
        namespace["build"](world)
        world.tick()
        hero = world.entities_of(namespace["Hero"])[0]
        assert [m.map for m in world.entities_of(TileMap)] == ["cave.tmj"] and world.entities_of(namespace["Bat"])
        world.input_queue.push(InputEvent("key_press", keys.RIGHT))
        for _ in range(6):
            world.tick()
        assert hero.room == "forest" and [m.map for m in world.entities_of(TileMap)] == ["forest.tmj"]
        assert world.entities_of(namespace["Bat"]) == []
        assert world.overlapping_at(4.0, 4.0, (2.0, 2.0), kind=Tile) == []  # the cave's wall is gone
        assert len(world.overlapping_at(28.0, 4.0, (2.0, 2.0), kind=Tile)) == 1  # the forest's is there


def test_the_api_signatures_page_is_current():
    import importlib.util

    spec = importlib.util.spec_from_file_location("signatures", Path(__file__).parent / "api" / "signatures.py")
    assert spec is not None and spec.loader is not None
    signatures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(signatures)
    page = (DOCS / "api-signatures.md").read_text()
    assert page == signatures.render(), "docs/api-signatures.md is out of date: python tests/api/signatures.py --update"
    assert "read_input_scripts(path: str | os.PathLike[str], players: int | None = None, *, unnamed: int = 0)" in page
    assert "0x" not in page


def _anchors(page: Path) -> set[str]:
    """The anchors of a page's headings, as GitHub and MyST make them."""
    anchors = set()
    for heading in re.findall(r"^#{1,6} (.+)$", page.read_text(), flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", "")).replace(" ", "-")
        anchors.add(slug)
    return anchors


def _relative_links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)  # code is not links
    return [target for target in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in target]


def broken_links(pages: list[Path], root: Path) -> list[str]:
    """Each relative link of ``pages`` to a file that does not exist or a heading it lacks."""
    broken = []
    for page in pages:
        for target in _relative_links(page):
            path, _, anchor = target.partition("#")
            resolved = (page.parent / path).resolve() if path else page
            if not resolved.exists():
                broken.append(f"{page.relative_to(root)}: {target} (no such file)")
            elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
                broken.append(f"{page.relative_to(root)}: {target} (no such heading)")
    return broken


def test_every_relative_link_of_readme_and_the_docs_resolves():
    assert broken_links(PAGES, ROOT) == []


def test_readme_links_into_the_docs_and_shows_the_samples():
    links = _relative_links(README)
    assert "docs/tutorial.md" in links and "docs/api.md" in links
    pictures = [link for link in links if link.endswith(".png")]
    assert len(pictures) >= 5


def test_the_link_check_finds_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n[fine](#title) [gone](missing.md) [no heading](page.md#nowhere)\n")
    assert broken_links([page], tmp_path) == ["page.md: missing.md (no such file)",
                                              "page.md: page.md#nowhere (no such heading)"]


def test_every_engine_path_the_internals_page_names_exists():
    text = (DOCS / "internals.md").read_text()
    named = set(re.findall(r"`(engine/[\w/.]+)`", text))
    assert len(named) >= 10  # the table names the homes; a page that names none checks nothing
    root = DOCS.parent
    missing = sorted(path for path in named if not (root / path).exists())
    assert missing == []


def test_the_docs_plural_fix_touches_only_a_closing_literal_that_a_letter_follows():
    import runpy

    conf = runpy.run_path(str(DOCS / "conf.py"))
    lines = ["two ``TraceEvent``s (``build``, then ``systems``)", "no literal here"]
    conf["_plural_literals"](None, "function", "x", None, None, lines)
    assert lines == ["two ``TraceEvent``\\ s (``build``, then ``systems``)", "no literal here"]


def test_the_tutorial_lists_every_shape_a_look_can_be_with_an_example_each(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the page's example writes its picture where it runs
    from engine import Look
    from engine.look import SHAPES as _SHAPES

    text = section(DOCS / "tutorial.md", "### Every shape a look can be", "## Run it")
    namespace: dict[str, object] = {}
    exec(first_python_block(text), namespace)  # the page's own examples, as the reader would run them
    shapes = [value.shape for value in namespace.values() if isinstance(value, Look)]
    assert sorted(shapes) == sorted(_SHAPES), "one example per shape the code takes, no more, no fewer"
    assert "five shapes" in text and len(_SHAPES) == 5, "the count the page says is the code's"

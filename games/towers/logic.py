"""Towers: a tower defense on a route drawn in Tiled: twelve waves, the last one heavy.

The game to copy when yours has a map, waves, the mouse and a crowd of projectiles. The
map (``towers.tmj``) is drawn by the engine; its route, a Tiled polyline, is the ``Path``
the enemies follow (``Follower``, in ``units``). GUI buttons pick a tower and a click on
the grass builds it (``world.mouse``, ``widget_under_mouse``); health bars are ``parts``;
a dying enemy puffs (``Particles``); sounds have a play limit. The ``Game`` entity holds
the rules: money, lives and the waves. Shots are entities, or (the Shots button, or C)
members of one ``Crowd``: ``tickswap bench towers`` times both on the heavy wave, 330
enemies and about 1,900 shots. The art, sounds and map are drawn by ``make_art.py``.
1 and 2 pick a tower (or the buttons), a click builds it, N sends the next wave now.

    tickswap run towers --ticks 600
"""

from __future__ import annotations

import math
from pathlib import Path as FilePath
from typing import ClassVar, NamedTuple

from engine import Button, Entity, Look, Part, Path, TileMap, World, buffered, keys, signal, widget_under_mouse
from games.towers.units import Brute, Enemy, Grunt, Gun, Runner, Shots, Tack, Tower

DESCRIPTION = "a tower defense: a Tiled route, waves, GUI buttons, health bars, puffs, shots as a crowd (mouse, 1/2, N)"
WIDTH, HEIGHT = 640, 480
KEYS = (keys._1, keys._2, keys.N, keys.C, keys.MOUSE_LEFT)  # what `tickswap check` presses (and it moves the mouse)

HERE = FilePath(__file__).parent
LEVEL = str(HERE / "towers.tmj")
ROUTE = Path.from_object(next(thing for thing in TileMap.load(LEVEL).objects if thing.name == "route"))
"""The road the enemies walk: a value, kept here (a save keeps each walker's place along it)."""
BUILD, HORN = str(HERE / "build.wav"), str(HERE / "wave.wav")
TOOLS: dict[str, type[Tower]] = {"gun": Gun, "tack": Tack}
START_MONEY, LIVES = 100, 20
BREAK = 192
"""Ticks between one wave's last enemy and the next wave (N sends it at once)."""


class Wave(NamedTuple):
    kind: type[Enemy]
    count: int
    hp: int
    rate: float
    """Enemies sent a tick (0.25: one every fourth tick)."""


WAVES = (
    Wave(Grunt, 10, 3, 1 / 32), Wave(Grunt, 16, 4, 1 / 24), Wave(Runner, 20, 3, 1 / 16),
    Wave(Grunt, 30, 6, 1 / 12), Wave(Brute, 8, 30, 1 / 40), Wave(Runner, 40, 5, 1 / 8),
    Wave(Grunt, 60, 8, 1 / 6), Wave(Brute, 20, 40, 1 / 20), Wave(Runner, 80, 7, 1 / 4),
    Wave(Grunt, 120, 10, 1 / 3), Wave(Brute, 40, 50, 1 / 10),
    Wave(Grunt, 330, 48, 1.5),  # the heavy wave: all of it on the road at once
)


class Game(Entity):
    """The rules: money, lives, which tower a click builds, and the waves. Units tell it what happened by signal."""

    phase = buffered("play")  # "play", "over" or "won"
    money = buffered(START_MONEY)
    lives = buffered(LIVES)
    wave = buffered(0)  # the wave being sent, or the last one sent (1 to 12)
    sent = buffered(0)  # enemies of that wave sent so far
    clock = buffered(0)  # ticks since it began
    pause = buffered(BREAK)  # ticks to the next wave, once this one is all sent
    tool = buffered("gun")
    crowd_shots = buffered(False)
    earned = signal(sum)  # rewards, sent by dying enemies
    leaked = signal(sum)  # sent by enemies reaching the end of the road
    asked = signal(tuple)  # the names of the buttons clicked
    saved = ("level", "shots")

    def __init__(self, level: TileMap, shots: Shots) -> None:
        super().__init__()
        self.level, self.shots = level, shots

    def update(self, world: World) -> None:
        if self.phase != "play":
            return
        self.money += self.earned.value
        self.lives = max(0, self.lives - self.leaked.value)
        if self.lives == 0:
            self.phase = "over"
            return
        pressed, asked = world.input.just_pressed, self.asked.value
        if pressed(keys._1) or "gun" in asked:
            self.tool = "gun"
        if pressed(keys._2) or "tack" in asked:
            self.tool = "tack"
        if pressed(keys.C) or "shots" in asked:
            self.crowd_shots = not self.crowd_shots
        if pressed(keys.MOUSE_LEFT) and widget_under_mouse(world) is None:
            self.build_tower(world, world.mouse.x, world.mouse.y)
        self.send(world, next_now=pressed(keys.N) or "wave" in asked)

    def build_tower(self, world: World, x: float, y: float) -> None:
        """A tower of the chosen kind on the grass tile at ``(x, y)``, if it is free and affordable."""
        kind = TOOLS[self.tool]
        tile = self.level.tile_at(x, y)
        if tile is None or not tile.properties.get("buildable") or self.money < kind.cost:
            return
        if world.overlapping_at(tile.x, tile.y, (tile.width - 2, tile.height - 2), Tower):
            return  # taken (a tower built in the tick before is there too: spawns join after their tick)
        world.spawn(kind(tile.x, tile.y, self, self.shots))
        self.money -= kind.cost
        world.play(BUILD, volume=0.6)

    def send(self, world: World, next_now: bool) -> None:
        """Send this wave's enemies at its rate; then, after a pause (or at once with N), the next wave."""
        if self.wave and self.sent < WAVES[self.wave - 1].count:
            kind, count, hp, rate = WAVES[self.wave - 1]
            due = min(count, math.floor(rate * (self.clock + 1)))
            for _ in range(due - self.sent):
                world.spawn(kind(self, ROUTE, hp, speed=kind.speed * self.random.uniform(0.85, 1.15)))
            self.sent, self.clock = due, self.clock + 1
        elif self.wave < len(WAVES):
            self.pause -= 1
            if self.pause <= 0 or next_now:
                self.wave, self.sent, self.clock, self.pause = self.wave + 1, 0, 0, BREAK
                self.money += 20 * self.wave  # a bonus for each wave
                world.play(HORN, volume=0.7)
        elif not world.entities_of(Enemy):
            self.phase = "won"


class GameButton(Button):
    """A button of the bar at the bottom: a click asks the game (a signal); its text follows the game."""

    saved = ("game", "name")

    def __init__(self, game: Game, name: str, x: float) -> None:
        self.game, self.name = game, name
        super().__init__(self.words(), x, 20, size=(150, 32))

    def update(self, world: World) -> None:
        super().update(world)
        if self.clicked:  # this tick's click, in the button's own update
            self.game.asked.send(self.name)
        self.text = self.words()
        self.disabled = self.name == "wave" and self.game.wave >= len(WAVES)
        self.refresh()

    def words(self) -> str:
        game, name = self.game, self.name
        if name in TOOLS:
            label = f"{name.title()} ${TOOLS[name].cost}"
            return f"[ {label} ]" if game.tool == name else label
        if name == "shots":
            return "Shots: crowd" if game.crowd_shots else "Shots: entities"
        return f"Wave {game.wave + 1} now" if game.wave < len(WAVES) else "Last wave"


class Cursor(Entity):
    """Where a click would build: the tile under the mouse, green when the tower fits there, and its reach.

    Hidden until the mouse first moves (a window's mouse starts nowhere, not at its corner).
    """

    saved = ("game",)
    woken = buffered(False)
    OK: ClassVar[Look] = Look("square", 30, (120, 255, 120, 90), layer=6)
    NO: ClassVar[Look] = Look("square", 30, (255, 90, 90, 90), layer=6)
    REACH: ClassVar[dict[str, tuple[Part, ...]]] = {
        name: (Part(Look("circle", 2 * kind.reach, (255, 255, 255, 40), layer=6)),) for name, kind in TOOLS.items()}

    def __init__(self, game: Game) -> None:
        super().__init__()
        self.game = game

    def update(self, world: World) -> None:
        game = self.game
        self.woken = self.woken or any(event.type.startswith("mouse") for event in world.input.events)
        tile = game.level.tile_at(world.mouse.x, world.mouse.y)
        if not self.woken or tile is None or widget_under_mouse(world) is not None or game.phase != "play":
            look, parts = None, ()
        else:
            if (tile.x, tile.y) != (self.x, self.y):
                self.x, self.y = tile.x, tile.y
                self.snap()  # jump from tile to tile, no slide
            fits = tile.properties.get("buildable") and game.money >= TOOLS[game.tool].cost
            look, parts = self.OK if fits else self.NO, self.REACH[game.tool]
        if look is not self.look or parts is not self.parts:  # set only when it changes: a look set is state
            self.look, self.parts = look, parts


class Hud(Entity):
    """The wave, money and lives at the top left; a word in the middle when the game is over."""

    saved = ("game", "middle")

    def __init__(self, game: Game, middle: bool = False) -> None:
        super().__init__(x=WIDTH / 2 if middle else 10, y=HEIGHT / 2 if middle else HEIGHT - 8)
        self.game, self.middle = game, middle

    def update(self, world: World) -> None:
        game = self.game
        if self.middle:
            text = {"over": "GAME OVER", "won": "ALL WAVES BEATEN!"}.get(game.phase, "")
            look = Look(text=text, size=28, color=(255, 205, 117), screen=True, layer=3) if text else None
        else:
            text = f"WAVE {game.wave}/{len(WAVES)}   ${game.money}   LIVES {game.lives}"
            look = Look(text=text, size=14, color=(244, 244, 244), screen=True, layer=3,
                        anchor_x="left", anchor_y="top")
        if look != self.look:  # a new look only when the words change
            self.look = look


def build(world: World) -> None:
    """The map, the crowd of shots, the rules, the button bar, the cursor and the HUD."""
    level = world.spawn(TileMap.load(LEVEL))
    shots = world.spawn(Shots(capacity=6000))
    game = world.spawn(Game(level, shots))
    for index, name in enumerate(("gun", "tack", "wave", "shots")):
        world.spawn(GameButton(game, name, 83 + 158 * index))
    world.spawn(Cursor(game))
    world.spawn(Hud(game))
    world.spawn(Hud(game, middle=True))


def heavy_wave(world: World, crowd_shots: bool = False, *, into: int = 600) -> Game:
    """The last wave ``into`` ticks after it began, built at once: what ``tickswap bench towers`` times.

    The game as ``build`` makes it, a tower on every grass tile beside the road (guns and tacks
    in turn, as a player who has won eleven waves has them), the wave's 330 enemies all sent
    and spread along the road as its rate and their speeds put them, and shots as entities
    or, with ``crowd_shots``, as the crowd. Deterministic: the world's seed draws the speeds.
    """
    build(world)
    [game] = world.entities_of(Game)
    level = game.level
    kind, count, hp, rate = WAVES[-1]
    game.wave, game.sent, game.clock, game.crowd_shots = len(WAVES), count, into, crowd_shots
    game.money = 0
    road = {(column, row) for column in range(WIDTH // 32) for row in range(HEIGHT // 32)
            if not _buildable(level, column, row)}
    placed = 0
    for row in range(HEIGHT // 32):
        for column in range(WIDTH // 32):
            beside = any((column + dx, row + dy) in road for dx in (-1, 0, 1) for dy in (-1, 0, 1))
            if _buildable(level, column, row) and beside:
                tower = (Tack, Gun)[placed % 2]
                world.spawn(tower(column * 32 + 16.0, row * 32 + 16.0, game, game.shots))
                placed += 1
    for index in range(count):
        speed = kind.speed * game.random.uniform(0.85, 1.15)
        enemy = world.spawn(kind(game, ROUTE, hp, speed=speed))
        enemy.follow(ROUTE, speed, start=min(ROUTE.length, speed * max(0.0, into - index / rate)))
    return game


def _buildable(level: TileMap, column: int, row: int) -> bool:
    tile = level.tile_at(column * 32 + 16.0, row * 32 + 16.0)
    return tile is not None and bool(tile.properties.get("buildable"))

"""Platformer: run, jump, stomp slimes and grab coins across a Tiled level to the flag.

The game to copy when yours is a platformer. The level is ``level1.tmj``, a map made in
Tiled (``TileMap.load``): its tile layers are drawn by the engine, its solid tiles answer
``world.overlapping_at(..., kind=Tile)``, and its object layer says where the player,
coins, slimes and goal start. The hero moves then collides, one axis at a time, against
solid tiles; sprites are cut from sheets with ``Look.frames`` and animated by the tick; a
``Camera`` zoomed 2x follows the hero; the score and lives are text fixed on the screen;
music loops with ``world.music``. A ``Game`` entity owns the phase (title, play, game over,
won), the score and the lives, so every entity reads the same phase in any update order.
Left/Right (or A/D, or a pad) run, Space/Up (or pad A) jumps, Space starts, R restarts.
The art, music and level are drawn by ``make_art.py`` beside this file.

    tickswap run platformer --ticks 640
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from engine import Camera, Entity, Look, Tile, TileMap, World, buffered, keys, signal

DESCRIPTION = "a Tiled level, animated sprites, a fixed HUD, music and a pad (arrows, Space, R)"
WIDTH, HEIGHT = 640, 480
KEYS = (keys.LEFT, keys.RIGHT, keys.UP, keys.SPACE, keys.R, keys.A, keys.D,  # what `tickswap check` presses
        keys.PAD_LEFT, keys.PAD_RIGHT, keys.PAD_A, keys.PAD_START)  # (a pad button: it moves the sticks too)

HERE = Path(__file__).parent
LEVEL = str(HERE / "level1.tmj")
MUSIC = str(HERE / "music.wav")
JUMP, COIN, STOMP, HURT = (str(HERE / name) for name in ("jump.wav", "coin.wav", "stomp.wav", "hurt.wav"))

# The sheets, cut left to right, top row first (see make_art.py for what each frame is).
HERO = Look.frames(str(HERE / "hero.png"), (16, 16), layer=2)
HERO_IDLE, HERO_WALK, HERO_JUMP, HERO_HURT = (0, 1), (2, 3, 4, 5), 6, 7
FACING_LEFT = 8  # the bottom row is the top row mirrored
SLIME = Look.frames(str(HERE / "slime.png"), (16, 16), layer=1)
COIN_SPIN = Look.frames(str(HERE / "coin.png"), (16, 16), layer=1)
FLAG = Look.frames(str(HERE / "flag.png"), (16, 32), layer=1)
SKY = Look(image=str(HERE / "sky.png"), size=(640, 240), layer=-1)

GRAVITY = 0.35  # pixels a tick, each tick: 64 ticks a second
JUMP_SPEED = 6.4  # takes the hero about 3.5 tiles up
RUN_SPEED = 2.0
MAX_FALL = 8.0  # under half a tile a tick, so a fall never skips through the ground


class Game(Entity):
    """The rules: the phase, the score and the lives. Others tell it what happened with signals."""

    phase = buffered("title")  # "title", "play", "over" or "won"
    score = buffered(0)
    lives = buffered(3)
    coins = signal(sum)  # raised by a coin the hero took
    stomps = signal(sum)  # by a slime the hero landed on
    hurt = signal(sum)  # by the hero, hit or fallen
    reached = signal()  # by the goal

    saved = ("level",)

    def __init__(self, level: TileMap) -> None:
        super().__init__()
        self.level = level

    def update(self, world: World) -> None:
        start = world.input.just_pressed(keys.SPACE) or world.input.just_pressed(keys.PAD_START)
        restart = start or world.input.just_pressed(keys.R)
        if (self.phase == "title" and start) or (self.phase in ("over", "won") and restart):
            self.begin(world)
        elif self.phase == "play":
            self.score += 10 * self.coins.value + 50 * self.stomps.value
            lives = self.lives - self.hurt.value
            self.lives = max(0, lives)
            if lives <= 0:
                self.phase = "over"
                world.music(None)
            elif self.reached:
                self.phase = "won"
                world.music(None)
            elif world.input.just_pressed(keys.R):
                self.begin(world)

    def begin(self, world: World) -> None:
        """A new run from the level's start: the things on the map spawned afresh, music on."""
        for kind in (Hero, Slime, Coin, Goal):
            for entity in world.entities_of(kind):
                world.despawn(entity)
        spawn_things(world, self.level, self)
        self.phase, self.score, self.lives = "play", 0, 3
        world.music(MUSIC, loop=True, volume=0.6)


class Hero(Entity):
    """Runs, jumps and falls, colliding with solid tiles one axis at a time."""

    hitbox = (10.0, 14.0)
    look = HERO[HERO_IDLE[0]]
    saved = ("game", "level", "dx", "dy", "on_ground", "facing", "start_x", "start_y", "safe")

    def __init__(self, x: float, y: float, game: Game, level: TileMap) -> None:
        super().__init__(x=x, y=y)
        self.game, self.level = game, level
        self.dx = self.dy = 0.0
        self.on_ground = False
        self.facing = 1
        self.start_x, self.start_y = x, y
        self.safe = 0  # ticks of blinking grace after a hit

    def update(self, world: World) -> None:
        if self.game.phase != "play":
            return
        held = world.input.pressed
        stick_x, _ = world.input.stick(0)
        run = (held(keys.RIGHT) or held(keys.D) or held(keys.PAD_RIGHT)) - (
            held(keys.LEFT) or held(keys.A) or held(keys.PAD_LEFT))
        self.dx = RUN_SPEED * (run or stick_x)
        if self.dx:
            self.facing = 1 if self.dx > 0 else -1
        jump = world.input.just_pressed
        if self.on_ground and (jump(keys.SPACE) or jump(keys.UP) or jump(keys.PAD_A)):
            self.dy = JUMP_SPEED
            world.play(JUMP, volume=0.5)
        self.dy = max(-MAX_FALL, self.dy - GRAVITY)

        self.move(world)
        self.meet(world)
        self.animate(world)

    def move(self, world: World) -> None:
        """Move then collide: first across, then up or down, each time stepping back out of solid tiles.

        Boxes that only touch do not overlap, so standing exactly on the ground never blocks running.
        """
        width, height = self.hitbox
        x = self.x + self.dx
        for tile in world.overlapping_at(x, self.y, self.hitbox, kind=Tile):
            if self.dx > 0:
                x = min(x, tile.x - (tile.width + width) / 2)
            elif self.dx < 0:
                x = max(x, tile.x + (tile.width + width) / 2)
        x = max(width / 2, min(self.level.width - width / 2, x))  # the map's edges are walls

        y = self.y + self.dy
        falling = self.dy < 0
        self.on_ground = False
        for tile in world.overlapping_at(x, y, self.hitbox, kind=Tile):
            if falling:  # land on top
                y = max(y, tile.y + (tile.height + height) / 2)
                self.on_ground = True
            else:  # rising: bump a head on the tile's underside
                y = min(y, tile.y - (tile.height + height) / 2)
            self.dy = 0.0
        self.x, self.y = x, y

    def meet(self, world: World) -> None:
        """Coins, slimes, spikes and the bottom of the world.

        The hero asks once a tick what it touches and tells each coin with a signal: one
        query, instead of every coin asking every tick whether it touches the hero. It asks
        with its box where it has just moved to (``overlapping_at``): ``overlapping(self)``
        would answer for where it was when the tick began, a step behind its ``y``.
        """
        for coin in world.overlapping_at(self.x, self.y, self.hitbox, kind=Coin):
            coin.taken = True
        if self.safe:
            self.safe -= 1
            return
        for slime in world.overlapping_at(self.x, self.y, self.hitbox, kind=Slime):
            if slime.squashed:
                continue
            if self.y <= slime.y + 4:  # beside or below it
                self.hit(world)
                return
            if self.dy < 0:  # coming down on it from above (going up: bouncing off one just stomped)
                slime.stomped = True
                self.dy = JUMP_SPEED * 0.7
                world.play(STOMP)
        # Spikes are not solid: the hero walks into them. They fill the lower half of their
        # tile, so feet in its upper half (a jump over them) are safe.
        bottom = self.y - self.hitbox[1] / 2
        feet = self.level.tile_at(self.x, bottom + 1)
        spiked = feet is not None and feet.properties.get("hurts") and bottom < feet.y
        if self.y < -32 or spiked:
            self.hit(world)

    def hit(self, world: World) -> None:
        """Lose a life: back to the start, blinking for a second and a half."""
        self.game.hurt.send(1)
        world.play(HURT)
        self.x, self.y, self.dx, self.dy = self.start_x, self.start_y, 0.0, 0.0
        self.snap()  # a jump back to the start, not a flight across the level
        self.safe = 96

    def animate(self, world: World) -> None:
        tick = world.tick_count
        if self.safe and tick // 4 % 2:
            frame = HERO_HURT
        elif not self.on_ground:
            frame = HERO_JUMP
        elif self.dx:
            frame = HERO_WALK[tick // 6 % len(HERO_WALK)]
        else:
            frame = HERO_IDLE[tick // 32 % len(HERO_IDLE)]
        self.look = HERO[frame + (FACING_LEFT if self.facing < 0 else 0)]


class Slime(Entity):
    """Patrols its platform, turning at walls and edges; stomped, it goes flat and vanishes."""

    hitbox = (12.0, 10.0)
    look = SLIME[0]
    saved = ("game", "direction")
    stomped = signal()  # raised by the hero landing on it
    squashed = buffered(0)  # ticks since it was stomped, 0 while alive; buffered: the hero reads it

    def __init__(self, x: float, y: float, game: Game) -> None:
        super().__init__(x=x, y=y)
        self.game = game
        self.direction = -1

    def update(self, world: World) -> None:
        if self.squashed or self.stomped:
            if not self.squashed:
                self.game.stomps.send(1)
            self.squashed += 1
            self.look = SLIME[4]
            if self.squashed > 30:
                world.despawn(self)
            return
        if self.game.phase != "play":
            return
        ahead = self.x + self.direction * 8
        wall = world.overlapping_at(ahead, self.y, (2.0, 6.0), kind=Tile)
        floor = world.overlapping_at(ahead, self.y - 10, (2.0, 4.0), kind=Tile)
        if wall or not floor:
            self.direction = -self.direction
        else:
            self.x += self.direction * 0.5
        self.look = SLIME[world.tick_count // 10 % 4]


class Coin(Entity):
    """Spins; taken by the hero, it chimes and adds to the score."""

    hitbox = (10.0, 12.0)
    look = COIN_SPIN[0]
    saved = ("game",)
    taken = signal()  # raised by the hero touching it

    def __init__(self, x: float, y: float, game: Game) -> None:
        super().__init__(x=x, y=y)
        self.game = game

    def update(self, world: World) -> None:
        if self.taken:
            self.game.coins.send(1)
            world.play(COIN, volume=0.6)
            world.despawn(self)
            return
        self.look = COIN_SPIN[(world.tick_count // 5 + int(self.x) // 16) % len(COIN_SPIN)]


class Goal(Entity):
    """The flag at the end: touching it wins."""

    hitbox = (12.0, 32.0)
    look = FLAG[0]
    saved = ("game",)

    def __init__(self, x: float, y: float, game: Game) -> None:
        super().__init__(x=x, y=y)
        self.game = game

    def update(self, world: World) -> None:
        self.look = FLAG[world.tick_count // 12 % 2]
        if world.overlapping(self, Hero):
            self.game.reached = True


class Follow(Camera):
    """Keeps the hero in the middle, 2x zoomed, never showing past the level's ends."""

    saved = ("level",)

    def __init__(self, level: TileMap) -> None:
        super().__init__(WIDTH / 4, level.height / 2, zoom=2.0)
        self.level = level

    def update(self, world: World) -> None:
        heroes = world.entities_of(Hero)
        if not heroes:
            return
        half = WIDTH / 2 / self.zoom
        target = max(half, min(self.level.width - half, heroes[0].x))
        self.x += (target - self.x) * 0.2


class Sky(Entity):
    """The far hills, scrolling at half the camera's speed; the picture repeats every 320 px."""

    look = SKY
    saved = ("camera",)

    def __init__(self, camera: Follow) -> None:
        super().__init__(x=camera.x, y=120)
        self.camera = camera

    def update(self, world: World) -> None:
        x = self.camera.x + 160 - (self.camera.x * 0.5) % 320
        if abs(x - self.x) > 100:
            self.snap()  # the picture wrapped: jump, don't slide
        self.x = x


class Hud(Entity):
    """One line of text fixed on the screen: the score (left) or the lives (right)."""

    saved = ("game", "side")

    def __init__(self, game: Game, side: str) -> None:
        super().__init__(x=12 if side == "left" else WIDTH - 12, y=HEIGHT - 10)
        self.game, self.side = game, side

    def update(self, world: World) -> None:
        text = f"SCORE {self.game.score:05d}" if self.side == "left" else f"LIVES {self.game.lives}"
        if getattr(self.look, "text", None) != text:
            self.look = Look(text=text, size=14, color=(255, 241, 232), screen=True, layer=1,
                             anchor_x=self.side, anchor_y="top")


class Banner(Entity):
    """The words in the middle of the screen for the title, game over and winning."""

    saved = ("game",)
    WORDS: ClassVar[dict[str, str]] = {
        "title": "GREEN HILLS  -  Space to start", "over": "GAME OVER  -  R to try again",
        "won": "YOU WIN!  -  R to play again", "play": ""}

    def __init__(self, game: Game) -> None:
        super().__init__(x=WIDTH / 2, y=HEIGHT / 2 + 60)
        self.game = game

    def update(self, world: World) -> None:
        text = self.WORDS[self.game.phase]
        if not text:
            self.look = None
        elif getattr(self.look, "text", None) != text:
            self.look = Look(text=text, size=20, color=(255, 236, 39), screen=True, layer=2)


def spawn_things(world: World, level: TileMap, game: Game) -> None:
    """The entities the map's object layer places: the hero, coins, slimes and the goal."""
    for thing in level.objects:
        if thing.kind == "player":
            world.spawn(Hero(thing.x, thing.y, game, level))
        elif thing.kind == "coin":
            world.spawn(Coin(thing.x, thing.y, game))
        elif thing.kind == "slime":
            world.spawn(Slime(thing.x, thing.y, game))
        elif thing.kind == "goal":
            world.spawn(Goal(thing.x, thing.y, game))


def build(world: World) -> None:
    """The level, its things, a camera on the hero, the sky behind and the HUD in front."""
    level = world.spawn(TileMap.load(LEVEL))
    game = world.spawn(Game(level))
    spawn_things(world, level, game)
    camera = world.spawn(Follow(level))
    world.spawn(Sky(camera))
    world.spawn(Hud(game, "left"))
    world.spawn(Hud(game, "right"))
    world.spawn(Banner(game))

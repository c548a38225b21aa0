"""Pong: two players, one keyboard, first to 7.

The game to copy when yours needs screens (title, play, game over, restart) and pictures:
a ``Match`` entity holds the phase and the scores in buffered fields, so every other
entity reads the same phase in any update order; the ball tells the match who scored with
signals; the score is text fixed on the screen (``screen=True``). The court, paddles and
ball are PNGs drawn by ``make_art.py`` beside this file, and every bounce asks for a sound.
On the title screen the paddles play each other. W/S move the left paddle, Up/Down the
right (a gamepad plays the left paddle: its d-pad or left stick, Start serves); Space (or R)
serves a new match, R restarts after a win.

Played alone (one player, a local run) player 0 drives both paddles: hot seat. With two
players (``PLAYERS = range(1, 3)``; ``tickswap run pong --players 2``, or a network
session) the left paddle reads ``world.input_of(0)`` and the right ``world.input_of(1)``,
and each takes W/S and Up/Down alike, so each player uses whichever keys they like on
their own machine; on one keyboard the engine gives W/S to player 0 and Up/Down to player
1 (and the first pad to player 0, the second to player 1).

    tickswap run pong --ticks 640
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from engine import Entity, Look, World, buffered, keys, signal

DESCRIPTION = "two-player Pong with pixel art, sounds, a title and a restart (W/S, Up/Down, Space, R)"
WIDTH, HEIGHT = 640, 480
TOP, BOTTOM = HEIGHT - 16, 16  # the inner edges of the rails drawn on the court
WINNING_SCORE = 7
PLAYERS = range(1, 3)  # one: hot seat at one keyboard; two: a paddle each
KEYS = (keys.W, keys.S, keys.UP, keys.DOWN, keys.SPACE, keys.R,  # what `tickswap check` presses
        keys.PAD_UP, keys.PAD_DOWN, keys.PAD_START)

HERE = Path(__file__).parent
COURT, BALL = str(HERE / "court.png"), str(HERE / "ball.png")
BLUE_PADDLE, RED_PADDLE = str(HERE / "paddle_blue.png"), str(HERE / "paddle_red.png")
HIT, WALL, SCORE, WIN = (str(HERE / name) for name in ("hit.wav", "wall.wav", "score.wav", "win.wav"))


class Match(Entity):
    """The phase ("title", "play" or "over") and both scores: the one place the rules live."""

    phase = buffered("title")
    left_score = buffered(0)
    right_score = buffered(0)
    left_point = signal(sum)  # the ball raises these when it leaves the court
    right_point = signal(sum)

    def update(self, world: World) -> None:
        # Either player serves or restarts: both read the same match.
        inputs = [world.input_of(player) for player in range(world.players)]
        starts = any(i.just_pressed(keys.SPACE) or i.just_pressed(keys.R) or i.just_pressed(keys.PAD_START)
                     for i in inputs)
        if self.phase != "play":
            if starts:
                self.phase, self.left_score, self.right_score = "play", 0, 0
            return
        left, right = self.left_score + self.left_point.value, self.right_score + self.right_point.value
        self.left_score, self.right_score = left, right
        if max(left, right) >= WINNING_SCORE:
            self.phase = "over"
            world.play(WIN)
        elif any(i.just_pressed(keys.R) for i in inputs):
            self.left_score, self.right_score = 0, 0  # R mid-match starts again


class Paddle(Entity):
    """Moves with its two keys while playing; on the title screen it follows the ball by itself."""

    SPEED = 6.0
    saved = ("up_key", "down_key", "match", "ball")

    def __init__(self, x: float, look: Look, up_key: int, down_key: int, match: Match) -> None:
        super().__init__(x=x, y=HEIGHT / 2)
        self.look = look
        self.up_key, self.down_key, self.match = up_key, down_key, match
        self.ball: Ball | None = None  # set by build, once the ball exists

    def update(self, world: World) -> None:
        if self.match.phase == "title" and self.ball is not None:
            # Attract mode: chase the ball, a little slower than a player can, so rallies end.
            move = max(-4.0, min(4.0, self.ball.y - self.y))
        elif world.players == 1:  # hot seat: one keyboard, each paddle its own keys
            held = world.input.pressed
            move = self.SPEED * (held(self.up_key) - held(self.down_key))
            if self.up_key == keys.W and not move:  # the first gamepad plays the left paddle
                pad = held(keys.PAD_UP) - held(keys.PAD_DOWN)
                move = self.SPEED * (pad or world.input.stick(0)[1])
        else:  # a paddle each: the left is player 0's, the right player 1's, on either set of keys
            mine = world.input_of(0 if self.x < WIDTH / 2 else 1)
            held = mine.pressed
            move = self.SPEED * ((held(keys.W) or held(keys.UP)) - (held(keys.S) or held(keys.DOWN)))
            if not move:  # each player's own gamepad
                pad = held(keys.PAD_UP) - held(keys.PAD_DOWN)
                move = self.SPEED * (pad or mine.stick(0)[1])
        half = PADDLE_SIZE[1] / 2
        self.y = max(BOTTOM + half, min(TOP - half, self.y + move))

    def on_load(self, world: World) -> None:
        # A look set on one entity is not saved: pick it again from the side it plays on.
        self.look = LEFT_LOOK if self.x < WIDTH / 2 else RIGHT_LOOK


PADDLE_SIZE = (16.0, 88.0)
LEFT_LOOK = Look(image=BLUE_PADDLE, size=PADDLE_SIZE, layer=1)
RIGHT_LOOK = Look(image=RED_PADDLE, size=PADDLE_SIZE, layer=1)
BALL_SIZE = 14.0


class Ball(Entity):
    """Flies, bounces off the rails and the paddles (faster each hit), and scores off either end."""

    look = Look(image=BALL, size=BALL_SIZE, layer=2)
    saved = ("dx", "dy", "wait", "match", "seen_phase")
    START_SPEED, TOP_SPEED = 5.0, 11.0

    def __init__(self, match: Match) -> None:
        super().__init__(x=WIDTH / 2, y=HEIGHT / 2)
        self.match = match
        self.dx, self.dy = self.START_SPEED, 2.0
        self.wait = 0  # ticks before a serve leaves the centre
        self.seen_phase = "title"

    def serve(self, toward: int) -> None:
        """Back to the centre; after a pause, off toward the player on side ``toward`` (-1 left, 1 right)."""
        self.x, self.y = WIDTH / 2, HEIGHT / 2
        self.snap()  # a jump, not a flight: don't draw it streaking back to the middle
        self.dx = toward * self.START_SPEED
        self.dy = self.random.uniform(-3.0, 3.0)
        self.wait = 48

    def update(self, world: World) -> None:
        phase = self.match.phase
        if phase != self.seen_phase:
            self.seen_phase = phase
            if phase == "play":
                self.serve(1 if self.random.random() < 0.5 else -1)
            return
        if phase == "over":
            return
        if self.wait:
            self.wait -= 1
            return
        playing = phase == "play"  # no sounds and no points while the title screen plays itself
        x, y = self.x + self.dx, self.y + self.dy
        radius = BALL_SIZE / 2
        if not BOTTOM + radius <= y <= TOP - radius:
            self.dy = -self.dy
            y = BOTTOM + radius if y < HEIGHT / 2 else TOP - radius
            if playing:
                world.play(WALL, volume=0.5)
        for paddle in world.overlapping_at(x, y, (BALL_SIZE, BALL_SIZE), kind=Paddle):
            toward = 1 if paddle.x < WIDTH / 2 else -1  # away from the paddle that was hit
            if self.dx * toward < 0:  # only when coming at it: never caught inside
                speed = min(self.TOP_SPEED, abs(self.dx) + 0.5)
                self.dx = toward * speed
                # Where it hits the paddle steers it: the edges send it off at a steep angle.
                self.dy = (y - paddle.y) / (PADDLE_SIZE[1] / 2) * speed * 0.9
                x = paddle.x + toward * (PADDLE_SIZE[0] + BALL_SIZE) / 2
                if playing:
                    world.play(HIT)
        if 0 <= x <= WIDTH:
            self.x, self.y = x, y
            return
        if playing:
            scorer = self.match.left_point if x > WIDTH else self.match.right_point
            scorer.send(1)
            world.play(SCORE)
        self.serve(-1 if x > WIDTH else 1)  # toward the player who lost the point


class ScoreText(Entity):
    """One side's score, big, fixed on the screen above its half of the court."""

    saved = ("match", "side")

    def __init__(self, match: Match, side: str) -> None:
        super().__init__(x=WIDTH / 2 + (-48 if side == "left" else 48), y=HEIGHT - 28)
        self.match, self.side = match, side

    def update(self, world: World) -> None:
        points = self.match.left_score if self.side == "left" else self.match.right_score
        text = str(points)
        if self.look is None or getattr(self.look, "text", None) != text:
            anchor = "right" if self.side == "left" else "left"
            color = (41, 173, 255) if self.side == "left" else (255, 0, 77)
            self.look = Look(text=text, size=36, color=color, screen=True, anchor_x=anchor, anchor_y="top", layer=1)


class Banner(Entity):
    """The words in the middle: the title, who won, and which key to press."""

    WORDS: ClassVar[dict[str, tuple[str, str, str]]] = {
        "title": ("P O N G", "first to 7 wins", "Space to serve      W / S  and  Up / Down move"),
        "over": ("{winner} wins!", "{left} - {right}", "R to play again"),
        "play": ("", "", ""),
    }

    def __init__(self, match: Match, line: int) -> None:
        super().__init__(x=WIDTH / 2, y=HEIGHT / 2 + (48, 0, -40)[line])
        self.match, self.line = match, line

    saved = ("match", "line")

    def update(self, world: World) -> None:
        winner = "Blue" if self.match.left_score > self.match.right_score else "Red"
        text = self.WORDS[self.match.phase][self.line].format(
            winner=winner, left=self.match.left_score, right=self.match.right_score)
        if not text:
            self.look = None
        elif self.look is None or getattr(self.look, "text", None) != text:
            big = self.line == 0
            self.look = Look(text=text, size=44 if big else 14, color=(255, 236, 39) if big else (255, 241, 232),
                             screen=True, layer=2)


class Panel(Entity):
    """A dark glass pane behind the banner, shown whenever the banner is."""

    look = Look("square", (480, 170), (11, 15, 31, 200), screen=True, layer=0)
    saved = ("match",)

    def __init__(self, match: Match) -> None:
        super().__init__(x=WIDTH / 2, y=HEIGHT / 2 + 8)
        self.match = match

    def update(self, world: World) -> None:
        self.look = None if self.match.phase == "play" else Panel.look


class Court(Entity):
    """The picture under everything: floor, rails, net."""

    look = Look(image=COURT, layer=-1)


def build(world: World) -> None:
    """The court, a match on the title screen, two paddles, a ball, the scores and the banner."""
    world.spawn(Court(x=WIDTH / 2, y=HEIGHT / 2))
    match = world.spawn(Match())
    left = world.spawn(Paddle(40, LEFT_LOOK, keys.W, keys.S, match))
    right = world.spawn(Paddle(WIDTH - 40, RIGHT_LOOK, keys.UP, keys.DOWN, match))
    ball = world.spawn(Ball(match))
    left.ball = right.ball = ball
    for side in ("left", "right"):
        world.spawn(ScoreText(match, side))
    world.spawn(Panel(match))
    for line in (0, 1, 2):
        world.spawn(Banner(match, line))

"""Pong: two paddles, one ball, first to five (written from tickswap 0.2's README).

One of "the old platformer and Pong" (see platformer.py). W and S move the left paddle,
the arrows the right one. Run it: ``python pong.py`` (or ``--ticks 600``).
"""

from pathlib import Path

from engine import Entity, Look, World, buffered, keys, run, signal

WIDTH, HEIGHT = 480, 320
BACKGROUND = (10, 10, 30)
HIT = str(Path(__file__).with_name("hit.wav"))
SCORE = str(Path(__file__).with_name("score.wav"))


class Paddle(Entity):
    """Moves up and down with its two keys, inside the court."""

    look = Look("square", (10, 60), (240, 240, 240))

    def __init__(self, x, up, down):
        super().__init__(x=x, y=HEIGHT / 2)
        self.up, self.down = up, down

    saved = ("up", "down")

    def update(self, world):
        held = world.input.pressed
        self.y += 5 * (held(self.up) - held(self.down))
        self.y = min(max(self.y, 30), HEIGHT - 30)


class Score(Entity):
    """Both scores in one text; a side that scores raises its signal."""

    look = Look(text="0 : 0", size=20, layer=1)
    left_scored = signal()
    right_scored = signal()
    points = buffered((0, 0))

    def __init__(self):
        super().__init__(x=WIDTH / 2, y=HEIGHT - 24)

    def update(self, world):
        left, right = self.points
        left += 1 if self.left_scored else 0
        right += 1 if self.right_scored else 0
        if (left, right) != self.points:
            self.points = (left, right)
            self.look = Look(text=f"{left} : {right}", size=20, layer=1)

    def on_load(self, world):
        self.look = Look(text=f"{self.points[0]} : {self.points[1]}", size=20, layer=1)


class Ball(Entity):
    """Bounces off the walls and the paddles; past a paddle, the other side scores and it serves again."""

    look = Look("circle", 10, (255, 200, 80))
    saved = ("dx", "dy", "score")

    def __init__(self, score):
        super().__init__(x=WIDTH / 2, y=HEIGHT / 2)
        self.score = score
        self.dx, self.dy = 4, 0               # the first serve goes straight at the right paddle

    def update(self, world):
        self.x += self.dx
        self.y += self.dy
        if not 5 <= self.y <= HEIGHT - 5:
            self.dy = -self.dy
        if world.overlapping(self, Paddle):
            self.dx = -self.dx
            world.play(HIT)
        if self.x < 0 or self.x > WIDTH:
            if self.x < 0:
                self.score.right_scored = True
            else:
                self.score.left_scored = True
            world.play(SCORE)
            self.x, self.y = WIDTH / 2, HEIGHT / 2
            self.dx = -self.dx
            self.dy = self.random.choice((-3, -2, 2, 3))


def build(world: World):
    world.spawn(Paddle(20, keys.W, keys.S))
    world.spawn(Paddle(WIDTH - 20, keys.UP, keys.DOWN))
    world.spawn(Ball(world.spawn(Score())))


if __name__ == "__main__":
    run(build)

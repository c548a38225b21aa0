"""Parts: several looks per entity, drawn with it, interpolated with it, at offsets and in order.

A health bar over an enemy (a part that does not turn), a gun on a ship (one that does),
a widget's label (a text part): no second entity glued on by a system, no lag of a tick.
"""

from __future__ import annotations

import pytest

from engine import Entity, Look, Part, World
from engine.look import MAX_PARTS

RED = Look("square", 4, (255, 0, 0))
GREEN = Look("square", 4, (0, 255, 0), layer=1)
BLUE = Look("square", 10, (0, 0, 255))


class Enemy(Entity):
    look = BLUE
    parts: tuple[Part, ...] = (Part(GREEN, offset=(0, 10), turns=False),)

    def update(self, world: World) -> None:
        self.x += 40


def test_parts_are_checked_by_name():
    with pytest.raises(TypeError, match="Part look must be a Look, got 'red'"):
        Part("red")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"Part offset must be \(dx, dy\).*got \(1, nan\)"):
        Part(RED, (1, float("nan")))
    with pytest.raises(TypeError, match="Part turns must be True"):
        Part(RED, turns=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"Enemy.parts is a tuple of Parts: write \(Part"):
        Enemy().parts = Part(RED)  # type: ignore[assignment]  # refused by name
    with pytest.raises(TypeError, match=r"Enemy.parts must be a tuple of Part \(or None\), got \['x'\]"):
        Enemy().parts = ["x"]  # type: ignore[assignment]  # refused by name
    with pytest.raises(ValueError, match=f"at most {MAX_PARTS}"):
        Enemy().parts = (Part(RED),) * (MAX_PARTS + 1)
    assert Part(RED, [1, 2]).offset == (1.0, 2.0)  # type: ignore[arg-type]  # a list is taken as a pair
    enemy = Enemy()
    enemy.parts = None  # type: ignore[assignment]  # None: back to the class's parts
    assert enemy.parts == () and Entity().parts == ()
    enemy.parts = [Part(RED)]  # type: ignore[assignment]  # a list is taken as a tuple
    assert enemy.parts == (Part(RED),)


def test_instance_parts_are_state_like_the_look():
    with World() as world:
        enemy = world.spawn(Enemy())
        before = world.state_hash()
        checkpoint = world.checkpoint()
        enemy.parts = ()
        assert world.snapshot()["entities"][0]["parts"] == [] and world.state_hash() != before
        world.rollback(checkpoint)
        assert enemy.parts == Enemy.parts and world.state_hash() == before


@pytest.mark.usefixtures("offscreen")
class TestDrawn:
    @pytest.fixture
    def window(self):
        from engine.render import create_window

        made = create_window(120, 60, headless=True)
        yield made
        made.close()

    def _draw(self, renderer, window, alpha):
        import pyglet

        from engine.render.context import read_pixels

        pyglet.gl.glClearColor(0, 0, 0, 1)
        window.clear()
        renderer.draw(alpha)
        data = read_pixels(120, 60)
        return lambda x, y: tuple(data[(y * 120 + x) * 4:(y * 120 + x) * 4 + 3])

    def test_a_part_is_drawn_at_its_offset_with_its_entity_interpolated(self, window):
        from engine.render.entities import EntityRenderer

        with World() as world:
            world.spawn(Enemy(x=20, y=20))
            world.tick()  # 20 -> 60
            renderer = EntityRenderer(world)
            at = self._draw(renderer, window, 0.5)
            assert at(40, 20) == (0, 0, 255), "the entity halfway"
            assert at(40, 30) == (0, 255, 0), "its health bar 10 above it, halfway too: no lag"
            assert at(20, 30) == (0, 0, 0) and at(60, 30) == (0, 0, 0)
            renderer.delete()

    def test_a_turning_part_turns_around_its_entity_and_one_that_does_not_stays_level(self, window):
        from engine.render.entities import EntityRenderer

        class Ship(Entity):
            look = Look("square", 6, (0, 0, 255))
            parts = (Part(RED, (12, 0)), Part(GREEN, (0, 20), turns=False))

        with World() as world:
            world.spawn(Ship(x=60, y=30, angle=90.0))
            renderer = EntityRenderer(world)
            at = self._draw(renderer, window, 1.0)
            assert at(60, 42) == (255, 0, 0), "the gun, turned a quarter: 12 above instead of 12 right"
            assert at(72, 30) == (0, 0, 0)
            assert at(60, 50) == (0, 255, 0) and at(40, 30) == (0, 0, 0), "the level part: 20 above, unturned"
            renderer.delete()

    def test_parts_draw_after_their_entity_in_their_looks_layers_and_changes_show_next_frame(self, window):
        from engine.render.entities import EntityRenderer

        class Base(Entity):
            look = Look("square", 20, (0, 0, 255), layer=1)
            parts: tuple[Part, ...] = (Part(Look("square", 8, (255, 0, 0), layer=1)),  # same layer: after the entity, on top
                     Part(Look("square", 30, (0, 255, 0), layer=0)))  # lower layer: below everything

        with World() as world:
            base = world.spawn(Base(x=60, y=30))
            renderer = EntityRenderer(world)
            at = self._draw(renderer, window, 1.0)
            assert (at(60, 30), at(66, 30), at(73, 30)) == ((255, 0, 0), (0, 0, 255), (0, 255, 0))
            base.parts = (Part(Look(text="HELLO", size=10, color=(255, 255, 255)), (0, -20)),)
            at = self._draw(renderer, window, 1.0)
            assert at(60, 30) == (0, 0, 255) and at(73, 30) == (0, 0, 0), "the new parts, the next frame"
            assert any(at(x, y) != (0, 0, 0) for x in range(40, 80) for y in range(4, 16)), "the text part"
            Base.parts = ()
            del base.parts
            at = self._draw(renderer, window, 1.0)
            assert not any(at(x, y) != (0, 0, 0) for x in range(40, 80) for y in range(4, 16))
            renderer.delete()

    def test_a_screen_part_is_drawn_in_window_coordinates_whatever_the_camera(self, window):
        from engine import Camera
        from engine.render.entities import EntityRenderer

        class Button(Entity):
            look = Look("square", (40, 16), (0, 0, 255), screen=True)
            parts = (Part(Look("square", 6, (255, 0, 0), screen=True, layer=1), (10, 0)),)

        with World() as world:
            world.spawn(Camera(x=500, y=500))
            world.spawn(Button(x=30, y=20))
            renderer = EntityRenderer(world, window=window)
            at = self._draw(renderer, window, 1.0)
            assert at(40, 20) == (255, 0, 0) and at(20, 20) == (0, 0, 255)
            renderer.delete()

    def test_a_text_part_that_changes_every_tick_restyles_its_label_without_resorting(self, window, monkeypatch):
        from engine.render.entities import EntityRenderer

        class Counter(Entity):
            look = BLUE

            def update(self, world: World) -> None:
                self.parts = (Part(Look(text=str(world.tick_count), size=8), (0, 12), turns=False),)

        with World() as world:
            for index in range(10):
                world.spawn(Enemy(x=index * 10, y=10))
            counter = world.spawn(Counter(x=60, y=30))
            world.tick()
            renderer = EntityRenderer(world)
            self._draw(renderer, window, 1.0)
            resorts: list[int] = []
            monkeypatch.setattr(renderer, "_sync_looks", lambda *looks_and_parts: resorts.append(1))
            for _ in range(4):
                world.tick()
                self._draw(renderer, window, 1.0)
            assert resorts == [] and renderer._texts.labels[(counter.id, 0)].text == "4"
            counter.parts = (Part(Look(text="moved", size=8), (0, 20), turns=False),)  # another offset: re-sorted
            self._draw(renderer, window, 1.0)
            assert resorts == [1]
            renderer.delete()

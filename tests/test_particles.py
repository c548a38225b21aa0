"""Particles: a Crowd that emits from its own seeded random, ages, fades and leaves, as state like any other."""

from __future__ import annotations

import math

import numpy as np
import pytest
from loadedworlds import assert_goes_on_alike, loaded_beside

from engine import Entity, Look, Particles, World, buffered
from engine.testing import assert_order_independent, assert_rollback_deterministic


def test_a_burst_appears_after_the_first_update_lives_out_its_lifetimes_and_the_emitter_leaves():
    with World(seed=1) as world:
        puff = world.spawn(Particles.burst(50, 60, 30, lifetime=(5, 9), speed=(1, 2)))
        counts = []
        while puff.alive:
            world.tick()
            counts.append(puff.count)
        assert counts[0] == 30, "the burst joins after the emitter's first update"
        assert counts == sorted(counts, reverse=True) and counts[-3] > 0 == counts[-2] == counts[-1]
        assert len(counts) <= 12, "the longest life is 9 ticks; it leaves in the update after the last is gone"
        assert puff not in world.entities


def test_each_particle_moves_with_its_own_speed_and_direction_inside_the_spread():
    with World(seed=2) as world:
        fan = world.spawn(Particles.burst(0, 0, 200, speed=(2, 3), direction=90, spread=60, lifetime=50))
        world.tick()
        world.tick()
        position = fan.current("position").astype(np.float64)
        speeds = np.hypot(position[:, 0], position[:, 1])
        angles = np.degrees(np.arctan2(position[:, 1], position[:, 0]))
        assert speeds.min() >= 2 - 1e-5 and speeds.max() <= 3 + 1e-5
        assert angles.min() >= 60 - 1e-3 and angles.max() <= 120 + 1e-3
        assert angles.max() - angles.min() > 50, "spread over the whole fan"
        assert len({round(float(s), 4) for s in speeds}) > 150, "each draws its own"


def test_gravity_and_drag_change_the_velocity_each_tick_then_the_particle_moves_by_it():
    with World() as world:
        drop = world.spawn(Particles.burst(0, 100, 1, speed=4, direction=0, spread=0, gravity=0.5, drag=0.25,
                                           lifetime=20))
        world.tick()
        assert drop.current("velocity").tolist() == [[4.0, 0.0]]
        world.tick()
        assert drop.current("velocity").tolist() == [[3.0, -0.5]]
        assert drop.current("position").tolist() == [[3.0, 99.5]]
        world.tick()
        assert drop.current("velocity").tolist() == [[2.25, -0.875]]


def test_fade_and_shrink_take_opacity_and_size_from_full_to_nothing_over_a_life():
    with World() as world:
        spark = world.spawn(Particles.burst(0, 0, 1, speed=0, lifetime=4, fade=True, shrink=True))
        ghost = world.spawn(Particles.burst(0, 0, 1, speed=0, lifetime=4, fade=False))
        seen = []
        for _ in range(4):
            world.tick()
            seen.append((spark.current("opacity").tolist(), spark.current("scale").tolist(),
                         ghost.current("opacity").tolist()))
        assert seen == [([[1.0]], [[1.0]], [[1.0]]), ([[0.75]], [[0.75]], [[1.0]]), ([[0.5]], [[0.5]], [[1.0]]),
                        ([[0.25]], [[0.25]], [[1.0]])]
        world.tick()
        assert spark.count == 0 and spark.alive
        world.tick()
        assert not spark.alive


def test_a_rate_emits_its_share_each_tick_for_its_duration():
    with World() as world:
        fountain = world.spawn(Particles(0, 0, rate=2.5, duration=8, lifetime=100))
        counts = []
        for _ in range(12):
            world.tick()
            counts.append(fountain.count)
        assert counts[:9] == [math.floor(2.5 * n) for n in range(1, 10)][:8] + [20]
        assert counts[8:] == [20] * 4 and not fountain.emitting and fountain.alive
        assert fountain.capacity == 3 * 101


def test_stop_from_anyone_lands_next_tick_and_a_followed_entity_carries_the_emitter():
    class Ship(Entity):
        def update(self, world: World) -> None:
            self.x += 10

    class Captain(Entity):
        def __init__(self, trail: Particles) -> None:
            super().__init__()
            self.trail = trail

        def update(self, world: World) -> None:
            if world.tick_count == 3:
                self.trail.stop()

    with World() as world:
        ship = world.spawn(Ship())
        trail = world.spawn(Particles(rate=1, lifetime=3, speed=0, follow=ship))
        world.spawn(Captain(trail))
        xs = []
        for _ in range(10):
            world.tick()
            xs.append(trail.x)
        assert xs[:5] == [0.0, 10.0, 20.0, 30.0, 40.0], "the ship's committed place, a tick behind"
        assert trail.current("position")[:, 0].tolist() == [] and not trail.alive
        assert not trail.emitting


def test_an_emitter_whose_followed_entity_despawns_stops_and_leaves_when_its_particles_are_gone():
    with World() as world:
        ship = world.spawn(Entity(x=5))
        trail = world.spawn(Particles(rate=1, lifetime=2, follow=ship))
        world.tick()
        world.despawn(ship)
        for _ in range(4):
            world.tick()
        assert not trail.alive


@pytest.mark.parametrize("settings, message", [
    ({}, "emit nothing"),
    ({"burst": -1}, "burst must be a whole number"),
    ({"burst": 2, "lifetime": 0}, "lifetime must be at least 1"),
    ({"burst": 2, "lifetime": (9, 3)}, "lifetime \\(9, 3\\): low must not be above high"),
    ({"burst": 2, "speed": math.nan}, "speed must be a finite number or \\(low, high\\)"),
    ({"burst": 2, "spread": 400}, "spread must be a number from 0 to 360"),
    ({"burst": 2, "drag": 2}, "drag must be a number from 0 to 1"),
    ({"burst": 2, "color": (300, 0, 0)}, "Look color must be 3 or 4 whole numbers"),
    ({"burst": 2, "shape": "text"}, "Look shape 'text' needs text"),
    ({"rate": 5000, "lifetime": 500}, "would hold up to 2,505,000 particles"),
    ({"burst": 2, "follow": "ship"}, "follow must be an entity"),
])
def test_bad_settings_are_refused_by_name(settings, message):
    with pytest.raises((TypeError, ValueError), match=message):
        Particles(0, 0, **settings)


class Enemy(Entity):
    """Dies at a tick of its own and leaves a puff; a neighbour watches the puffs' committed counts."""

    dies_at: int = buffered(0)
    puffs: int = buffered(0)

    def update(self, world: World) -> None:
        if world.tick_count == self.dies_at:
            world.spawn(Particles.burst(self.x, self.y, 12, lifetime=(4, 12), gravity=0.2, shrink=True))
            world.despawn(self)
        self.puffs = sum(thing.count for thing in world.entities if isinstance(thing, Particles))


def build_battle(world: World) -> None:
    for index in range(6):
        enemy = world.spawn(Enemy(x=10.0 * index, y=5.0))
        enemy.dies_at = 2 + 3 * index
    world.spawn(Particles(100, 100, rate=0.75, lifetime=(3, 9), speed=(0.5, 1.5), drag=0.1))


def test_particles_are_the_same_in_every_update_order():
    assert_order_independent(build_battle, ticks=40, orders=4, inputs=None)


def test_particles_roll_back_and_resimulate_exactly():
    assert_rollback_deterministic(build_battle, ticks=30, distance=6, inputs=None)


def test_a_save_made_mid_emission_loads_and_goes_on_as_the_straight_run(tmp_path):
    with World(seed=9) as straight:
        build_battle(straight)
        for _ in range(7):
            straight.tick()
        assert any(isinstance(thing, Particles) and thing.count for thing in straight.entities)
        looks = [thing.look for thing in straight.entities if isinstance(thing, Particles)]
        with loaded_beside(straight, tmp_path / "mid.json", ticks=0) as loaded:
            assert [thing.look for thing in loaded.entities if isinstance(thing, Particles)] == looks
        assert_goes_on_alike(straight, tmp_path / "later.json", ticks=25)


def test_another_seed_gives_another_burst_and_the_same_seed_the_same():
    def hash_of(seed: int) -> str:
        with World(seed=seed) as world:
            build_battle(world)
            for _ in range(10):
                world.tick()
            return world.state_hash()

    assert hash_of(3) == hash_of(3) != hash_of(4)


# -- drawing -------------------------------------------------------------------------------------

@pytest.mark.usefixtures("offscreen")
@pytest.mark.parametrize("quads", [False, True])
def test_faded_and_shrunk_particles_are_drawn_smaller_and_fainter(quads, monkeypatch):
    import pyglet

    from engine.render import create_window, sprites
    from engine.render.context import read_pixels
    from engine.render.entities import EntityRenderer

    if quads:
        monkeypatch.setattr(sprites, "_max_point_size", [8.0])  # the quad path, as for large looks
    window = create_window(80, 40, headless=True)
    with World() as world:
        spark = world.spawn(Particles.burst(20, 20, 1, speed=0, lifetime=4, shape="square", size=16,
                                            color=(255, 255, 255), shrink=True))
        steady = world.spawn(Particles.burst(60, 20, 1, speed=0, lifetime=4, shape="square", size=16,
                                             color=(255, 255, 255), fade=False))
        # What half opacity looks like in this GL (a 16-bit colour buffer keeps 5 bits of red):
        world.spawn(Entity(x=40, y=20)).look = Look("square", 4, (255, 255, 255, 127))
        for _ in range(3):
            world.tick()  # joined; then half a life: opacity and scale 0.5
        assert spark.current("scale").tolist() == [[0.5]]
        renderer = EntityRenderer(world)
        pyglet.gl.glClearColor(0, 0, 0, 1)
        window.clear()
        renderer.draw(1.0)
        data = read_pixels(80, 40)
        layers = [layer.quads for layer in renderer._crowds.values()]
        renderer.delete()
    window.close()
    assert layers == [quads, quads]
    row = [data[(20 * 80 + x) * 4] for x in range(80)]
    faded = [x for x in range(36) if row[x]]
    assert faded == list(range(16, 24)), "half of 16 pixels wide"
    assert {row[x] for x in faded} == {row[40]} and 100 < row[40] < 150, "half of 255, as a translucent look"
    assert [x for x in range(44, 80) if row[x]] == list(range(52, 68)) and row[60] == 255, "no fade: full"
    assert steady.current("opacity").tolist() == [[1.0]]



@pytest.mark.parametrize("name, value, message", [
    ("spread", 999.0, "spread must be a number from 0 to 360, got 999.0"),
    ("rate", 50.0, "its settings need room for 3,330 particles, its saved capacity is 30"),  # 30 + 50 * 66
    ("color", "red", "Look color must be"),
    ("fade", "yes", "fade must be True or False"),
])
def test_a_save_holding_settings_no_emitter_has_is_refused_at_load_naming_it(tmp_path, name, value, message):
    import json

    from engine import SaveError

    with World() as world:
        world.spawn(Particles.burst(0, 0, 30, lifetime=(10, 65)))
        world.tick()
        world.save(tmp_path / "puff.json")
    data = json.loads((tmp_path / "puff.json").read_text())
    data["entities"][0]["saved"][name] = value
    (tmp_path / "puff.json").write_text(json.dumps(data))
    with pytest.raises(SaveError, match=f"puff.json cannot be loaded: ValueError: Particles \\(id 1\\): .*{message}"):
        World.load(tmp_path / "puff.json")

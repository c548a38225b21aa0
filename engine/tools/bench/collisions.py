"""The collisions family: every entity asks what it overlaps, ``world.overlapping`` against a loop;
walkers on static tiles; the shooter (``engine.tools.bench.shooter``) beside numpy and Arcade; and
boids, as entities asking ``world.near(..., exclude=self)`` and as one crowd asking ``near_pairs``."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from engine.entity import Entity
from engine.tools.bench.base import Rows, measure
from engine.world import World

__all__ = ["bench_boids", "bench_collisions", "bench_shooter", "bench_static"]


def bench_collisions(count: int = 10_000, rounds: int = 5,
                     brute_askers: int = 500) -> Rows:
    """Every entity asks what it overlaps, once per tick: ``world.overlapping`` vs the O(n*m) loop.

    The loop over ``entities_of`` at 10,000 entities takes seconds per tick, so it is
    timed for ``brute_askers`` entities and scaled to all of them (it is linear in askers).
    """
    from engine.look import Look

    side = (count ** 0.5) * 24.0  # about one neighbour within reach of each box

    class Box(Entity):
        look = Look("square", 10)

        def __init__(self, x: float, y: float, asks: bool) -> None:
            super().__init__(x=x, y=y)
            self.asks = asks
            self.touching = 0

    class Indexed(Box):
        def update(self, world: Any) -> None:
            if self.asks:
                self.touching = len(world.overlapping(self))

    class Brute(Box):
        def update(self, world: Any) -> None:
            if self.asks:
                x, y, touching = self.x, self.y, 0
                for other in world.entities_of(Box):
                    if other is not self and abs(other.x - x) < 10 and abs(other.y - y) < 10:
                        touching += 1
                self.touching = touching

    import random

    placer = random.Random(1)
    spots = [(placer.uniform(0, side), placer.uniform(0, side)) for _ in range(count)]
    askers = min(brute_askers, count)
    indexed, brute = World(), World()
    for i, (x, y) in enumerate(spots):
        indexed.spawn(Indexed(x, y, True))
        brute.spawn(Brute(x, y, i < askers))
    times = measure({"indexed": indexed.tick, "brute": brute.tick}, rounds, time.thread_time)
    touching = [getattr(e, "touching", None) for e in indexed.entities[:askers]]
    assert touching == [getattr(e, "touching", None) for e in brute.entities[:askers]], "both find the same"
    indexed.close()
    brute.close()
    brute_ms = times["brute"] * 1e3 * count / askers
    scaled = "" if askers == count else f" (timed for {askers}, scaled)"
    return [
        (f"O(n*m) loop over entities_of, {count} ask{scaled}", brute_ms, 1.0, ""),
        (f"world.overlapping, one grid per tick, {count} ask", times["indexed"] * 1e3,
         brute_ms / (times["indexed"] * 1e3), "the grid's build included"),
    ]


def bench_static(tiles: int = 900, movers: int = 5, rounds: int = 30) -> Rows:
    """A level of ``tiles`` tiles and ``movers`` walkers asking ``overlapping_at`` where they would go.

    Timed six ways, interleaved: no tiles; the tiles not static (re-gridded every tick, as
    every entity was before the static layer); the tiles ``static = True`` (gridded once);
    the static level with walkers that never ask (its ticks without any collision work);
    and the same level as a Tiled map's solid tile layer (``TileMap``, its grid built when
    it is read), with walkers that ask and that never ask. The static level minus the one
    that never asks is what collisions cost there per tick; the quiet map minus no tiles
    at all (walkers that never ask either) is what a map's solid layer costs a tick by being there.
    """
    import tempfile
    from pathlib import Path

    from engine.look import Look
    from engine.tiles import Tile as MapTile
    from engine.tiles import TileMap

    side = max(1, round(tiles ** 0.5))

    class Tile(Entity):
        look = Look("square", 16)

    class StaticTile(Tile):
        static = True

    class Walker(Entity):
        look = Look("square", 12)

        asks = True
        ground: type = Tile

        def update(self, world: Any) -> None:
            step = 1.0 if (world.tick_count // 200) % 2 == 0 else -1.0
            if self.asks and not world.overlapping_at(self.x + step, self.y - 1.0, (12, 12), self.ground):
                self.y -= 1.0
            self.x += step

    class Quiet(Walker):
        asks = False

    class MapWalker(Walker):
        ground = MapTile

    class QuietOnMap(MapWalker):
        asks = False

    with tempfile.TemporaryDirectory() as directory:
        tile_map = _solid_map(Path(directory), side, -(-tiles // side), tiles)
        read_map = tile_map.data

    def level(kind: type[Entity] | None, walker: type[Walker] = Walker) -> World:
        world = World()
        if kind is TileMap:
            # The map's rows are Tiled's (top first): the bottom one is full, as the entity tiles' row 0.
            world.spawn(TileMap(read_map))
        elif kind is not None:
            for n in range(tiles):
                world.spawn(kind(x=(n % side) * 16.0 + 8.0, y=(n // side) * 16.0 + 8.0))  # centres, as a map's
        for n in range(movers):
            world.spawn(walker(x=n * 40.0, y=side * 16.0 + 20.0))
        return world

    worlds = {"static": level(StaticTile), "regridded": level(Tile), "bare": level(None),
              "quiet": level(StaticTile, Quiet), "map": level(TileMap, MapWalker),
              "map quiet": level(TileMap, QuietOnMap), "bare quiet": level(None, Quiet)}
    for world in worlds.values():
        world.tick()  # the first tick builds the static grid: not what a tick costs afterwards
    times = measure({name: world.tick for name, world in worlds.items()}, rounds, time.thread_time)
    walkers = {name: [(w.x, w.y) for w in world.entities_of(Walker)] for name, world in worlds.items()}
    assert walkers["static"] == walkers["regridded"] == walkers["map"], "all three find the same"
    for world in worlds.values():
        world.close()
    bare, static, regridded, quiet, on_map, map_quiet, bare_quiet = (
        times[name] * 1e3 for name in ("bare", "static", "regridded", "quiet", "map", "map quiet", "bare quiet"))
    return [
        (f"{movers} walkers ask overlapping_at, no tiles", bare, 1.0, ""),
        (f"{tiles} static tiles, {movers} walkers that never ask", quiet, quiet / bare, "a tick, no collisions"),
        (f"{tiles} tiles re-gridded every tick, {movers} walkers ask", regridded, regridded / bare,
         f"collisions {regridded - quiet:.3f} ms a tick"),
        (f"{tiles} static tiles (static = True), {movers} walkers ask", static, static / bare,
         f"collisions {static - quiet:.3f} ms a tick"),
        (f"a TileMap of {tiles} solid tiles, {movers} walkers that never ask", map_quiet, map_quiet / bare,
         f"the map costs {map_quiet - bare_quiet:+.3f} ms a tick (vs no tiles, walkers that never ask)"),
        (f"a TileMap of {tiles} solid tiles, {movers} walkers ask", on_map, on_map / bare,
         f"collisions {on_map - map_quiet:.3f} ms a tick"),
    ]


def _solid_map(directory: Any, columns: int, rows: int, tiles: int) -> Any:
    """A Tiled map of ``tiles`` solid tiles (filled from the bottom row up), read back as a TileMap."""
    import json
    import struct
    import zlib

    from engine.tiles import TileMap

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    pixels = zlib.compress(b"".join(b"\0" + b"\x80\x80\x80\xff" * 16 for _ in range(16)))
    header = struct.pack(">IIBBBBB", 16, 16, 8, 6, 0, 0, 0)
    (directory / "tiles.png").write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels)
                                         + chunk(b"IEND", b""))
    cells = [1 if n < tiles else 0 for n in range(columns * rows)]
    data = [gid for row in reversed([cells[r * columns:(r + 1) * columns] for r in range(rows)]) for gid in row]
    document = {"type": "map", "version": "1.10", "orientation": "orthogonal", "renderorder": "right-down",
                "infinite": False, "width": columns, "height": rows, "tilewidth": 16, "tileheight": 16,
                "nextlayerid": 2, "nextobjectid": 1, "tiledversion": "1.10.2",
                "layers": [{"type": "tilelayer", "name": "ground", "id": 1, "width": columns, "height": rows,
                            "x": 0, "y": 0, "opacity": 1, "visible": True, "data": data,
                            "properties": [{"name": "solid", "type": "bool", "value": True}]}],
                "tilesets": [{"firstgid": 1, "name": "tiles", "image": "tiles.png", "imagewidth": 16,
                              "imageheight": 16, "tilewidth": 16, "tileheight": 16, "tilecount": 1, "columns": 1,
                              "margin": 0, "spacing": 0}]}
    (directory / "level.tmj").write_text(json.dumps(document))
    return TileMap.load(directory / "level.tmj")


def bench_shooter(walkers: int = 330, bullets: int = 1900, rounds: int = 20) -> Rows:
    """The shooter workload (``engine.tools.bench.shooter``) four ways, interleaved round by round.

    Bullets as entities, bullets as one crowd, the numpy floor, and Arcade 3.3 in a child
    process where it is installed. Each round ticks every version once; the medians are
    compared with Arcade's (the ratio column: how many times Arcade's ticks a second), or,
    without Arcade, with the floor's. The entities and the floor find the same hits (checked).

    Each tick is timed in CPU time (``time.thread_time``), here and in the child: Arcade's
    tick is long, and on a busy machine a long tick is preempted by other work in every round
    while a short one often is not, which a wall-clock median would count against the
    long one only.
    """
    import importlib.util
    import statistics
    import subprocess
    import sys

    from engine.tools.bench.shooter import NumpyFloor, engine_worlds

    worlds = engine_worlds(walkers, bullets)
    floor = NumpyFloor(walkers, bullets)
    cases: dict[str, Callable[[], Any]] = {name: world.tick for name, (world, _hits) in worlds.items()}
    cases["floor"] = floor.tick
    peer: subprocess.Popen[str] | None = None
    arcade = "arcade not installed"
    if importlib.util.find_spec("arcade") is not None:
        peer = subprocess.Popen([sys.executable, "-m", "engine.tools.bench.arcade_peer", str(walkers), str(bullets)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert peer.stdin is not None and peer.stdout is not None
        said = peer.stdout.readline().split(maxsplit=1)
        if said and said[0] == "ready":
            arcade = f"Arcade {said[1].strip()}"
        else:
            arcade = f"arcade not usable here ({said[1].strip() if len(said) > 1 else 'no answer'})"
            peer.stdin.close()
            peer.wait()
            peer = None
    times: dict[str, list[float]] = {name: [] for name in [*cases, "arcade"]}
    arcade_hits = 0
    try:
        for _ in range(rounds + 1):  # the first round warms every version up and is not counted
            for name, case in cases.items():
                start = time.thread_time()
                case()
                times[name].append(time.thread_time() - start)
            if peer is not None:
                assert peer.stdin is not None and peer.stdout is not None
                peer.stdin.write("tick\n")
                peer.stdin.flush()
                answer = peer.stdout.readline().split()
                if len(answer) != 2:  # the peer died: say so, and compare with the floor instead
                    arcade = f"arcade stopped answering after {len(times['arcade'])} ticks"
                    times["arcade"] = []
                    peer.stdin.close()
                    peer.wait()
                    peer = None
                    continue
                times["arcade"].append(float(answer[0]))
                arcade_hits = int(answer[1])
    finally:
        if peer is not None:
            assert peer.stdin is not None
            peer.stdin.close()
            peer.wait()
    ms = {name: statistics.median(values[1:]) * 1e3 for name, values in times.items() if len(values) > 1}
    hits = {name: counter() for name, (_world, counter) in worlds.items()}
    assert hits["entities"] == floor.hits(), f"the entities and the floor find the same hits: {hits} vs {floor.hits()}"
    for world, _hits in worlds.values():
        world.close()
    reference = ms.get("arcade", ms["floor"])
    against = "Arcade's" if "arcade" in ms else "the numpy floor's (arcade not installed)"
    ticks = rounds + 1

    def row(case: str, name: str, found: int, target: str) -> tuple[str, float, float, str]:
        rate = 1e3 / ms[name]
        return (case, ms[name], reference / ms[name],
                f"{rate:,.0f} ticks/s, {found / ticks:,.0f} hits a tick; ratio: times {against} ticks/s{target}")

    rows = []
    if "arcade" in ms:
        rows.append(row(f"{arcade}: {walkers} walkers in a spatial-hashed SpriteList, {bullets} bullets, "
                        "check_for_collision_with_list per bullet", "arcade", arcade_hits, ""))
    else:
        rows.append((f"Arcade: {arcade} (pip install arcade==3.3.3 to compare)", float("nan"), float("nan"), arcade))
    rows += [
        row(f"tickswap: {walkers} walkers, {bullets} bullets as entities, world.overlapping(self, Walker) each",
            "entities", hits["entities"], "; target >= 5x Arcade" if "arcade" in ms else ""),
        row(f"tickswap: {walkers} walkers, {bullets} bullets as one Crowd, world.overlapping_members once",
            "crowd", hits["crowd"], "; target >= 20x Arcade" if "arcade" in ms else ""),
        row("numpy floor: the same work vectorized, no engine (bin, test, count)", "floor", floor.hits(), ""),
    ]
    return rows


def bench_boids(counts: tuple[int, ...] = (2000, 8000), rounds: int = 5, radius: float = 25.0) -> Rows:
    """Boids, ``counts`` of them, each steering by its neighbours within ``radius``: two ways, interleaved.

    As entities, each asking ``world.near(self.x, self.y, radius, Boid, exclude=self)`` and
    reading its neighbours' committed position and velocity (cohesion, alignment,
    separation); and as one ``Crowd`` asking ``self.near_pairs(radius, both_ways=True)`` once
    and summing over the pairs with ``numpy.bincount``. The field is sized so that a boid
    has about ten neighbours; the ratio column is how many times faster the crowd's tick is.
    Both wrap round the field's edges (the query does not: neighbours across an edge are not seen).
    """
    return [row for count in counts for row in _boids(count, rounds, radius)]


def _boids(count: int, rounds: int, radius: float) -> Rows:
    """``bench_boids``'s two rows for ``count`` boids."""
    import random

    import numpy as np

    from engine.crowd import Crowd
    from engine.entity import buffered
    from engine.look import Look

    side = (count * math.pi * radius * radius / 10.0) ** 0.5  # about ten neighbours each

    class Boid(Entity):
        look = Look("square", 4)
        vx = buffered(0.0)
        vy = buffered(0.0)

        def __init__(self, x: float, y: float, vx: float, vy: float) -> None:
            super().__init__(x=x, y=y)
            self.vx, self.vy = vx, vy

        def update(self, world: Any) -> None:
            x, y, vx, vy = self.x, self.y, self.vx, self.vy
            others = world.near(x, y, radius, Boid, exclude=self)
            if others:
                share = 1.0 / len(others)
                cx = sum(other.x for other in others) * share
                cy = sum(other.y for other in others) * share
                ax = sum(other.vx for other in others) * share
                ay = sum(other.vy for other in others) * share
                vx += (cx - x) * 0.005 + (ax - vx) * 0.05
                vy += (cy - y) * 0.005 + (ay - vy) * 0.05
                for other in others:
                    dx, dy = x - other.x, y - other.y
                    if dx * dx + dy * dy < 64.0:
                        vx += dx * 0.03
                        vy += dy * 0.03
            self.vx, self.vy = vx, vy
            self.x, self.y = (x + vx) % side, (y + vy) % side

    class Flock(Crowd):
        look = Look("square", 4)

        def update(self, world: Any) -> None:
            members = self.count
            position, velocity = self.current("position"), self.current("velocity")
            i, j = self.near_pairs(radius, both_ways=True)
            neighbours = np.bincount(i, minlength=members)
            has = neighbours > 0
            share = np.where(has, 1.0 / np.maximum(neighbours, 1), 0.0)[:, None]
            offset = position[j] - position[i]  # from each boid to each of its neighbours
            centre = np.stack([np.bincount(i, offset[:, axis], members) for axis in (0, 1)], axis=1) * share
            heading = np.stack([np.bincount(i, velocity[j, axis], members) for axis in (0, 1)], axis=1) * share
            close = (offset * offset).sum(axis=1) < 64.0
            push = np.stack([np.bincount(i[close], -offset[close, axis], members) for axis in (0, 1)], axis=1)
            steer = centre * 0.005 + np.where(has[:, None], heading - velocity, 0.0) * 0.05 + push * 0.03
            moved = self.next("velocity")
            np.add(velocity, steer, out=moved, casting="unsafe")
            np.mod(position + moved, side, out=self.next("position"))

    placer = random.Random(count)
    start = [(placer.uniform(0, side), placer.uniform(0, side), placer.uniform(-1, 1), placer.uniform(-1, 1))
             for _ in range(count)]
    entities, crowd = World(), World()
    for x, y, vx, vy in start:
        entities.spawn(Boid(x, y, vx, vy))
    flock = crowd.spawn(Flock(count))
    flock.spawn_members(position=[(x, y) for x, y, _vx, _vy in start],
                        velocity=[(vx, vy) for _x, _y, vx, vy in start])
    for world in (entities, crowd):
        world.tick()  # the first tick gathers the tables a later one reuses: not what a tick costs
    pairs = len(flock.near_pairs(radius)[0])
    times = measure({"entities": entities.tick, "crowd": crowd.tick}, rounds, time.thread_time)
    entities.close()
    crowd.close()
    each, whole = times["entities"] * 1e3, times["crowd"] * 1e3
    return [
        (f"boids: {count:,} entities, world.near(..., Boid, exclude=self) each", each, 1.0,
         f"{1e3 / each:,.0f} ticks/s"),
        (f"boids: {count:,} as one Crowd, self.near_pairs(r, both_ways=True) once", whole, each / whole,
         f"{1e3 / whole:,.0f} ticks/s, {2 * pairs / count:.1f} neighbours a boid; ratio: times the entities'"),
    ]

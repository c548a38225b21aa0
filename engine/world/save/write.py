"""Writing a save: every entity's engine-owned and declared state, the world's, checked, then written atomically.

Writing goes through ``engine.disk.atomic``: a temporary file beside the target, synced,
renamed over it; a crash mid-save leaves the previous save intact, and the target's mode
and symbolic links are kept. Anything that cannot be written *and read back* (an
object, a NaN is fine, a 100-digit integer is not) raises ``SaveError`` before the file
is touched: the writer runs the reader's own checks (``engine.world.save.check``) on what
it is about to write.

All reading of an entity's engine-owned state is in ``_entity_record`` (its restoring is
in ``engine.world.save.restore``): the double buffer's owner can change how that state is
kept without touching the rest. A save reads the world through ``Host`` (``engine.buffering``), never
importing ``engine.world``, so that ``World.save`` can delegate here without an import
circle.
"""

from __future__ import annotations

import json
import os
from typing import Any

from engine.buffering import Host
from engine.buffering.access import committed_values, saved_state
from engine.buffering.own import OwnBuffers, saved_own
from engine.buffering.shown import HIDDEN, kept_value
from engine.disk.atomic import AtomicFile, OutputError
from engine.ecs import current_components
from engine.entity import LOOK, PARTS, Entity, entities_of_host
from engine.input.events import InputQueue
from engine.messages import shown_name
from engine.schema import FieldError
from engine.state.looks import look_data, parts_data, picture_root
from engine.state.names import __version__
from engine.state.snapshot import ClassNameClash, class_names
from engine.state.values import NotSaveable, encode
from engine.world.music import music_of
from engine.world.players import players_of
from engine.world.save.check import (
    FORMAT,
    MAX_SAVE_BYTES,
    VERSION,
    SaveError,
    check_document,
    check_world,
    entity_classes,
)

__all__ = ["save_text", "save_world"]


def _entity_record(entity: Entity, module: str) -> dict[str, Any]:
    """Everything a save keeps of ``entity`` (its class's module named ``module``): class, id, buffered state,
    the buffers' own state, crowd."""
    kind = type(entity)
    where = f"{kind.__name__} (id {entity.id})"
    assert entity.id is not None
    components = current_components(entity.id)
    extra = [type(component).__name__ for component in components if component is not entity]
    if extra:
        raise SaveError(f"{where} has esper components a save cannot hold: {', '.join(extra)}")
    missing = [name for name in kind.saved if not hasattr(entity, name)]
    if missing:
        raise SaveError(f"{where} declares saved attributes it does not have: {', '.join(missing)}")
    crowd = saved_own(entity) if isinstance(entity, OwnBuffers) else None
    buffers = saved_state(entity)
    generator = buffers["random"]
    record = {
        "crowd": crowd,
        "id": entity.id,
        "class": f"{module}:{kind.__qualname__}",
        "buffered": {name: encode(value, f"{where}.{name}") for name, value in committed_values(entity).items()},
        "saved": {name: encode(getattr(entity, name), f"{where}.{name}") for name in kind.saved},
        "signals": {name: encode(value, f"{where}.{name}") for name, value in sorted(buffers["signals"].items())},
        # Each previous value encoded on its own: they sit deepest in a save, and encode's depth limit is theirs.
        "previous": {"tick": buffers["previous_tick"],
                     "values": {"$tuple": [encode(value, f"{where} (previous values)")
                                           for value in buffers["previous"]]}},
        "random": None if generator is None else [generator[0], generator[1], encode(generator[2], where)],
    }
    # What it shows of its own (absent: its class's). Pictures beside the class's module are
    # written relative to it, so the save moves with its game (engine.look.picture_root).
    look, parts = kept_value(LOOK, entity), kept_value(PARTS, entity)
    if look is not None:
        record["look"] = look_data(None if look is HIDDEN else look, picture_root(kind))
    if parts is not None:
        record["parts"] = parts_data(parts, picture_root(kind))
    return record


def _music(world: Host, root: str | os.PathLike[str] | None) -> dict[str, Any]:
    # An effect, not state (no hash holds it), but a load resumes it: written only when some plays.
    current = music_of(world).playing(world.tick_count)
    if current is None or current.path is None:
        return {}
    return {"music": [_track(current.path, root), current.loop, current.volume]}


def _track(path: str, root: str | os.PathLike[str] | None) -> str | dict[str, str]:
    """A track under the game's directory ``root`` as ``{"beside": relative}`` (the save moves with a copy of
    its game, as pictures beside their classes do); any other as it was asked for."""
    if root is not None:
        relative = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
        if relative != os.pardir and not relative.startswith(os.pardir + os.sep) and not os.path.isabs(relative):
            return {"beside": relative.replace(os.sep, "/")}
    return path


def _queued(queue: InputQueue) -> dict[str, Any]:
    """One player's input queue as a save holds it: the events waiting, held keys, mouse, sticks."""
    events, held, mouse, sticks = queue.state()
    queued = {"events": [encode(event.to_json(), "a queued input event") for event in events],
              "held": encode(held, "held keys"), "mouse": encode(list(mouse), "the mouse position")}
    if any(stick != (0.0, 0.0) for stick in sticks):  # written only when moved: saves of games without pads unchanged
        queued["sticks"] = [[float(x), float(y)] for x, y in sticks]
    if not queue.connected:  # a player dropped from a session: written only then, saves of others unchanged
        queued["connected"] = False
    return queued


def _world_data(world: Host, root: str | os.PathLike[str] | None) -> dict[str, Any]:
    if world.ticking:
        raise SaveError("a world can only be saved between ticks")
    with world.esper_context():
        live = entities_of_host(world)
        modules = class_names([type(entity) for entity in live])
        entities = [_entity_record(entity, modules[type(entity)]) for entity in live]
    queues = [_queued(queue) for queue in players_of(world).queues]
    # Player 0's is "input", as in a save of one player; the others' only when there are others.
    players = {} if world.players == 1 else {"players": world.players, "inputs": queues[1:]}
    version, internal, gauss = world.random.getstate()
    return {
        "format": FORMAT,
        "version": VERSION,
        "engine": __version__,
        "world": {
            "tick_count": world.tick_count,
            "seed": encode(world.seed, "World.seed"),
            "random": [version, list(internal), encode(gauss, "world.random")],
            "last_id": world.last_id,
            "input": queues[0],
            **players,
            **_music(world, root),
        },
        "entities": entities,
    }


def save_text(world: Host, meta: dict[str, Any] | None = None, *, where: str = "a save",
              root: str | os.PathLike[str] | None = None) -> str:
    """``world`` as the text of a save file, checked as ``save_world`` checks it; any problem raises ``SaveError``.

    What a network session sends a late joiner (``engine.net``) and a recording that starts
    from a save holds: the same document as a file, so it is read back by the same checks.
    ``where`` names the destination in a message; ``root``, the game's directory (``Game.root``):
    music under it is named relative to it, so the save loads with a copy of the game elsewhere.
    """
    try:
        data = _world_data(world, root)
        data["meta"] = encode(dict(meta or {}), "meta")["$dict"]
        _check_written(world, data)
        text = json.dumps(data, separators=(",", ":"), allow_nan=False)
        if len(text) > MAX_SAVE_BYTES:
            raise SaveError(f"the save would be {len(text):,} bytes, more than a save may be ({MAX_SAVE_BYTES:,})")
    except SaveError:
        raise
    except (NotSaveable, ClassNameClash) as error:
        raise SaveError(str(error)) from None
    except (TypeError, ValueError, RecursionError) as error:
        raise SaveError(f"cannot save the world to {where}: {type(error).__name__}: {error}") from None
    return text


def save_world(world: Host, path: str | os.PathLike[str], meta: dict[str, Any] | None = None, *,
               root: str | os.PathLike[str] | None = None) -> None:
    """Write ``world`` to ``path`` atomically (see the module docstring); any problem raises ``SaveError``.

    ``meta`` is stored as it is (the command line records the game's name and digest there);
    ``root`` is the game's directory, as ``save_text`` takes it.
    """
    text = save_text(world, meta, where=shown_name(path), root=root)
    try:
        with AtomicFile(path) as output:
            output.open("w").write(text)
            output.commit()
    except OutputError as error:
        raise SaveError(f"cannot write the save: {error}") from None
    except OSError as error:
        raise SaveError(f"cannot write the save {shown_name(path)}: {error.strerror or error}") from None


def _check_written(world: Host, data: dict[str, Any]) -> None:
    """Run the reader's own checks on what is about to be written: what it would refuse is refused now, by name.

    Classes resolve to the very classes of the world's entities (a game's classes are
    otherwise resolved against the game, which the writer is not given).
    """
    classes = entity_classes()
    for record, entity in zip(data["entities"], entities_of_host(world)):
        classes[record["class"]] = type(entity)
    try:
        check_document(data)
        check_world(data, None, classes, writing=True)
    except FieldError as error:
        raise SaveError(f"cannot save the world: {error}; a save that could not be read back is not written") from None

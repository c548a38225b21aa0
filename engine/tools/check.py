"""Order independence, checked: run a game in many update orders and compare every tick.

The Double Buffer's promise is that the outcome of a tick does not depend on the order
in which entities update. ``check_order_independence(build)`` tests it the way Game
Programming Patterns' sample runs one stage in two orders, only harder: it builds one
*reference* world (spawn order, as the engine always runs it) and ``orders`` more whose
update order is reshuffled before *every* tick (a fixed shuffle would only try one
order per entity pair; reshuffling tries a new one each tick, and puts entities spawned
mid-run anywhere, not just at the end). All worlds get the same input, tick in
lockstep, and their ``snapshot()`` is compared after each tick. The first tick at which
a world differs from the reference is reported with the entities (class and id) and the
fields that differ, both values side by side.

Entities are matched by ``id``. Ids come from spawn order, so when two entities spawn
in the same tick from two different ``update()`` calls, which one gets the lower id
depends on update order: that *is* an order dependence (ids are saved, hashed and
decide the update order of the newcomers), and the check reports it, saying when the
entities are otherwise the same so the cause is plain. Spawn from one entity (a
spawner, a system) when the ids must not depend on order.

Systems get the same treatment. esper runs systems of one priority in the order they
were added, and nothing else says that order is meant (Bevy calls such pairs
ambiguities): in every shuffled world, the systems that share a priority are permuted
before every tick too (the engine's own Update Method system keeps its place). The
report names the systems it permuted and, when a world differs, the order its systems
ran in at that tick beside the order they were added in.

``tickswap check GAME`` runs this from the command line; ``engine.testing`` offers it
as ``assert_order_independent`` for pytest.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.ecs import EsperWorld
from engine.errors import located
from engine.files.game import Game
from engine.state.differences import EntityDifference, compare_snapshots, difference_lines, in_entities
from engine.tools.causes import random_drawers, repeats
from engine.tools.inputs import DEFAULT_KEYS, Inputs, events_for, random_input, setup_of, whole_numbers
from engine.world import World, esper_of, signal_senders

__all__ = ["DEFAULT_KEYS", "STATE_ADVICE", "STATE_HINT", "CheckResult", "EntityDifference", "Inputs",
           "check_order_independence", "check_report", "difference_report", "events_for", "random_input",
           "with_players"]

STATE_ADVICE = ("keep game state in buffered fields, list a plain attribute that is state in its class's `saved`, "
                "and use no module-level variables, id(), time or set order")
"""What to do about state outside the world: said when the same update order, run twice, differs."""
STATE_HINT = "state the checkpoint does not keep changed the re-simulation: " + STATE_ADVICE
"""The rollback check's hint (``engine.tools.rollback.HINT``): the cause, then ``STATE_ADVICE``."""


@dataclass
class CheckResult:
    """What ``check_order_independence`` found. ``ok`` is true when every order agreed."""

    ticks: int
    """Ticks run (up to and including the first differing one)."""
    orders: int
    tick: int | None = None
    """The first tick after which a shuffled world differed (None if none did)."""
    order: int | None = None
    """Which shuffled order (0-based; its shuffles are seeded with ``"{seed}:{order}"``) differed first."""
    differences: list[EntityDifference] = field(default_factory=list)
    note: str = ""
    """What else differed, or why the check stopped (a crash, a permutation of ids)."""
    systems: tuple[str, ...] = ()
    """The systems that share a priority, which were permuted: ``"Gravity, Drag at priority 0"``."""
    system_order: str = ""
    """How the differing world ran those systems at the differing tick (empty if in the order added)."""
    players: int = 1
    """How many players each world had, each with input of its own."""
    unrepeatable: bool = False
    """Spawn order run again from the start differed from spawn order at that tick: the cause is not update order."""
    drawers: tuple[str, ...] = ()
    """The entities that drew from ``world.random`` in their ``update()`` at that tick (spawn order): a cause."""
    crashed: bool = False
    """The game raised at that tick in every order: nothing about order to report, only the failure."""
    senders: tuple[str, ...] = ()
    """For each differing signal, who sent it at that tick (spawn order's world): ``"Tally (id 1)'s signal calls
    was sent at tick 4 by Caller (id 2) and Caller (id 3)"``. The receiver only shows what it got; what a sender
    sent is where the update order came in."""

    @property
    def ok(self) -> bool:
        """Whether every order agreed on every tick."""
        return self.tick is None and not self.note

    def describe(self) -> str:
        """The report: one line when all agree, else the tick, the order, and one line per entity."""
        permuted = f"; systems permuted: {'; '.join(self.systems)}" if self.systems else ""
        orders = "1 shuffled order" if self.orders == 1 else f"{self.orders} shuffled orders"
        return check_report(self, f"order independent: {orders} agreed with spawn order for {self.ticks} ticks"
                            + with_players(self.players) + permuted,
                            f"order dependent: after tick {self.tick}, shuffled order {self.order} differs "
                            "from spawn order", *self._causes())

    def _causes(self) -> list[str]:
        """What the report says after the entities: the note, the systems' order, the senders, the draws."""
        causes = [self.note, self.system_order]
        causes.extend(f"{line}: what it sends depends on the update order (a value read from another entity's "
                      "plain state, or from state outside the world)" for line in self.senders)
        if self.drawers:
            more = len(self.drawers) - 3
            named = ", ".join(self.drawers[:3]) + (f" and {more} more" if more > 0 else "")
            causes.append(f"{named} drew from world.random in update() at tick {self.tick}: its draws follow the "
                          "update order; an entity draws from its own self.random")
        if self.unrepeatable:
            causes.append(f"spawn order run again from the start differs at tick {self.tick} too: the cause is not "
                          "update order but state outside the world (a module-level variable, the time, a value "
                          "Python seeds per process)")
            causes.append(STATE_ADVICE)
        return causes


def difference_report(headline: str, differences: Sequence[EntityDifference], *notes: str) -> str:
    """A check's report of a difference: ``headline`` naming the entities, one line per entity, then each note.

    Every check (update orders, rollback, save and load, hash seeds) reports this way, so a
    difference reads alike whichever check found it; empty notes are left out.
    """
    lines = [headline + in_entities(differences), *difference_lines(differences)]
    lines.extend("  " + note for note in notes if note)
    return "\n".join(lines)


class _Finding(Protocol):
    """What every check's result holds: the first differing tick (None if none did), a note, the differences."""

    tick: int | None
    note: str
    differences: list[EntityDifference]


def check_report(result: _Finding, agreed: str, headline: str, *notes: str) -> str:
    """A check result's ``describe()``: ``agreed`` when it found nothing, its note alone when it stopped before
    any tick differed (a crash, a refusal), else ``difference_report(headline, ...)`` with ``notes``.

    One function so that the four checks' results (order, rollback, save and load, hash seeds)
    decide alike what to report; each record keeps its own fields and signature.
    """
    if result.tick is None:
        return result.note or agreed
    return difference_report(headline, result.differences, *notes)


def check_order_independence(build: Callable[[World], Any] | Game, *, ticks: int = 300, orders: int = 4,
                             seed: int = 0, inputs: Inputs | str | Sequence[Inputs] = "random",
                             systems: Callable[[World], Any] | None = None,
                             players: int | None = None) -> CheckResult:
    """Run ``build``'s game in spawn order and ``orders`` reshuffled orders; compare every tick.

    ``build(world)`` sets up the game (a game module's ``build``), then ``systems(world)``
    adds its systems, when the game has them (as ``tickswap run`` does). Every world is a
    ``World(seed=seed, players=players)``. ``inputs`` is ``"random"`` (the default: every
    player its own ``random_input(seed, player=p)``), ``None``, or scripted input (see
    ``Inputs``: one per player in a list); every world gets the same events. ``build`` may be
    a ``Game`` (``load_game``); a game's setup runs with the fewest ``players`` it takes unless
    told (see ``engine.tools.inputs.setup_of``). Returns a ``CheckResult``; nothing is
    raised for an order dependence. A game whose tick fails stops the check, with the
    failure in ``note``.
    """
    whole_numbers(ticks=ticks, orders=orders)
    setup = setup_of(build, systems, players, inputs, seed)
    with contextlib.ExitStack() as stack:
        worlds: list[World] = []
        permuters: list[_SystemPermuter] = []
        for _ in range(orders + 1):
            world = stack.enter_context(World(seed=seed, players=setup.players))
            permuters.append(_SystemPermuter(world))  # before build: it tells the engine's own systems apart
            worlds.append(setup.start(world))
        shufflers = [random.Random(f"{seed}:{order}") for order in range(orders)]
        # Their own generators: the entity shuffles are those of a game without systems.
        system_shufflers = [random.Random(f"{seed}:{order}:systems") for order in range(orders)]
        permuted: tuple[str, ...] = ()
        for tick in range(1, ticks + 1):
            events = setup.events_at(tick)
            outcomes: list[str | None] = []
            for index, world in enumerate(worlds):
                if index:
                    world.shuffle_order(shufflers[index - 1])
                    permuters[index].permute(system_shufflers[index - 1])
                else:
                    permuted = _union(permuted, permuters[0].groups())
                setup.feed(world, events)
                try:
                    world.tick()
                    outcomes.append(None)
                except Exception as error:
                    outcomes.append(located(error))
            if any(outcomes):
                return _with_systems(_failed(tick, orders, outcomes), permuted, permuters, setup.players)
            reference = worlds[0].snapshot()
            for order, world in enumerate(worlds[1:]):
                differences = compare_snapshots(reference, world.snapshot())
                note = ""
                if not differences and world.random.getstate() != worlds[0].random.getstate():
                    note = "world.random was drawn a different number of times"
                if differences or note:
                    found = CheckResult(tick, orders, tick, order, differences, note)
                    found.unrepeatable = not repeats(setup, seed, tick, reference)
                    found.drawers = random_drawers(setup, seed, tick)
                    found.senders = _signal_senders(worlds[0], differences, tick)
                    return _with_systems(found, permuted, permuters, setup.players)
    return CheckResult(ticks, orders, systems=permuted, players=setup.players)


class _SystemPermuter:
    """Permutes a world's systems of equal priority; the processors the engine itself adds keep their places."""

    def __init__(self, world: World) -> None:
        # A world's own esper world: the one module that touches esper (engine.ecs) reorders it.
        self._ecs: EsperWorld = esper_of(world)
        self._engine_own = self._ecs.processors()  # before build(world): the Update Method system
        self.ran_as = ""
        """The permuted groups as they ran in the latest permuted tick: ``"Drag, Gravity (added as ...)"``."""

    def _user_groups(self) -> dict[int, list[Any]]:
        groups: dict[int, list[Any]] = {}
        for processor in self._ecs.processors():
            if not any(processor is own for own in self._engine_own):
                groups.setdefault(processor.priority, []).append(processor)
        return {priority: members for priority, members in groups.items() if len(members) > 1}

    def groups(self) -> tuple[str, ...]:
        """Each group of systems sharing a priority, in the order they were added."""
        return tuple(f"{_names(members)} at priority {priority}" for priority, members in self._user_groups().items())

    def permute(self, rng: random.Random) -> None:
        """Shuffle each group within the slots it holds; remember how they will run."""
        groups = self._user_groups()
        if not groups:
            return
        shuffled = {priority: rng.sample(members, len(members)) for priority, members in groups.items()}
        order, taken = [], {priority: iter(members) for priority, members in shuffled.items()}
        for processor in self._ecs.processors():
            members = groups.get(processor.priority, ())
            order.append(next(taken[processor.priority]) if any(processor is m for m in members) else processor)
        self._ecs.reorder(order)
        self.ran_as = "; ".join(
            f"systems at priority {priority} ran as {_names(shuffled[priority])} (added as {_names(members)})"
            for priority, members in groups.items() if shuffled[priority] != members)


def with_players(players: int) -> str:
    """`` with 2 players`` for a check of several players; nothing for one, as before players existed."""
    return f" with {players} players" if players > 1 else ""


def _names(systems: Sequence[Any]) -> str:
    return ", ".join(type(system).__name__ for system in systems)


def _union(seen: tuple[str, ...], groups: tuple[str, ...]) -> tuple[str, ...]:
    return seen + tuple(group for group in groups if group not in seen)


def _with_systems(result: CheckResult, permuted: tuple[str, ...], permuters: list[_SystemPermuter],
                  players: int) -> CheckResult:
    """The result, naming the permuted systems and how the differing world ran them at the differing tick."""
    result.systems, result.players = permuted, players
    if result.order is not None:
        result.system_order = permuters[result.order + 1].ran_as
    return result


def _signal_senders(world: World, differences: list[EntityDifference], tick: int) -> tuple[str, ...]:
    """Who sent each signal that differs, as ``world`` (spawn order's) recorded them in ``tick``."""
    found = []
    for difference in differences:
        signals = next(((a, b) for name, a, b in difference.fields if name == "signals"), None)
        receiver = next((entity for entity in world.entities if entity.id == difference.id), None)
        if signals is None or receiver is None:
            continue
        ours, theirs = (value if isinstance(value, dict) else {} for value in signals)
        senders = signal_senders(world, receiver) or {}
        for name in sorted(set(ours) | set(theirs)):
            if ours.get(name) == theirs.get(name) or not senders.get(name):
                continue
            named = [_entity_name(world, sender) for sender in dict.fromkeys(senders[name])]
            who = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}"
            found.append(f"{difference.kind} (id {difference.id})'s signal {name} was sent at tick {tick} by {who}")
    return tuple(found)


def _entity_name(world: World, entity_id: int) -> str:
    if entity_id < 0:
        return "a system or build (outside any update)"
    entity = next((each for each in world.entities if each.id == entity_id), None)
    return f"{type(entity).__name__} (id {entity_id})" if entity is not None else f"id {entity_id} (despawned)"


def _failed(tick: int, orders: int, outcomes: list[str | None]) -> CheckResult:
    reference = outcomes[0]
    if all(outcome == reference for outcome in outcomes):
        return CheckResult(tick, orders, note=f"the game failed at tick {tick} in every order: {reference}",
                           crashed=True)
    if all(outcomes):
        # Which entity fails first depends on the order; that the tick fails does not.
        return CheckResult(tick, orders, note=f"the game failed at tick {tick} in every order (in spawn order: "
                                              f"{reference})", crashed=True)
    order = next(index for index, outcome in enumerate(outcomes[1:]) if outcome != reference)
    shuffled = outcomes[order + 1]
    what = (f"spawn order failed ({reference}) and shuffled order {order} did not" if shuffled is None
            else f"shuffled order {order} failed: {shuffled}" + (f" (spawn order: {reference})" if reference else ""))
    return CheckResult(tick, orders, tick, order, note=what)

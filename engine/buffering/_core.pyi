"""The compiled core of the Double Buffer (built from ``_core.c``; see ``engine.buffering.buffers``)."""

from collections.abc import Iterator, Sequence
from typing import Any

from engine.buffering.slots import BufferSlots

def configure(cls: type, /) -> None:
    """Read the slot offsets of the class that declares the buffer slots (``BufferSlots``)."""

def commit(moved: list[BufferSlots], tick: int | None, /) -> None:
    """The pending x, y, angle of the moved entities committed (previous values recorded unless ``tick`` is None)."""

def record_previous(moved: list[BufferSlots], tick: int, /) -> None:
    """The baseline of the moved entities becomes their previous values."""

def keep(
    entities: list[BufferSlots], no_signals: dict[str, Any], /
) -> tuple[tuple[Any, ...], list[int], tuple[Any, ...], list[type] | None]:
    """For a checkpoint: every entity's kept slots row after row, the indices of those holding more than the
    defaults, their other slots, the entities' classes (or ``None``)."""

def changed_classes(entities: list[BufferSlots], rows: tuple[Any, ...], /) -> list[int]:
    """The indices of the entities whose class is not the one ``keep`` kept for them in ``rows``."""

def put_back(
    entities: list[BufferSlots], rows: tuple[Any, ...], odd: list[int], extras: tuple[Any, ...],
    no_signals: dict[str, Any], /
) -> list[BufferSlots]:
    """A rollback: every entity holds what ``keep`` kept of it again; returns those with committed signals."""

def gather_motion(
    entities: Sequence[BufferSlots], tick: int, alpha: float, out: Any, extrapolate: bool = False
) -> None:
    """Write every entity's interpolated ``(x, y, angle)`` into the float32 buffer ``out``."""

def random_snapshot(generator: Any, /) -> bytes:
    """A ``random.Random``'s Mersenne Twister state, copied into bytes (its ``gauss_next`` is the caller's)."""

def random_restore(generator: Any, snapshot: bytes, /) -> None:
    """Put back what ``random_snapshot`` copied."""

def commit_shown(settled: list[BufferSlots], written: list[Any] | None, /) -> None:
    """The looks and parts the settled entities set become committed, their values before kept in ``written``."""

class TickState:
    """What the write barrier asks of a world's Double Buffer (``engine.buffering.slots.TickState``, in C)."""

    updating: Any
    token: object
    written: list[tuple[Any, tuple[Any, ...]]]
    refuse: Any
    refused: BaseException | None
    tick: int
    ticking: bool
    def __init__(self, refuse: Any) -> None: ...

def init_entity(entity: BufferSlots, motion_only: bool, no_signals: dict[str, Any], /) -> bool:
    """A new entity's bookkeeping slots, as ``engine.buffering.buffers.init_entity`` stores them; returns whether
    its ``_blook`` slot was set before."""

def group_signals(
    receivers: list[Any], names: list[Any], values: list[Any], ranked: list[int] | int, /
) -> dict[Any, dict[Any, list[Any]]]:
    """The contributions at ``ranked``'s indices (an int n: ``range(n)``) of receivers still alive, grouped by
    receiver, then name (``SignalBuffers.combine_signals``)."""

def fill_missing(entity: Any, pairs: tuple[tuple[str, Any], ...], /) -> None:
    """``setattr(entity, name, default)`` for each pair whose name ``hasattr`` says ``entity`` lacks, in order."""

class SignalSink:
    """``SignalBuffers.raise_signal`` in C: appends one contribution to the four lists, its sender the state's
    updating entity (what a compiled world's ``TickState.signals`` is)."""

    def __init__(
        self, state: TickState, receivers: list[Any], names: list[str], senders: list[int], values: list[Any]
    ) -> None: ...
    def __call__(self, receiver: Any, name: str, value: Any) -> None: ...

def ascending(senders: list[Any], /) -> bool | None:
    """``all(map(operator.le, senders, senders[1:]))`` for a list of ints; ``None`` where an item is not an int."""

class SignalField:
    """The base of ``fields.signal`` where the core runs: ``fields._PureSignalField.__get__`` in C."""

    combine: Any
    name: str
    def __get__(self, instance: Any, owner: type | None = None) -> Any: ...

class SignalInboxBase:
    """The base of ``fields.SignalInbox`` where the core runs: ``fields._PureInbox`` with its ``send`` in C."""

    _entity: Any
    _signal: Any
    _name: str
    def __init__(self, entity: Any, declared: Any) -> None: ...
    def send(self, value: Any, /) -> None: ...

class Barrier:
    """``BufferSlots``' base type where the core runs: its ``tp_setattro`` is the write barrier."""

class Settler(Iterator[BufferSlots]):
    """Iterate over the live entities of ``order`` for their updates (``state.updating`` names each),
    settling each one that wrote after it."""

    current: BufferSlots | None
    def __init__(
        self, order: list[BufferSlots], moved: list[BufferSlots], changed: list[BufferSlots], state: TickState,
        shown: list[BufferSlots],
    ) -> None: ...
    def __iter__(self) -> Settler: ...
    def __next__(self) -> BufferSlots: ...
    def close(self) -> None:
        """Hand out nothing more (an update raised); ``current`` still names the entity."""

class ShownField:
    """The compiled hot paths of a shown field's descriptor (``engine.buffering.shown.Shown``'s base)."""

    def bind(
        self, slot: str, class_attribute: str, check: Any, plain: type | None, empty: Any, hidden: Any, follow: Any, /,
    ) -> None:
        """Say which slot the field is over and the markers it compares with."""
    def __get__(self, entity: Any, owner: type | None = None) -> Any: ...
    def __set__(self, entity: Any, value: Any) -> None: ...
    def __delete__(self, entity: Any) -> None: ...

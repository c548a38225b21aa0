"""Sound effects from a few numbers or a seed, in the manner of sfxr: jumps, coins, hits, lasers.

sfxr (Tomas Pettersson's, and its offspring bfxr, jsfxr, pyxel's editor) is how jams make
sounds: one oscillator (square, sawtooth, triangle, sine or noise), a pitch that slides,
an envelope of attack, sustain (with a punch) and decay, a vibrato and one arpeggio jump;
and a button that rolls a new "coin" or "explosion" at random. ``Sfx`` holds those few
numbers; ``Sfx.preset("coin", seed=3)`` rolls one from a seed, so a sound is named by two
values in the game's script and the file is rebuilt from them::

    from engine.art import Sfx
    Sfx.preset("jump", seed=1).save("jump.wav")
    Sfx(wave="square", frequency=880, slide=-1.0, sustain=0.05, decay=0.1).save("blip.wav")

Same bytes every run, on every machine: the synthesis uses only additions, multiplications
and divisions (correctly rounded everywhere), the engine's portable sine and power of two
(``engine.portable``) instead of the C library's, and Python's Mersenne Twister for noise;
samples are written as 16-bit WAV at ``RATE`` through the standard library's ``wave``.
"""

from __future__ import annotations

import io
import math
import os
import random
import struct
import wave
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace

from engine.disk.atomic import AtomicFile
from engine.messages import shown
from engine.portable import exp2, sin

__all__ = ["PRESETS", "RATE", "WAVES", "Sfx", "mix", "note", "silence", "wav_bytes", "write_wav"]

RATE = 22050
"""Samples a second: enough for chiptune sounds, half the size of CD rate."""

WAVES = ("square", "sawtooth", "triangle", "sine", "noise")
"""The oscillator's shapes, as sfxr names them."""

PRESETS = ("blip", "coin", "explosion", "hit", "jump", "laser", "powerup")
"""The kinds ``Sfx.preset`` rolls, sfxr's buttons."""

_PRESET_ROLLS: dict[str, tuple[str | tuple[str, ...] | None, dict[str, tuple[float, float]]]] = {
    "coin": (None, {"frequency": (700, 1300), "duty": (0.2, 0.5), "sustain": (0.02, 0.08), "punch": (0.3, 0.6),
                    "decay": (0.1, 0.3), "arpeggio": (1.25, 1.6), "arpeggio_at": (0.03, 0.08)}),
    "laser": (("square", "sawtooth", "sine"), {"frequency": (800, 2000), "slide": (-8.0, -3.0), "duty": (0.1, 0.5),
                                              "sustain": (0.05, 0.15), "decay": (0.05, 0.2)}),
    "explosion": ("noise", {"frequency": (60, 300), "slide": (-1.5, 0.0), "sustain": (0.1, 0.3), "punch": (0.3, 0.8),
                            "decay": (0.3, 0.7)}),
    "powerup": (None, {"frequency": (300, 600), "slide": (0.5, 2.0), "duty": (0.2, 0.5), "sustain": (0.1, 0.3),
                       "decay": (0.1, 0.3), "vibrato_depth": (0.0, 0.1), "vibrato_speed": (5.0, 15.0)}),
    "hit": (("square", "sawtooth", "noise"), {"frequency": (100, 500), "slide": (-4.0, -1.0), "duty": (0.2, 0.5),
                                             "sustain": (0.01, 0.05), "decay": (0.05, 0.2)}),
    "jump": ("square", {"frequency": (250, 500), "slide": (1.0, 3.0), "duty": (0.2, 0.5), "sustain": (0.05, 0.15),
                        "decay": (0.05, 0.2)}),
    "blip": (None, {"frequency": (600, 1500), "duty": (0.2, 0.5), "sustain": (0.02, 0.06), "decay": (0.01, 0.05)}),
}
"""Each preset's wave (a name; ``None``: square or sawtooth, rolled for every kind; a tuple: one rolled from it) and
the range each field is rolled from, in the order rolled (sfxr's buttons: a coin rises, a laser falls...)."""

_LONGEST = 10.0
"""The longest sound, in seconds: an effect, not a song, and a bound on the work."""
_TWO_PI = 6.283185307179586


def note(name: str) -> float:
    """The frequency of a note such as ``"A4"``, ``"C#5"`` or ``"Eb3"`` in Hz (equal temperament, A4 = 440)."""
    steps_of = {"C": -9, "D": -7, "E": -5, "F": -4, "G": -2, "A": 0, "B": 2}
    if not isinstance(name, str) or len(name) < 2 or name[0] not in steps_of:
        raise ValueError(f"a note is a letter A-G, an optional # or b and an octave, such as 'C#5'; got {shown(name)}")
    steps, rest = steps_of[name[0]], name[1:]
    if rest[0] in "#b":
        steps += 1 if rest[0] == "#" else -1
        rest = rest[1:]
    if not (rest.isdigit() and len(rest) == 1):
        raise ValueError(f"a note's octave is one digit 0-9, as in 'C#5'; got {shown(name)}")
    return 440.0 * exp2((steps + 12 * (int(rest) - 4)) / 12)


@dataclass(frozen=True)
class Sfx:
    """One sound effect as sfxr describes it; ``samples()``, ``wav()`` and ``save(path)`` make it.

    - ``wave``: one of ``WAVES``; ``frequency``: the starting pitch in Hz;
      ``slide``: the pitch's change in octaves a second (negative falls: a laser, a drop);
    - ``duty``: the share of a square wave's cycle spent high (0.5 is hollow, 0.125 thin);
    - the envelope in seconds: ``attack`` (rise), ``sustain`` (hold), ``decay`` (fade to
      silence); ``punch`` (0-1) starts the hold that much louder, easing back;
    - ``vibrato_depth`` (a share of the pitch) at ``vibrato_speed`` Hz;
    - ``arpeggio``: at ``arpeggio_at`` seconds the pitch is multiplied by this (a coin's jump up);
    - ``volume`` (0-1); ``seed`` chooses the noise wave's randomness.
    """

    wave: str = "square"
    frequency: float = 440.0
    slide: float = 0.0
    duty: float = 0.5
    attack: float = 0.0
    sustain: float = 0.1
    punch: float = 0.0
    decay: float = 0.2
    vibrato_depth: float = 0.0
    vibrato_speed: float = 0.0
    arpeggio: float = 1.0
    arpeggio_at: float = 0.0
    volume: float = 0.5
    seed: int = 0

    def __post_init__(self) -> None:
        if self.wave not in WAVES:
            raise ValueError(f"Sfx wave must be one of {', '.join(WAVES)}; got {shown(self.wave)}")
        if type(self.seed) is not int:
            raise ValueError(f"Sfx seed must be a whole number, got {shown(self.seed)}")
        limits = {"frequency": (1.0, RATE / 2), "slide": (-20.0, 20.0), "duty": (0.0, 1.0),
                  "attack": (0.0, _LONGEST), "sustain": (0.0, _LONGEST), "punch": (0.0, 1.0),
                  "decay": (0.0, _LONGEST), "vibrato_depth": (0.0, 1.0), "vibrato_speed": (0.0, 100.0),
                  "arpeggio": (0.125, 8.0), "arpeggio_at": (0.0, _LONGEST), "volume": (0.0, 1.0)}
        for name, (low, high) in limits.items():
            value = getattr(self, name)
            if type(value) not in (int, float) or not (math.isfinite(value) and low <= value <= high):
                raise ValueError(f"Sfx {name} must be a number from {low:g} to {high:g}, got {shown(value)}")
        if self.seconds > _LONGEST:
            raise ValueError(f"an Sfx lasts at most {_LONGEST:g} s (attack + sustain + decay), "
                             f"got {self.seconds:g} s")
        if self.seconds * RATE < 1:
            raise ValueError("an Sfx must last at least one sample: give it a sustain or a decay")

    @property
    def seconds(self) -> float:
        """How long the sound lasts: attack + sustain + decay."""
        return float(self.attack) + float(self.sustain) + float(self.decay)

    @classmethod
    def preset(cls, kind: str, seed: int = 0) -> Sfx:
        """A sound of ``kind`` (one of ``PRESETS``: ``"coin"``, ``"jump"``...) rolled from ``seed``.

        sfxr's generator buttons: each kind keeps its character (a coin rises, a laser falls,
        an explosion is noise) and the seed varies the rest. The same kind and seed give
        the same sound everywhere.
        """
        if kind not in PRESETS:
            raise ValueError(f"Sfx.preset kind must be one of {', '.join(PRESETS)}; got {shown(kind)}")
        if type(seed) is not int:
            raise ValueError(f"Sfx.preset seed must be a whole number, got {shown(seed)}")
        roll = random.Random(seed * len(PRESETS) + PRESETS.index(kind))

        def between(low: float, high: float) -> float:
            return round(roll.uniform(low, high), 4)  # four digits: a preset reads back as short numbers

        squareish = ("square", "sawtooth")[roll.randrange(2)]
        wave, ranges = _PRESET_ROLLS[kind]
        # Drawn in the table's order (the wave first where it is rolled): the same seed gives the same sound.
        chosen = squareish if wave is None else wave if isinstance(wave, str) else wave[roll.randrange(len(wave))]
        return cls(wave=chosen, **{name: between(low, high) for name, (low, high) in ranges.items()}, seed=seed)

    def but(self, **changes: object) -> Sfx:
        """A copy with some numbers changed (``Sfx.preset("coin").but(volume=0.3)``), checked like a new one."""
        names = {field.name for field in fields(self)}
        for name in changes:
            if name not in names:
                raise TypeError(f"Sfx has no {name!r}; its numbers are {', '.join(sorted(names))}")
        return replace(self, **changes)  # type: ignore[arg-type]

    def samples(self) -> list[float]:
        """The sound as samples from -1.0 to 1.0 at ``RATE`` a second."""
        attack = round(self.attack * RATE)
        sustain = round(self.sustain * RATE)
        decay = round(self.decay * RATE)
        total = attack + sustain + decay
        arpeggio_at = round(self.arpeggio_at * RATE) if self.arpeggio != 1.0 and self.arpeggio_at > 0 else -1
        # The slide multiplies the pitch by the same factor every sample: one portable power of
        # two, then only multiplications, so every machine computes the same pitches.
        glide = exp2(self.slide / RATE)
        frequency = float(self.frequency)
        vibrato_step = self.vibrato_speed / RATE
        noise = random.Random(self.seed)
        level = noise.uniform(-1.0, 1.0)
        phase = vibrato_phase = 0.0
        output: list[float] = []
        for index in range(total):
            if index == arpeggio_at:
                frequency *= self.arpeggio
            pitch = frequency
            if self.vibrato_depth:
                pitch *= 1.0 + self.vibrato_depth * sin(_TWO_PI * vibrato_phase)
                vibrato_phase = (vibrato_phase + vibrato_step) % 1.0
            step = min(0.5, pitch / RATE)
            before = phase
            phase = (phase + step) % 1.0
            if self.wave == "square":
                value = 1.0 if phase < self.duty else -1.0
            elif self.wave == "sawtooth":
                value = 2.0 * phase - 1.0
            elif self.wave == "triangle":
                value = 4.0 * abs(phase - 0.5) - 1.0
            elif self.wave == "sine":
                value = sin(_TWO_PI * phase)
            else:  # noise: a new random level every half cycle, so its pitch follows the frequency
                if (before < 0.5) != (phase < 0.5):
                    level = noise.uniform(-1.0, 1.0)
                value = level
            if index < attack:
                envelope = index / attack
            elif index < attack + sustain:
                envelope = 1.0 + self.punch * (1.0 - (index - attack) / sustain)
            else:
                envelope = 1.0 - (index - attack - sustain) / decay
            output.append(value * envelope * self.volume)
            frequency = min(RATE / 2, frequency * glide)
        return output

    def wav(self) -> bytes:
        """The sound as a WAV file's bytes (16-bit mono at ``RATE``)."""
        return wav_bytes(self.samples())

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the sound as a WAV file, atomically, for ``world.play(path)``."""
        write_wav(path, self.samples())


def silence(seconds: float) -> list[float]:
    """``seconds`` of silence: a gap between the notes of a jingle."""
    if type(seconds) not in (int, float) or not 0 <= seconds <= _LONGEST:
        raise ValueError(f"silence lasts 0 to {_LONGEST:g} seconds, got {shown(seconds)}")
    return [0.0] * round(seconds * RATE)


def mix(*tracks: Iterable[float]) -> list[float]:
    """Tracks added sample by sample (the longest sets the length); a jingle is tracks joined with ``+``."""
    lists = [list(track) for track in tracks]
    length = max((len(track) for track in lists), default=0)
    return [sum(track[index] for track in lists if index < len(track)) for index in range(length)]


def wav_bytes(samples: Sequence[float]) -> bytes:
    """Samples (-1.0 to 1.0, louder ones clipped) as a 16-bit mono WAV file's bytes at ``RATE``."""
    frames = struct.pack(f"<{len(samples)}h", *(round(32767 * max(-1.0, min(1.0, value))) for value in samples))
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(frames)
    return buffer.getvalue()


def write_wav(path: str | os.PathLike[str], samples: Sequence[float]) -> None:
    """Write samples as a WAV file (``wav_bytes``), atomically: whole or not at all."""
    data = wav_bytes(samples)
    with AtomicFile(path, suffix=".wav") as output:
        output.open("wb").write(data)
        output.commit()

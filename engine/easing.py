"""Easing functions: how a tween moves from its start to its end, as a function of time.

Each is a pure function of ``t`` in [0, 1] (the share of the tween's ticks done) to the
share of the way travelled: 0 at ``t = 0`` and exactly 1 at ``t = 1``. Between, ``back``
and ``elastic`` overshoot (below 0 or above 1) and ``bounce`` touches 1 several times.
The names are the usual ones (easings.net, Robert Penner's equations): ``ease_in_*``
starts slowly, ``ease_out_*`` ends slowly, ``ease_in_out_*`` does both.

They are bit-identical on every machine: the polynomials use only IEEE operations, and
the sine and power of two in ``sine`` and ``elastic`` come from ``engine.portable``, not
from the C library (whose last bit differs between platforms). A tween's values are
buffered state, so they must agree between the peers of a session.

A tween stores its easing by name (a save holds data, never a function): ``EASINGS``
maps each name to its function, and ``Tweened.tween`` accepts these functions only.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from engine.portable import PI, exp2, sin, sin_cos

__all__ = ["EASINGS", "Easing", "ease_in_back", "ease_in_bounce", "ease_in_cubic", "ease_in_elastic",
           "ease_in_out_back", "ease_in_out_bounce", "ease_in_out_cubic", "ease_in_out_elastic", "ease_in_out_quad",
           "ease_in_out_sine", "ease_in_quad", "ease_in_sine", "ease_out_back", "ease_out_bounce", "ease_out_cubic",
           "ease_out_elastic", "ease_out_quad", "ease_out_sine", "linear"]

Easing = Callable[[float], float]
"""An easing function: the share of the time done (0 to 1) to the share of the way travelled."""

_BACK = 1.70158  # Penner's overshoot: about 10% past the end
_BACK_IN_OUT = _BACK * 1.525
_ELASTIC = 2.0 * PI / 3.0
_ELASTIC_IN_OUT = 2.0 * PI / 4.5
_BOUNCE = 7.5625
_BOUNCE_STEP = 2.75


def _ends_exact(curve: Easing) -> Easing:
    """``curve`` made exactly 0 at and before the start and exactly 1 at and after the end.

    Every easing keeps its ends this way (a tween must land on its end value, bit for bit),
    so the curves below are written for the open interval only.
    """

    @functools.wraps(curve)
    def eased(t: float) -> float:
        if t <= 0.0:
            return 0.0
        if t >= 1.0:
            return 1.0
        return curve(t)

    return eased


@_ends_exact
def linear(t: float) -> float:
    """Constant speed: ``t`` itself."""
    return t


@_ends_exact
def ease_in_quad(t: float) -> float:
    """Starts slowly, speeds up: ``t**2``."""
    return t * t


@_ends_exact
def ease_out_quad(t: float) -> float:
    """Starts fast, slows down to the end: the mirror of ``ease_in_quad``."""
    u = 1.0 - t
    return 1.0 - u * u


@_ends_exact
def ease_in_out_quad(t: float) -> float:
    """Slow, fast, slow: ``ease_in_quad`` for the first half, ``ease_out_quad`` for the second."""
    if t < 0.5:
        return 2.0 * t * t
    u = 2.0 - 2.0 * t
    return 1.0 - u * u / 2.0


@_ends_exact
def ease_in_cubic(t: float) -> float:
    """Starts slower than quad: ``t**3``."""
    return t * t * t


@_ends_exact
def ease_out_cubic(t: float) -> float:
    """Ends slower than quad: the mirror of ``ease_in_cubic``."""
    u = 1.0 - t
    return 1.0 - u * u * u


@_ends_exact
def ease_in_out_cubic(t: float) -> float:
    """Slow, fast, slow, more marked than quad."""
    if t < 0.5:
        return 4.0 * t * t * t
    u = 2.0 - 2.0 * t
    return 1.0 - u * u * u / 2.0


@_ends_exact
def ease_in_sine(t: float) -> float:
    """Starts slowly along a quarter of a cosine: ``1 - cos(t * pi/2)``."""
    return 1.0 - sin_cos(t * PI / 2.0)[1]


@_ends_exact
def ease_out_sine(t: float) -> float:
    """Ends slowly along a quarter of a sine: ``sin(t * pi/2)``."""
    return sin(t * PI / 2.0)


@_ends_exact
def ease_in_out_sine(t: float) -> float:
    """Gently in and out along half a cosine: ``(1 - cos(t * pi)) / 2``."""
    return (1.0 - sin_cos(t * PI)[1]) / 2.0


@_ends_exact
def ease_in_back(t: float) -> float:
    """Pulls back a little (below 0) before going: a wind-up."""
    return (_BACK + 1.0) * t * t * t - _BACK * t * t


@_ends_exact
def ease_out_back(t: float) -> float:
    """Overshoots the end a little (about 10%), then settles: a menu title sliding in."""
    u = t - 1.0
    return 1.0 + (_BACK + 1.0) * u * u * u + _BACK * u * u


@_ends_exact
def ease_in_out_back(t: float) -> float:
    """Winds up at the start and overshoots at the end."""
    if t < 0.5:
        u = 2.0 * t
        return u * u * ((_BACK_IN_OUT + 1.0) * u - _BACK_IN_OUT) / 2.0
    u = 2.0 * t - 2.0
    return (u * u * ((_BACK_IN_OUT + 1.0) * u + _BACK_IN_OUT) + 2.0) / 2.0


@_ends_exact
def ease_in_elastic(t: float) -> float:
    """Wobbles with growing swings, then snaps to the end: a spring pulled back."""
    return -exp2(10.0 * t - 10.0) * sin((10.0 * t - 10.75) * _ELASTIC)


@_ends_exact
def ease_out_elastic(t: float) -> float:
    """Shoots past the end and wobbles back with shrinking swings: a spring let go."""
    return exp2(-10.0 * t) * sin((10.0 * t - 0.75) * _ELASTIC) + 1.0


@_ends_exact
def ease_in_out_elastic(t: float) -> float:
    """Wobbles out of the start and into the end."""
    wave = sin((20.0 * t - 11.125) * _ELASTIC_IN_OUT)
    if t < 0.5:
        return -(exp2(20.0 * t - 10.0) * wave) / 2.0
    return exp2(-20.0 * t + 10.0) * wave / 2.0 + 1.0


@_ends_exact
def ease_out_bounce(t: float) -> float:
    """Falls to the end and bounces on it three times, each bounce smaller: a dropped ball."""
    if t < 1.0 / _BOUNCE_STEP:
        return _BOUNCE * t * t
    if t < 2.0 / _BOUNCE_STEP:
        u = t - 1.5 / _BOUNCE_STEP
        return _BOUNCE * u * u + 0.75
    if t < 2.5 / _BOUNCE_STEP:
        u = t - 2.25 / _BOUNCE_STEP
        return _BOUNCE * u * u + 0.9375
    u = t - 2.625 / _BOUNCE_STEP
    return _BOUNCE * u * u + 0.984375


@_ends_exact
def ease_in_bounce(t: float) -> float:
    """Bounces off the start, each bounce higher, then goes: ``ease_out_bounce`` played backwards."""
    return 1.0 - ease_out_bounce(1.0 - t)


@_ends_exact
def ease_in_out_bounce(t: float) -> float:
    """Bounces off the start and onto the end."""
    if t < 0.5:
        return (1.0 - ease_out_bounce(1.0 - 2.0 * t)) / 2.0
    return (1.0 + ease_out_bounce(2.0 * t - 1.0)) / 2.0


EASINGS: dict[str, Easing] = {function.__name__: function for function in (
    linear, ease_in_quad, ease_out_quad, ease_in_out_quad, ease_in_cubic, ease_out_cubic, ease_in_out_cubic,
    ease_in_sine, ease_out_sine, ease_in_out_sine, ease_in_back, ease_out_back, ease_in_out_back,
    ease_in_elastic, ease_out_elastic, ease_in_out_elastic, ease_in_bounce, ease_out_bounce, ease_in_out_bounce)}
"""Every easing function by its name: what a tween stores, and what ``Tweened.tween`` accepts."""

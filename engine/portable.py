"""Portable math: sine, cosine, arctangent and powers of two that give the same bits on every machine.

Game state must come out bit-identical on every peer of a session and in every replay.
Addition, subtraction, multiplication, division and square root are IEEE 754 operations,
correctly rounded everywhere CPython and numpy run; ``math.sin``, ``math.atan2`` and
``math.pow`` are not: they call the platform's C library, and glibc, macOS and Windows
may differ in the last bit (numpy's own ``sin`` and ``cos`` also change with the CPU's
vector instructions). A tween, a particle's direction or a path's heading written into
buffered state with those could make a Linux peer and a macOS peer desync.

So the engine's own curves use only the correctly rounded operations: a Cody-Waite
reduction to within pi/4 and Taylor polynomials (coefficients converted exactly from
fractions), ``math.floor`` and ``math.ldexp`` (both exact). Accurate to a few units in the
last place, and above all the same everywhere. The array versions (``sin_cos_array``)
perform the same operations in the same order on float64 numpy arrays, so an element
comes out bit for bit as the scalar function gives it.

A game's own ``update`` may still use ``math.sin`` (the engine's samples do): the result
is the same in every run on one machine, which is all a replay or a save on that machine
needs. These functions are for state that must agree across machines too.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

__all__ = ["DEGREES", "PI", "RADIANS", "atan2", "cos", "exp2", "sin", "sin_cos", "sin_cos_array"]

PI = 3.141592653589793
"""pi, the double nearest to it."""
DEGREES = 180.0 / PI
"""Radians to degrees: multiply by this."""
RADIANS = PI / 180.0
"""Degrees to radians: multiply by this."""

_TWO_OVER_PI = 2.0 / PI
# pi/2 split in two (fdlibm's pio2_1, pio2_1t): the high part has 33 significant bits, so
# k * _PIO2_HI is exact for every |k| < 2**20 and the reduction loses nothing there.
_PIO2_HI = float.fromhex("0x1.921fb54400000p+0")
_PIO2_LO = 6.07710050650619224932e-11
_LARGEST = float(2**20) * _PIO2_HI
"""Beyond this (about 1.6 million radians) the reduction is no longer exact: still deterministic, less accurate."""


def _taylor(first: int, terms: int) -> tuple[float, ...]:
    """``-(-1)**i / (first + 2*i)!`` for i in range(terms), each the double nearest the exact fraction."""
    return tuple(float(Fraction((-1) ** (i + 1), math.factorial(first + 2 * i))) for i in range(terms))


_SIN = _taylor(3, 8)   # r**3/3! ... r**17/17!: the next term is below 1e-19 for |r| <= pi/4
_COS = _taylor(2, 9)   # r**2/2! ... r**18/18!
_EXP = tuple(float(Fraction(1, math.factorial(n))) for n in range(21))  # u**n/n!, u < ln 2
_ATAN = tuple(float(Fraction((-1) ** i, 2 * i + 1)) for i in range(1, 14))  # z**3/3 ... z**27/27, z < 0.2
_LN2 = 0.6931471805599453


def _sin_kernel(r: Any, r2: Any) -> Any:
    s = _SIN
    return r + r * r2 * (s[0] + r2 * (s[1] + r2 * (s[2] + r2 * (s[3] + r2 * (s[4] + r2 * (s[5] + r2 * (
        s[6] + r2 * s[7])))))))


def _cos_kernel(r2: Any) -> Any:
    c = _COS
    return 1.0 + r2 * (c[0] + r2 * (c[1] + r2 * (c[2] + r2 * (c[3] + r2 * (c[4] + r2 * (c[5] + r2 * (
        c[6] + r2 * (c[7] + r2 * c[8]))))))))


def sin_cos(x: float) -> tuple[float, float]:
    """``(sin(x), cos(x))`` for ``x`` in radians, the same bits on every machine (see the module docstring)."""
    if not math.isfinite(x):
        return math.nan, math.nan
    k = round(x * _TWO_OVER_PI)  # round half to even, as numpy.rint
    r = (x - k * _PIO2_HI) - k * _PIO2_LO
    r2 = r * r
    s, c = _sin_kernel(r, r2), _cos_kernel(r2)
    quadrant = k % 4
    if quadrant == 0:
        return s, c
    if quadrant == 1:
        return c, -s
    if quadrant == 2:
        return -s, -c
    return -c, s


def sin(x: float) -> float:
    """The sine of ``x`` radians, the same bits on every machine."""
    return sin_cos(x)[0]


def cos(x: float) -> float:
    """The cosine of ``x`` radians, the same bits on every machine."""
    return sin_cos(x)[1]


def sin_cos_array(x: Any) -> tuple[Any, Any]:
    """``sin_cos`` of every element of a float64 numpy array: two new arrays, element for element its bits."""
    import numpy as np

    x = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore"):  # a NaN or an infinity gives NaN, as the scalar function says
        k = np.rint(x * _TWO_OVER_PI)
        r = (x - k * _PIO2_HI) - k * _PIO2_LO
        r2 = r * r
        s, c = _sin_kernel(r, r2), _cos_kernel(r2)
        quadrant = np.mod(k, 4.0)
    sines = np.select([quadrant == 0, quadrant == 1, quadrant == 2], [s, c, -s], -c)
    cosines = np.select([quadrant == 0, quadrant == 1, quadrant == 2], [c, -s, -c], s)
    bad = ~np.isfinite(x)
    if bad.any():
        sines[bad] = np.nan
        cosines[bad] = np.nan
    return sines, cosines


def exp2(x: float) -> float:
    """Two to the power ``x``, the same bits on every machine (``2.0 ** x`` calls the C library's ``pow``)."""
    if math.isnan(x):
        return math.nan
    if x >= 1024.0:
        return math.inf
    if x < -1075.0:
        return 0.0
    whole = math.floor(x)
    u = (x - whole) * _LN2  # in [0, ln 2)
    e = _EXP
    total = e[20]
    for coefficient in e[19::-1]:
        total = coefficient + u * total
    return math.ldexp(total, whole)


def _atan_unit(z: float) -> float:
    """atan(z) for z in [0, 1]: halve the angle twice (exact square roots), then a short series."""
    z = z / (1.0 + math.sqrt(1.0 + z * z))
    z = z / (1.0 + math.sqrt(1.0 + z * z))  # now z <= tan(pi/16) < 0.2
    z2 = z * z
    total = 0.0
    for coefficient in reversed(_ATAN):
        total = z2 * (coefficient + total)
    return 4.0 * (z + z * total)


def atan2(y: float, x: float) -> float:
    """The angle of the point ``(x, y)`` in radians, in (-pi, pi], the same bits on every machine.

    ``atan2(0, 0)`` is 0 (a zero vector has no heading; the engine's callers never ask).
    """
    if math.isnan(x) or math.isnan(y):
        return math.nan
    ax, ay = abs(x), abs(y)
    if ax == 0.0 and ay == 0.0:
        return 0.0
    if math.isinf(ax) and math.isinf(ay):
        angle = PI / 4
    elif math.isinf(ax) or math.isinf(ay):
        angle = 0.0 if math.isinf(ax) else PI / 2
    elif ay <= ax:
        angle = _atan_unit(ay / ax)
    else:
        angle = PI / 2 - _atan_unit(ax / ay)
    if x < 0.0:
        angle = PI - angle
    return -angle if y < 0.0 else angle

"""Easing curves and the portable math under them: exact ends, the textbook shapes, the same bits everywhere."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from engine import easing, portable
from engine.easing import EASINGS

_C1 = 1.70158
_C2 = _C1 * 1.525


def _bounce(x: float) -> float:
    if x < 1 / 2.75:
        return 7.5625 * x * x
    if x < 2 / 2.75:
        x -= 1.5 / 2.75
        return 7.5625 * x * x + 0.75
    if x < 2.5 / 2.75:
        x -= 2.25 / 2.75
        return 7.5625 * x * x + 0.9375
    x -= 2.625 / 2.75
    return 7.5625 * x * x + 0.984375


# The equations as easings.net writes them, with the C library's sin, cos and pow: the
# engine's must agree with them to the last bit or two (it computes them differently).
TEXTBOOK = {
    "linear": lambda x: x,
    "ease_in_quad": lambda x: x * x,
    "ease_out_quad": lambda x: 1 - (1 - x) ** 2,
    "ease_in_out_quad": lambda x: 2 * x * x if x < 0.5 else 1 - (-2 * x + 2) ** 2 / 2,
    "ease_in_cubic": lambda x: x ** 3,
    "ease_out_cubic": lambda x: 1 - (1 - x) ** 3,
    "ease_in_out_cubic": lambda x: 4 * x ** 3 if x < 0.5 else 1 - (-2 * x + 2) ** 3 / 2,
    "ease_in_sine": lambda x: 1 - math.cos(x * math.pi / 2),
    "ease_out_sine": lambda x: math.sin(x * math.pi / 2),
    "ease_in_out_sine": lambda x: -(math.cos(math.pi * x) - 1) / 2,
    "ease_in_back": lambda x: (_C1 + 1) * x ** 3 - _C1 * x * x,
    "ease_out_back": lambda x: 1 + (_C1 + 1) * (x - 1) ** 3 + _C1 * (x - 1) ** 2,
    "ease_in_out_back": lambda x: ((2 * x) ** 2 * ((_C2 + 1) * 2 * x - _C2)) / 2 if x < 0.5
    else ((2 * x - 2) ** 2 * ((_C2 + 1) * (x * 2 - 2) + _C2) + 2) / 2,
    "ease_in_elastic": lambda x: -(2 ** (10 * x - 10)) * math.sin((x * 10 - 10.75) * 2 * math.pi / 3),
    "ease_out_elastic": lambda x: 2 ** (-10 * x) * math.sin((x * 10 - 0.75) * 2 * math.pi / 3) + 1,
    "ease_in_out_elastic": lambda x: -(2 ** (20 * x - 10) * math.sin((20 * x - 11.125) * 2 * math.pi / 4.5)) / 2
    if x < 0.5 else (2 ** (-20 * x + 10) * math.sin((20 * x - 11.125) * 2 * math.pi / 4.5)) / 2 + 1,
    "ease_in_bounce": lambda x: 1 - _bounce(1 - x),
    "ease_out_bounce": _bounce,
    "ease_in_out_bounce": lambda x: (1 - _bounce(1 - 2 * x)) / 2 if x < 0.5 else (1 + _bounce(2 * x - 1)) / 2,
}


def test_every_easing_is_named_after_itself_and_has_a_textbook_twin():
    assert set(EASINGS) == set(TEXTBOOK)
    assert all(function.__name__ == name and getattr(easing, name) is function for name, function in EASINGS.items())


@pytest.mark.parametrize("name", sorted(EASINGS))
def test_an_easing_starts_at_exactly_0_and_ends_at_exactly_1_and_holds_there(name):
    function = EASINGS[name]
    assert (function(0.0), function(1.0)) == (0.0, 1.0)
    assert (function(-0.5), function(1.5)) == (0.0, 1.0), "outside [0, 1] it holds its ends"


@pytest.mark.parametrize("name", sorted(EASINGS))
def test_an_easing_follows_the_textbook_equation(name):
    worst = max(abs(EASINGS[name](i / 997) - TEXTBOOK[name](i / 997)) for i in range(1, 997))
    assert worst < 1e-15


def test_the_curves_have_their_shapes():
    ts = [i / 200 for i in range(201)]
    for name in ("linear", "ease_in_quad", "ease_out_quad", "ease_in_out_cubic", "ease_in_out_sine"):
        values = [EASINGS[name](t) for t in ts]
        assert values == sorted(values) and min(values) >= 0.0 and max(values) <= 1.0, name
    assert max(easing.ease_out_back(t) for t in ts) > 1.09, "out_back overshoots by about 10%"
    assert min(easing.ease_in_back(t) for t in ts) < -0.09, "in_back winds up below 0"
    assert max(easing.ease_out_elastic(t) for t in ts) > 1.3
    assert easing.ease_in_quad(0.5) < 0.5 < easing.ease_out_quad(0.5)
    assert easing.ease_out_bounce(1 / 2.75) == pytest.approx(1.0), "the first bounce touches the end"


# Pinned bits. The functions use only correctly rounded IEEE operations, so these are the
# bits on every machine CPython runs on; a platform or a change that gives others fails here.
PINNED = {
    ("sin", 1.0): "0x1.aed548f090ceep-1", ("cos", 1.0): "0x1.14a280fb5068cp-1",
    ("sin", -3.0): "-0x1.210386db6d55bp-3", ("cos", 100.0): "0x1.b981dbf665fe0p-1",
    ("sin", 12345.678): "-0x1.687d5890974a5p-1",
    ("exp2", -9.5): "0x1.6a09e667f3bccp-10", ("exp2", 7.25): "0x1.306fe0a31b715p+7",
    ("ease_in_sine", 0.7): "0x1.178e8ea5d9100p-1", ("ease_in_out_elastic", 0.3): "0x1.8836fa2cf5037p-6",
    ("ease_out_back", 0.7): "0x1.1487f50174495p+0", ("ease_in_out_bounce", 0.3): "0x1.70a3d70a3d718p-5",
}


def test_the_portable_functions_give_pinned_bits():
    functions = {"sin": portable.sin, "cos": portable.cos, "exp2": portable.exp2, **EASINGS}
    assert {key: functions[key[0]](key[1]).hex() for key in PINNED} == PINNED
    assert portable.atan2(-3, -4).hex() == "-0x1.3fc176b7a8560p+1"


def test_portable_sine_cosine_and_powers_agree_with_the_c_library_to_a_unit_in_the_last_place():
    draw = random.Random(7).uniform
    for x in [draw(-1000, 1000) for _ in range(20_000)] + [draw(-7, 7) for _ in range(20_000)]:
        sine, cosine = portable.sin_cos(x)
        assert abs(sine - math.sin(x)) <= 2.3e-16 and abs(cosine - math.cos(x)) <= 2.3e-16, x
    for _ in range(20_000):
        y, x = draw(-5, 5), draw(-5, 5)
        assert abs(portable.atan2(y, x) - math.atan2(y, x)) <= 5e-16, (y, x)
        power = draw(-30, 30)
        assert portable.exp2(power) == pytest.approx(2.0 ** power, rel=4e-16)


def test_portable_special_values():
    assert portable.sin_cos(0.0) == (0.0, 1.0)
    assert all(math.isnan(value) for value in portable.sin_cos(math.inf) + portable.sin_cos(math.nan))
    assert (portable.atan2(0.0, 0.0), portable.atan2(0.0, -1.0), portable.atan2(1.0, 0.0)) == (0.0, portable.PI,
                                                                                               portable.PI / 2)
    assert portable.atan2(-1.0, -1.0) == -3 * portable.PI / 4
    assert portable.atan2(1.0, math.inf) == 0.0 and portable.atan2(math.inf, math.inf) == portable.PI / 4
    assert (portable.exp2(0.0), portable.exp2(10.0), portable.exp2(-1.0)) == (1.0, 1024.0, 0.5)
    assert (portable.exp2(2000.0), portable.exp2(-2000.0)) == (math.inf, 0.0) and math.isnan(portable.exp2(math.nan))


def test_the_array_sine_and_cosine_give_each_element_the_scalar_bits():
    values = np.array([*np.random.default_rng(3).uniform(-2000, 2000, 5000), 0.0, -0.0, portable.PI, np.nan, np.inf])
    sines, cosines = portable.sin_cos_array(values)
    for value, sine, cosine in zip(values.tolist(), sines.tolist(), cosines.tolist()):
        expected = portable.sin_cos(value)
        if math.isnan(expected[0]):
            assert math.isnan(sine) and math.isnan(cosine)
        else:
            assert (sine, cosine) == expected, value

"""The old games' tests run as their users wrote them with tickswap 0.2, deprecated names and all.

Their deprecation warnings are expected: each is recorded and checked here (a
``DeprecationWarning`` that names the name to use instead), so the suite does not print
hundreds of them, and a warning of any other kind, or a deprecation that does not say what
replaces it, is shown as before. The test files themselves stay as their users wrote them.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

EXPECTED = re.compile(r"^\S+ is deprecated and goes in tickswap \d+\.\d+: use \S.*$")
"""How tickswap words a deprecation (``engine.deprecation.warn_deprecated``): the old name, when it goes, the new."""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[Any]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    deprecations = [warning for warning in caught
                    if issubclass(warning.category, DeprecationWarning) and EXPECTED.match(str(warning.message))]
    item.user_properties.append(("deprecations", len(deprecations)))
    for warning in caught:
        if warning not in deprecations:  # not one of the old names' own: shown, as without this file
            warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)

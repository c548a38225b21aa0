"""Build the optional compiled core of the Double Buffer (``engine.buffering._core``).

Everything else is in pyproject.toml. The extension is optional: where no C compiler is
found (or it fails), setuptools says so and installs the pure-Python package, which
gives the same results, bit for bit, only slower. ``TICKSWAP_PURE=1`` forces the pure
path at import even where the core is built.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "engine.buffering._core",
            sources=["engine/buffering/_core.c"],
            # No fused multiply-add: the gather must round exactly as numpy does.
            extra_compile_args=["-O2", "-ffp-contract=off"],
            optional=True,
        )
    ]
)

"""Windows: a real one, or an off-screen one rendered through EGL, and screenshots."""

from __future__ import annotations

import os
import sys
from typing import Any

import pyglet

__all__ = ["DisplayUnavailable", "check_text", "create_window", "has_display", "read_pixels", "save_screenshot",
           "true_colour_config", "use_headless"]


class DisplayUnavailable(RuntimeError):
    """Nothing to draw with: no display for a window (try ``headless=True``), or no EGL off-screen."""


def has_display() -> bool:
    """Whether this machine can show a real window (Windows and macOS always can)."""
    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def use_headless(headless: bool) -> None:
    """Choose off-screen (EGL) or real windows for this process, before the first window.

    pyglet picks its backend when ``pyglet.window`` is first imported, so the choice is
    made once per process; asking for off-screen after windows exist cannot be honoured.
    Asking for real windows where there is no display raises ``DisplayUnavailable``.
    """
    if not headless and not has_display():
        raise DisplayUnavailable("no display to open a window on (DISPLAY is not set); try --headless")
    if "pyglet.window" in sys.modules:
        if bool(pyglet.options["headless"]) != headless:
            mode = "off-screen" if pyglet.options["headless"] else "windowed"
            raise RuntimeError(f"pyglet is already {mode} in this process; headless={headless} cannot be honoured")
        return
    pyglet.options["headless"] = headless


def create_window(width: int, height: int, *, headless: bool = False, vsync: bool = True,
                  caption: str = "tickswap") -> Any:
    """Open a ``pyglet.window.Window``; off-screen (EGL) when ``headless``.

    Raises ``DisplayUnavailable`` when there is no display for a real window.
    """
    use_headless(headless)
    try:
        import pyglet.window

        return pyglet.window.Window(width, height, caption=caption, vsync=vsync and not headless,
                                    visible=not headless, config=true_colour_config())
    except Exception as error:
        if type(error).__name__ == "NoSuchDisplayException":
            raise DisplayUnavailable(f"no display to open a window on ({error}); try --headless") from error
        if headless:
            raise DisplayUnavailable(f"off-screen rendering (EGL) is unavailable here: {error}") from error
        raise


def check_text() -> None:
    """Whether pyglet can draw text here; ``DisplayUnavailable`` naming the missing library if not.

    Every run draws text (the HUD, text looks), and pyglet loads its font libraries
    (FreeType and Fontconfig on Linux) only when text is first imported: a minimal
    machine (a container, a bare server) that has GL but not them would fail mid-start
    with pyglet's own ``ImportError``. Asked before there is a window, it fails with a
    line that says what to install.
    """
    try:
        import pyglet.text  # noqa: F401
    except ImportError as error:
        raise DisplayUnavailable(f"pyglet cannot draw text here ({error}): install FreeType and Fontconfig "
                                 "(on Debian or Ubuntu: apt-get install libfreetype6 libfontconfig1)") from error


def true_colour_config() -> Any:
    """A complete GL config with exactly 8 bits per colour channel, or ``None`` (pyglet's own choice) if none is.

    Asked for no colour depth, EGL hands out its smallest colour buffer first: off-screen
    that is RGB565, where a look of (160, 90, 30) is stored as (165, 89, 24) and every
    screenshot shows other colours than the game asked for. So the depth is asked for,
    and of the configs that have it (EGL sorts deeper ones first) one with exactly 8 bits
    is taken: exactly the colours, no more.
    """
    import pyglet.display
    from pyglet import gl

    screen = pyglet.display.get_display().get_default_screen()
    for depth in (24, 16):
        # pyglet.gl.Config is the platform's own config class at run time; its stub is the abstract base.
        template = gl.Config(double_buffer=True, depth_size=depth, major_version=3,  # type: ignore[abstract]
                             minor_version=3, red_size=8, green_size=8, blue_size=8, alpha_size=8)
        try:
            configs = screen.get_matching_configs(template)
        except Exception:  # a platform that can't list them: pyglet's own choice, as before
            return None
        exact = [config for config in configs
                 if (config.red_size, config.green_size, config.blue_size) == (8, 8, 8)]
        if exact or configs:
            return (exact or configs)[0]
    return None


def save_screenshot(path: str, file: Any = None) -> None:
    """Save what the current window's colour buffer holds as a PNG named ``path``.

    With ``file`` (an open binary file, such as an atomic output's temporary file), the
    PNG is written into it and ``path`` only names the format: nothing is opened by name.
    """
    import pyglet.image

    pyglet.image.get_buffer_manager().get_color_buffer().save(path, file=file)


def read_pixels(width: int, height: int) -> bytes:
    """The current colour buffer as RGBA bytes, bottom row first (for tests and checks)."""
    import pyglet.image

    image = pyglet.image.get_buffer_manager().get_color_buffer().get_image_data()  # type: ignore[no-untyped-call]
    return bytes(image.get_data("RGBA", width * 4))

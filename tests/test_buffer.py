"""Double buffers: DoubleBuffer, Framebuffer and Scene."""

from __future__ import annotations

import pytest

from engine.lab import DoubleBuffer, Framebuffer, Scene


def test_swap_exchanges_references_without_copying():
    buffers: DoubleBuffer[list[str]] = DoubleBuffer(list)
    current, upcoming = buffers.current, buffers.next
    upcoming.append("drawn")
    buffers.swap()
    assert buffers.current is upcoming and buffers.next is current
    assert buffers.current == ["drawn"]


def test_framebuffer_starts_clear_and_draws_black_pixels_row_major():
    frame = Framebuffer(4, 3)
    assert list(frame.pixels) == [Framebuffer.WHITE] * 12
    frame.draw(1, 2)
    assert frame.pixels[2 * 4 + 1] == Framebuffer.BLACK
    assert sum(p == Framebuffer.BLACK for p in frame.pixels) == 1
    frame.clear()
    assert set(frame.pixels) == {Framebuffer.WHITE}


@pytest.mark.parametrize(("x", "y"), [(-1, 0), (0, -1), (160, 0), (0, 120)])
def test_drawing_outside_the_frame_raises_index_error_naming_the_pixel(x, y):
    frame = Framebuffer()
    with pytest.raises(IndexError, match=rf"\({x}, {y}\)"):
        frame.draw(x, y)
    assert set(frame.pixels) == {Framebuffer.WHITE}


def test_pixels_are_read_only():
    frame = Framebuffer(2, 2)
    with pytest.raises(TypeError):
        frame.pixels[0] = 0  # type: ignore[index]


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError, match="width"):
        Framebuffer(0, 10)
    with pytest.raises(TypeError, match="height"):
        Framebuffer(10, 2.5)  # type: ignore[arg-type]


def test_a_scene_reader_never_sees_a_half_drawn_frame():
    scene = Scene(8, 8)
    observed: list[int] = []

    def painter(frame: Framebuffer) -> None:
        for x in range(8):
            frame.draw(x, x)
            observed.append(sum(p == Framebuffer.BLACK for p in scene.buffer.pixels))

    scene.draw(painter)
    assert observed == [0] * 8, "mid-draw, the shown buffer is still the old, blank frame"
    assert sum(p == Framebuffer.BLACK for p in scene.buffer.pixels) == 8


def test_a_painter_that_fails_leaves_the_last_complete_frame_on_show():
    scene = Scene(4, 4)
    scene.draw(lambda frame: frame.draw(0, 0))
    shown = scene.buffer

    def broken(frame: Framebuffer) -> None:
        frame.draw(1, 1)
        raise RuntimeError("painter crashed")

    with pytest.raises(RuntimeError):
        scene.draw(broken)
    assert scene.buffer is shown and shown.pixels[0] == Framebuffer.BLACK

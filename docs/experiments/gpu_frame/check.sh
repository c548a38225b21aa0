#!/usr/bin/env bash
# Issue 32 item 2 on a real GPU: `tickswap bench frame` (the frame through EntityRenderer vs
# the floor frame at 1,000, 10,000 and 100,000 entities) and the render tests, through EGL on
# the device machine's NVIDIA driver. Under 2 minutes there (first run on an H200, stop 35:
# 27 s of command, about a minute to start the machine); figures in README.md beside it.
#
#   docs/experiments/gpu_frame/check.sh prepare
#       here, in the repository root, with network: the wheels the device lacks (pyglet,
#       esper, pytiled-parser, aioice and its needs, and a setuptools that reads the core's
#       ext-modules table (74.1 or later); pure Python, for its Python 3.12) into
#       out/whl, and the GL loaders (glvnd's libEGL, libGL, libOpenGL) and the font
#       libraries (FreeType, Fontconfig, DejaVu) into out/gl.
#       out/ is ignored by git, so both travel only when named in carry.
#   docs/experiments/gpu_frame/check.sh run
#       there: the device tool's `run` with carry ["out/whl", "out/gl"], timeout_s 300, and
#       command "docs/experiments/gpu_frame/check.sh run". Writes $OUT/frame-1.txt,
#       $OUT/frame-2.txt, $OUT/tests.txt and $OUT/setup.txt; the figures go
#       into docs/experiments/gpu_frame/README.md marked with the card nvidia-smi names.
set -uo pipefail
cd "$(dirname "$0")/../../.."

case "${1:-}" in
prepare)
  set -e
  mkdir -p out/whl out/gl /tmp/amd64/partial
  # The versions this VM's venv was tested with; --no-deps: each need is named.
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux2014_x86_64 --platform any -d out/whl \
    pyglet==2.1.19 esper==3.9 pytiled-parser==2.2.9 aioice dnspython ifaddr setuptools==84.2.1
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  # shellcheck disable=SC2086
  apt-get $o update -qq
  # shellcheck disable=SC2086
  (cd out/gl && apt-get $o download libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
  # Text (the HUD, text looks): pyglet loads FreeType and Fontconfig, which the device's
  # bare image lacks (its first run failed 24 render tests with 'Library "freetype" not found').
  # shellcheck disable=SC2086
  (cd out/gl && apt-get $o download libfreetype6 libfontconfig1 fontconfig-config fonts-dejavu-core \
    libpng16-16 libbrotli1)
  ls out/whl out/gl
  du -sh out/whl out/gl
  ;;
run)
  out=${OUT:-out/gpu-frame}
  mkdir -p "$out"
  {
    nvidia-smi -L || echo "no nvidia-smi: not a GPU machine"
    # The loaders go to / only on the device machine (a bare one, given back after).
    if command -v nvidia-smi >/dev/null && [ -d out/gl ]; then
      for f in out/gl/*.deb; do dpkg -x "$f" /; done
      ldconfig
      egl=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
      [ -f "$egl" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$egl
    fi
    # Into the machine's own python3 (a bare machine, given back after): the wheels, then
    # tickswap itself, editable, which builds the compiled core in place and makes the
    # sample games known (they are found through the installed package's metadata).
    if [ -d out/whl ]; then
      python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade out/whl/*.whl || exit 1
    fi
    python3 --version
    python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . 2>&1 | tail -5
    python3 -c "from engine.buffering import ACCELERATED; print('compiled core:', 'yes' if ACCELERATED else 'no')"
    python3 -c "
from engine.render import use_headless; use_headless(True)
import pyglet; from engine.render.context import create_window
w = create_window(64, 64, headless=True); print('GL:', pyglet.gl.gl_info.get_renderer(), pyglet.gl.gl_info.get_version()); w.close()"
  } >"$out/setup.txt" 2>&1
  cat "$out/setup.txt"
  grep -q "compiled core: yes" "$out/setup.txt" || { echo "check: the core did not build (setup.txt)"; exit 1; }
  grep -q "^GL:" "$out/setup.txt" || { echo "check: no GL context"; exit 1; }
  export PYTHONUNBUFFERED=1
  # Two runs: the ratios of each run are taken within it (rows interleaved), the two show the spread.
  for run in 1 2; do
    timeout 120 python3 -m engine.tools.cli bench frame 2>&1 | tee "$out/frame-$run.txt"
  done
  # The render tests on the GPU's GL: pixels, the once-per-tick upload, pure path and core alike.
  timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_render.py tests/test_render_frame.py 2>&1 \
    | tail -15 | tee "$out/tests.txt"
  ;;
*)
  echo "usage: $0 prepare|run" >&2
  exit 2
  ;;
esac

// tickswap's browser runner: loads Pyodide and the app, then drives engine.web.WebRunner from
// requestAnimationFrame and draws its frames with Canvas 2D. The page's address says what to run:
//   ?record          keep a recording (the "Download recording" button ends it and saves it)
//   ?script=FILE     feed an input script (a file beside the page), as tickswap run --input
//   ?ticks=N         stop at tick N (the hash is then window.tickswap.result.state)
//   ?replay=FILE     replay a recording beside the page (or choose one with "Replay a recording")
//   ?seed=N  ?hud=0
import { loadPyodide } from "./pyodide/pyodide.mjs";

const params = new URLSearchParams(location.search);
const statusLine = document.getElementById("status");
const canvas = document.getElementById("game");
const ctx = canvas.getContext("2d");
const api = (window.tickswap = { ready: false, result: null, error: null, firstFrameMs: null });
let hud = params.get("hud") !== "0";

function say(text) {
  statusLine.textContent = text;
}

function fail(error) {
  api.error = String(error && error.message ? error.message : error);
  say(api.error);
  throw error;
}

const pyodide = await loadPyodide({ indexURL: new URL("./pyodide/", location.href).href }).catch(fail);
api.pyodideMs = performance.now();
const archive = await fetch("app.zip").then((r) => r.arrayBuffer()).catch(fail);
pyodide.unpackArchive(new Uint8Array(archive), "zip", { extractDir: "/app" });
pyodide.runPython(`import os, sys
os.environ["TICKSWAP_PURE"] = "1"
sys.path.insert(0, "/app")`);
const boot = pyodide.pyimport("engine.tools.ship.webboot");

async function text(name) {
  const response = await fetch(new URL(name, location.href));
  if (!response.ok) fail(new Error(`${name}: ${response.status}`));
  return response.text();
}

let session = null;
let runner = null;

function begin(options) {
  if (session) session.destroy();
  try {
    session = boot.start.callKwargs({ root: "/app", ...options });
  } catch (error) {
    fail(error);
  }
  runner = session.runner;
  const [width, height] = runner.view_size.toJs();
  canvas.width = width;
  canvas.height = height;
  fit();
  api.result = null;
  api.recording = undefined;
  maps.clear();
}

// -- the window scaled to the page ---------------------------------------------------------
function fit() {
  const scale = Math.min(innerWidth / canvas.width, (innerHeight - 40) / canvas.height);
  canvas.style.width = `${Math.max(1, Math.floor(canvas.width * scale))}px`;
  canvas.style.height = `${Math.max(1, Math.floor(canvas.height * scale))}px`;
}
addEventListener("resize", () => runner && fit());

// -- pictures, tile maps and sounds, read from Pyodide's file system ------------------------
const pictures = new Map();
function picture(path) {
  let found = pictures.get(path);
  if (found === undefined) {
    found = null;
    pictures.set(path, null);
    const bytes = pyodide.FS.readFile(path);
    createImageBitmap(new Blob([bytes], { type: "image/png" })).then((bitmap) => pictures.set(path, bitmap));
  }
  return found;
}

const maps = new Map();
function tileMap(id) {
  let found = maps.get(id);
  if (found !== undefined) return found;
  const data = JSON.parse(runner.map_json(id));
  if (!data) return null;
  const sets = data.tilesets.map((set) => ({ ...set, bitmap: picture(set.image) }));
  if (sets.some((set) => !set.bitmap)) return null; // drawn once every tileset has loaded
  const rows = Math.max(0, ...data.layers.map((layer) => layer.length));
  const columns = Math.max(0, ...data.layers.flatMap((layer) => layer.map((cells) => cells.length)));
  const off = new OffscreenCanvas(Math.max(1, columns * data.tile_width), Math.max(1, rows * data.tile_height));
  const g = off.getContext("2d");
  g.imageSmoothingEnabled = false;
  for (const layer of data.layers) {
    layer.forEach((cells, row) =>
      cells.forEach((gid, column) => {
        if (!gid) return;
        let set = sets[0];
        for (const each of sets) if (gid >= each.first_gid) set = each;
        const id = gid - set.first_gid;
        const sx = set.margin + (id % set.columns) * (set.tile_width + set.spacing);
        const sy = set.margin + Math.floor(id / set.columns) * (set.tile_height + set.spacing);
        g.drawImage(set.bitmap, sx, sy, set.tile_width, set.tile_height, column * data.tile_width,
                    (rows - 1 - row) * data.tile_height, data.tile_width, data.tile_height);
      }));
  }
  found = { canvas: off, height: rows * data.tile_height };
  maps.set(id, found);
  return found;
}

let audio = null;
const sounds = new Map();
let music = null;
function audioContext() {
  if (!audio && window.AudioContext) audio = new AudioContext();
  return audio;
}
function soundBuffer(path) {
  let found = sounds.get(path);
  if (!found) {
    const bytes = pyodide.FS.readFile(path);
    found = audioContext().decodeAudioData(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    sounds.set(path, found);
  }
  return found;
}
function play(path, volume, loop) {
  const context = audioContext();
  if (!context || context.state !== "running") return null;
  const gain = context.createGain();
  gain.gain.value = volume;
  gain.connect(context.destination);
  const source = context.createBufferSource();
  source.loop = loop;
  source.connect(gain);
  soundBuffer(path).then((buffer) => {
    source.buffer = buffer;
    source.start();
  }, () => {});
  return source;
}
let track = null; // the music the game asked for last: [path, loop, volume], or null for none
function startMusic() {
  if (music) {
    try {
      music.stop();
    } catch {} // not started yet (still decoding): it never will be, it is disconnected below
    music.disconnect();
  }
  music = track ? play(track[0], track[2], track[1]) : null;
}
function playSounds() {
  for (const [path, volume] of JSON.parse(runner.take_sounds_json())) play(path, volume, false);
  const changes = JSON.parse(runner.take_music_json());
  if (changes.length) {
    const [path, loop, volume] = changes[changes.length - 1];
    track = path ? [path, loop, volume] : null;
    startMusic();
  }
}
// A browser starts sound only after the player's first click or key: then the music asked for before.
function unmute() {
  const context = audioContext();
  if (context && context.state !== "running") context.resume().then(() => !music && startMusic());
}
addEventListener("pointerdown", unmute);
addEventListener("keydown", unmute);

// -- drawing ---------------------------------------------------------------------------------
const css = (c) => `rgba(${c[0]},${c[1]},${c[2]},${c[3] / 255})`;
const BASELINE = { bottom: "alphabetic", center: "middle", top: "top" };
const ALIGN = { left: "left", center: "center", right: "right" };

// An unturned rectangle covers the pixels whose centres it covers, as the desktop's rasteriser
// draws it: its edges snapped to whole pixels (a fractional edge would otherwise blend).
function drawSnapped(shape, x, y, width, height, color, image, region) {
  const m = ctx.getTransform();
  const left = m.a * (x - width / 2) + m.e, right = m.a * (x + width / 2) + m.e;
  const top = m.d * (y + height / 2) + m.f, bottom = m.d * (y - height / 2) + m.f; // canvas y, down
  const x0 = Math.ceil(left - 0.5), x1 = Math.ceil(right - 0.5);
  const y0 = canvas.height - Math.ceil(canvas.height - top - 0.5);
  const y1 = canvas.height - Math.ceil(canvas.height - bottom - 0.5);
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  if (shape === "image") {
    const bitmap = picture(image);
    if (bitmap) {
      ctx.globalAlpha = color[3] / 255;
      const [sx, sy, sw, sh] = region || [0, 0, bitmap.width, bitmap.height];
      ctx.drawImage(bitmap, sx, sy, sw, sh, x0, y0, x1 - x0, y1 - y0);
    }
  } else {
    ctx.fillStyle = css(color);
    ctx.fillRect(x0, y0, x1 - x0, y1 - y0);
  }
  ctx.restore();
}

function drawItem(item) {
  const [, , shape, x, y, angle, width, height, color, image, region, words, anchorX, anchorY] = item;
  if (!angle && shape === "square") {
    drawSnapped(shape, x, y, width, height, color, image, region);
    return;
  }
  ctx.save();
  ctx.translate(x, y);
  if (angle) ctx.rotate((angle * Math.PI) / 180);
  if (shape === "text") {
    ctx.scale(1, -1);
    ctx.fillStyle = css(color);
    ctx.font = `${height}px sans-serif`;
    ctx.textAlign = ALIGN[anchorX];
    ctx.textBaseline = BASELINE[anchorY];
    words.split("\n").forEach((line, n) => ctx.fillText(line, 0, n * height * 1.2));
  } else if (shape === "image") {
    const bitmap = picture(image);
    if (bitmap) {
      ctx.scale(1, -1);
      ctx.imageSmoothingEnabled = true; // bilinear, as the desktop samples pictures (tiles: nearest)
      ctx.imageSmoothingQuality = "low";
      ctx.globalAlpha = color[3] / 255;
      const [sx, sy, sw, sh] = region || [0, 0, bitmap.width, bitmap.height];
      ctx.drawImage(bitmap, sx, sy, sw, sh, -width / 2, -height / 2, width, height);
    }
  } else {
    ctx.fillStyle = css(color);
    ctx.beginPath();
    if (shape === "circle") ctx.ellipse(0, 0, width / 2, height / 2, 0, 0, 2 * Math.PI);
    else if (shape === "diamond") {
      ctx.moveTo(0, height / 2);
      ctx.lineTo(width / 2, 0);
      ctx.lineTo(0, -height / 2);
      ctx.lineTo(-width / 2, 0);
    } else ctx.rect(-width / 2, -height / 2, width, height);
    ctx.fill();
  }
  ctx.restore();
}

function draw(frame) {
  const [tx, ty, zoom] = frame.view;
  const height = canvas.height;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  const background = runner.background.toJs();
  ctx.fillStyle = `rgb(${background[0]},${background[1]},${background[2]})`;
  ctx.fillRect(0, 0, canvas.width, height);
  ctx.imageSmoothingEnabled = false;
  const world = () => ctx.setTransform(zoom, 0, 0, -zoom, tx, height - ty);
  world();
  let pending = frame.maps; // tile maps draw at world layer 0, below its looks
  const drawMaps = () => {
    for (const id of pending) {
      const drawn = tileMap(id);
      if (drawn) {
        ctx.save();
        ctx.scale(1, -1);
        ctx.drawImage(drawn.canvas, 0, -drawn.height);
        ctx.restore();
      }
    }
    pending = [];
  };
  let onScreen = false;
  for (const item of frame.items) {
    const [layer, screen] = item;
    if (pending.length && (screen || layer >= 0)) drawMaps();
    if (screen && !onScreen) {
      onScreen = true;
      ctx.setTransform(1, 0, 0, -1, 0, height);
    }
    drawItem(item);
  }
  if (pending.length) {
    world();
    drawMaps();
  }
  if (hud) {
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.font = "12px monospace";
    ctx.textAlign = "left";
    ctx.textBaseline = "top";
    ctx.fillStyle = "rgba(255,255,255,0.85)";
    ctx.fillText(frame.hud, 6, 6);
  }
}

// -- input -------------------------------------------------------------------------------------
const modifiers = (e) => (e.shiftKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.altKey ? 4 : 0) | (e.metaKey ? 8 : 0);
addEventListener("keydown", (e) => {
  if (!runner || e.repeat) return;
  if (e.code === "F1") {
    hud = !hud;
    e.preventDefault();
    return;
  }
  if (runner.key(true, e.code, modifiers(e))) e.preventDefault();
  // Typed text and editing keys, as a desktop window sends them beside the key (a GUI's text field).
  if (e.key.length === 1 && !e.ctrlKey && !e.metaKey) runner.text(e.key);
  runner.text_motion(e.code, e.ctrlKey);
});
addEventListener("keyup", (e) => {
  if (runner && runner.key(false, e.code, modifiers(e))) e.preventDefault();
});
function where(e) {
  const box = canvas.getBoundingClientRect();
  return [((e.clientX - box.left) * canvas.width) / box.width,
          canvas.height - ((e.clientY - box.top) * canvas.height) / box.height];
}
canvas.addEventListener("mousedown", (e) => runner && runner.mouse("press", e.button, ...where(e), modifiers(e)));
canvas.addEventListener("mouseup", (e) => runner && runner.mouse("release", e.button, ...where(e), modifiers(e)));
canvas.addEventListener("mousemove", (e) => runner && runner.mouse("motion", 0, ...where(e), modifiers(e)));
canvas.addEventListener("wheel", (e) => {
  if (!runner) return;
  runner.mouse("scroll", 0, ...where(e), modifiers(e), -Math.sign(e.deltaX), -Math.sign(e.deltaY));
  e.preventDefault();
}, { passive: false });
canvas.addEventListener("contextmenu", (e) => e.preventDefault());

const padsHeld = new Map();
function pollPads() {
  for (const pad of navigator.getGamepads ? navigator.getGamepads() : []) {
    if (!pad || pad.mapping !== "standard") continue;
    const held = padsHeld.get(pad.index) || { buttons: [], sticks: [[0, 0], [0, 0]] };
    pad.buttons.forEach((button, n) => {
      if (button.pressed !== !!held.buttons[n]) runner.pad(pad.index, n, button.pressed);
      held.buttons[n] = button.pressed;
    });
    for (const stick of [0, 1]) {
      const x = pad.axes[2 * stick] || 0;
      const y = -(pad.axes[2 * stick + 1] || 0); // the DOM's y is down, the engine's up
      const [qx, qy] = runner.quantised(x, y).toJs();
      if (qx !== held.sticks[stick][0] || qy !== held.sticks[stick][1]) runner.stick(pad.index, stick, qx, qy);
      held.sticks[stick] = [qx, qy];
    }
    padsHeld.set(pad.index, held);
  }
}

// -- recordings ---------------------------------------------------------------------------------
function download(name, contents) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([contents], { type: "application/jsonl" }));
  link.download = name;
  link.click();
}
document.getElementById("download").addEventListener("click", () => {
  try {
    api.recording = session.recording();
    download(`${session.game.name}-recording.jsonl`, api.recording);
    say("the recording ends here: tickswap replay FILE replays it");
  } catch (error) {
    say(String(error.message || error));
  }
});
document.getElementById("replay").addEventListener("change", async (e) => {
  const file = e.target.files[0];
  if (file) begin({ replay: await file.text() });
});

// -- the loop -----------------------------------------------------------------------------------
const options = { seed: Number(params.get("seed") || 0), record: params.has("record") };
if (params.get("ticks")) options.ticks = Number(params.get("ticks"));
if (params.get("script")) options.script = await text(params.get("script"));
if (params.get("replay")) options.replay = await text(params.get("replay"));
document.getElementById("download").hidden = !options.record;
begin(options);
// A new run in this page, without loading Pyodide again: what the replay button does, and what a
// test asks for (options as the address's: script and replay are texts here).
api.begin = (given) => {
  begin(given);
  document.getElementById("download").hidden = !given.record;
};
api.ready = true;
say(`${session.game.name}: keyboard, mouse and gamepad play; F1 the HUD, F2 pause, F3 a tick, F4 interpolation`);

api.frames = 0;
api.drawMs = 0; // the frames' drawing so far: the scene in Python, its JSON, and Canvas 2D
function frame(now) {
  const alpha = runner.frame(now);
  pollPads();
  const drawing = performance.now();
  draw(JSON.parse(runner.draw_json(alpha)));
  api.drawMs += performance.now() - drawing;
  api.frames += 1;
  playSounds();
  if (api.firstFrameMs === null) api.firstFrameMs = performance.now();
  api.tick = runner.world.tick_count;
  if (runner.stopped && !api.result) {
    api.result = { state: runner.state_hash(), tick: runner.world.tick_count, stopped: runner.stopped,
                   replay: session.replay_result, ticksPerSecond: (runner.ticks_run / runner.tick_ms) * 1000 };
    say(`${session.game.name}: ${runner.stopped}, state ${api.result.state.slice(0, 16)}` +
        (session.replay_result ? `; replay: ${session.replay_result}` : ""));
  }
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);

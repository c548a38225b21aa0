// Runs tickswap commands in Pyodide under Node: node web_check.mjs PYODIDE_DIR APP_ZIP HOST_DIR COMMANDS_JSON
// (tickswap package GAME --web checks its build with it; so do the tests).
// The app is unpacked into /app; HOST_DIR is mounted at /host (input scripts in, recordings and saves out).
// Each command is ["game", ...argv] (the packaged game's program: engine.tools.ship.boot.main, tickswap run's
// options) or ["tickswap", ...argv] (the command line, e.g. replay); the statuses are printed as JSON.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [pyodideDir, appZip, hostDir, commands] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const started = performance.now();
const pyodide = await loadPyodide({ indexURL: pyodideDir + path.sep });
pyodide.unpackArchive(new Uint8Array(readFileSync(appZip)), "zip", { extractDir: "/app" });
pyodide.FS.mkdir("/host");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: hostDir }, "/host");
pyodide.globals.set("commands_json", commands);
const loaded = performance.now();
const statuses = pyodide.runPython(`
import json, os, sys
from pathlib import Path
os.environ["TICKSWAP_PURE"] = "1"
sys.path.insert(0, "/app")
sys.path.insert(0, "/app/tickswap-game")  # an installed game's registration, for tickswap replay
os.chdir("/host")
from engine.tools.ship.boot import main
from engine.tools.cli import main as tickswap
statuses = []
for kind, *argv in json.loads(commands_json):
    statuses.append(main(argv, root=Path("/app")) if kind == "game" else tickswap(argv))
    sys.stdout.flush()
json.dumps(statuses)
`);
console.log(`pyodide statuses ${statuses} python ${pyodide.runPython("import sys; sys.version.split()[0]")} ` +
            `start ${Math.round(loaded - started)} ms run ${Math.round(performance.now() - loaded)} ms`);

"""``tickswap serve DIR``: serve a web build (``tickswap package GAME --web DIR``) on 127.0.0.1 for a try.

A plain static server (the standard library's), bound to the loopback address only, with
the types a browser insists on for a module script (``.mjs``, ``.js``) and WebAssembly
(``.wasm``). It serves files, never lists a directory, and is no host for the world: any
static host serves the folder as it is.
"""

from __future__ import annotations

import functools
import os
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from engine.tools.cli.options import SERVE_PORT, ServeOptions
from engine.tools.errors import UsageError, say, shown_name

__all__ = ["DEFAULT_PORT", "WebHandler", "serve_command", "web_server"]

DEFAULT_PORT = SERVE_PORT
TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
         ".json": "application/json", ".jsonl": "application/jsonl", ".zip": "application/zip"}


class WebHandler(SimpleHTTPRequestHandler):
    """Serves the folder's files with the types browsers need; no directory listings, no log on stderr per file."""

    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **TYPES}  # noqa: RUF012 (the base names it so)

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        self.send_error(404, "no listing")
        return None

    def log_message(self, format: str, *args: Any) -> None:
        pass  # a page loads dozens of files: one line each would bury the address


def web_server(directory: Path, port: int = DEFAULT_PORT) -> ThreadingHTTPServer:
    """A server of ``directory`` on 127.0.0.1:``port`` (0: any free port; ``server_address`` says which)."""
    handler = functools.partial(WebHandler, directory=str(directory))
    return ThreadingHTTPServer(("127.0.0.1", port), handler)


def serve_command(args: ServeOptions) -> int:
    """Serve until Ctrl-C; refuses a folder that is not a web build."""
    directory = Path(args.directory)
    if not (directory / "index.html").is_file() or not (directory / "tickswap-web.json").is_file():
        raise UsageError(f"{shown_name(args.directory)} is not a web build: make one with "
                         "tickswap package GAME --web DIR")
    try:
        server = web_server(directory, args.port)
    except OSError as error:
        raise UsageError(f"can't serve on 127.0.0.1:{args.port}: {error.strerror or error}") from None
    with server:
        say(f"serving {shown_name(args.directory)} on http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)")
        server.serve_forever()
    return 0

"""Replays: record the inputs of every tick, play them back, and verify every hash.

A fixed-step engine promises determinism: the same inputs give the same game. A replay
makes the promise checkable: ``Recorder`` writes the input of every tick and a state hash
every 60 ticks while a game runs; ``read_replay`` checks every line of a replay before
anything is built; ``Playback`` and ``verify`` build the game again, feed each tick
exactly its recorded input, and compare every hash.

One module per job, because each changes for its own reasons:

* ``format``: the file format, its limits, and the one check of a whole file
  (``read_replay``, ``ReplayError``);
* ``recorder``: ``Recorder``, the writer, safe against crashes, full disks and Ctrl-C;
* ``playback``: ``Playback``, ``Verification`` (the one verifier), ``verify``, ``ReplayDriver`` and ``ReplayResult``.

The ``--input`` script format, which shares the replay's input lines but is written by
hand, is ``engine.input.scripts``.
"""

from engine.constants import HASH_EVERY as HASH_EVERY
from engine.files.replay.format import FORMAT as FORMAT
from engine.files.replay.format import VERSION as VERSION
from engine.files.replay.format import Replay as Replay
from engine.files.replay.format import ReplayError as ReplayError
from engine.files.replay.format import read_replay as read_replay
from engine.files.replay.format import read_start as read_start
from engine.files.replay.playback import Playback as Playback
from engine.files.replay.playback import ReplayDriver as ReplayDriver
from engine.files.replay.playback import ReplayResult as ReplayResult
from engine.files.replay.playback import Verification as Verification
from engine.files.replay.playback import verify as verify
from engine.files.replay.recorder import Recorder as Recorder

__all__ = ["FORMAT", "HASH_EVERY", "VERSION", "Playback", "Recorder", "Replay", "ReplayDriver", "ReplayError",
           "ReplayResult", "Verification", "read_replay", "read_start", "verify"]

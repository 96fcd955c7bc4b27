"""A tournament's output folder: one Parquet file per chunk and table, written atomically.

Layout: DIR/manifest.json, DIR/games/chunk-000000448.parquet, DIR/seats/..., DIR/deals/...
A chunk file is named by its first game id. Each chunk's tables are written to hidden temp
files (`pyarrow.dataset` skips names that start with "."), then renamed into place, `games`
last: a chunk is finished exactly when its `games` file exists, and the games stored are the
game ids of the `games` files. A rerun drops the files of unfinished chunks and plays only the
games not stored yet, in new chunks of any size: an interrupted tournament resumes without
losing or duplicating a game, and a first chunk id is never the name of a finished file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

ORDER = ("deals", "seats", "games")  # games last: its file marks the chunk finished


class StoreError(ValueError):
    """The output folder cannot be used (unwritable, or holds another tournament)."""


def chunk_file(first_game: int) -> str:
    return f"chunk-{first_game:09d}.parquet"


def differences(old: dict, new: dict, prefix: str = "") -> list[str]:
    """The keys whose values differ between two nested dicts, as `a.b: OLD -> NEW`."""
    out = []
    for key in sorted(old.keys() | new.keys()):
        a, b, name = old.get(key), new.get(key), f"{prefix}{key}"
        if isinstance(a, dict) and isinstance(b, dict):
            out += differences(a, b, f"{name}.")
        elif a != b:
            out.append(f"{name}: {a!r} -> {b!r}")
    return out


class Store:
    """The output folder of one tournament (identified by its config hash), whose tables have
    the `schemas` of `tournaments.schema.tables`."""

    def __init__(self, root: str | Path, config_hash: str, schemas: dict[str, pa.Schema]
                 ) -> None:
        self.root = Path(root)
        self.config_hash = config_hash
        self.schemas = schemas

    def check(self, manifest: dict[str, Any]) -> set[int]:
        """The ids of the games stored, once sure (writing nothing) that the folder can take
        the tournament of `manifest` (its `identity` is the config hash's source): a new or
        empty folder, or one of this tournament, or one that stores no game."""
        parent = next(p for p in (self.root, *self.root.parents) if p.exists())
        if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            raise StoreError(f"output folder {self.root}: not writable ({parent} is not a "
                             "writable folder)")
        stored = self.stored_games()
        old = self._manifest()
        if stored and old.get("config_hash") != self.config_hash:
            diff = differences(old["identity"], manifest["identity"]) if "identity" in old else []
            raise StoreError(
                f"output folder {self.root} holds {len(stored)} games of another tournament "
                f"(config hash {old.get('config_hash')}, this one {self.config_hash}): "
                + ("the folder's -> this config's " + "; ".join(diff) if diff
                   else "written by another kanjax version")
                + ". Choose another --output, or delete the folder")
        return stored

    def prepare(self, manifest: dict[str, Any]) -> None:
        """Create the folder, drop unfinished chunks' files and write the manifest (after
        `check`)."""
        try:
            for table in self.schemas:
                (self.root / table).mkdir(parents=True, exist_ok=True)
            probe = tempfile.NamedTemporaryFile(dir=self.root, prefix=".probe", delete=True)
            probe.close()
        except OSError as err:
            raise StoreError(f"output folder {self.root}: not writable ({err.strerror})") from None
        finished = set(os.listdir(self.root / "games"))
        for table in self.schemas:
            for name in os.listdir(self.root / table):
                if name not in finished or name.startswith("."):
                    os.remove(self.root / table / name)
        old = self._manifest()
        if old.get("config_hash") == self.config_hash:
            manifest = {**manifest, "started": old.get("started", manifest.get("started"))}
        self._write_bytes(self.root / "manifest.json",
                          json.dumps({**manifest, "config_hash": self.config_hash},
                                     indent=2).encode())

    def update_manifest(self, **fields) -> None:
        path = self.root / "manifest.json"
        manifest = json.loads(path.read_text())
        manifest.update(fields)
        self._write_bytes(path, json.dumps(manifest, indent=2).encode())

    def stored_games(self) -> set[int]:
        """The ids of the games stored (those of the finished chunks)."""
        folder = self.root / "games"
        if not folder.is_dir():
            return set()
        ids = ds.dataset(folder, format="parquet", schema=self.schemas["games"]
                         ).to_table(columns=["game_id"])
        return set(ids.column("game_id").to_pylist())

    def write_chunk(self, first_game: int, tables: dict[str, pa.Table]) -> None:
        """Store one chunk's tables atomically (each checked against its schema), in files
        named by the chunk's first game id."""
        staged = []
        for name in ORDER:
            table = tables[name].cast(self.schemas[name])
            final = self.root / name / chunk_file(first_game)
            tmp = final.with_name(f".{final.name}.tmp")
            pq.write_table(table, tmp)
            staged.append((tmp, final))
        for tmp, final in staged:
            os.replace(tmp, final)

    def _manifest(self) -> dict[str, Any]:
        try:
            return json.loads((self.root / "manifest.json").read_text())
        except (OSError, ValueError):  # none yet, or unreadable
            return {}

    def _write_bytes(self, path: Path, data: bytes) -> None:
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)

"""A tournament's output folder: one Parquet file per chunk and table, written atomically.

Layout: DIR/manifest.json, DIR/games/chunk-000017.parquet, DIR/seats/..., DIR/deals/...
Each chunk's tables are written to hidden temp files (`pyarrow.dataset` skips names that
start with "."), then renamed into place, `games` last: a chunk is finished exactly when its
`games` file exists. A re-run skips finished chunks and rewrites any other, so an interrupted
tournament resumes without losing or duplicating a game.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

ORDER = ("deals", "seats", "games")  # games last: its file marks the chunk finished


class StoreError(ValueError):
    """The output folder cannot be used (unwritable, or holds another tournament)."""


def chunk_file(chunk: int) -> str:
    return f"chunk-{chunk:06d}.parquet"


class Store:
    """The output folder of one tournament (identified by its config hash), whose tables have
    the `schemas` of `tournaments.schema.tables`."""

    def __init__(self, root: str | Path, config_hash: str, schemas: dict[str, pa.Schema]
                 ) -> None:
        self.root = Path(root)
        self.config_hash = config_hash
        self.schemas = schemas

    def prepare(self, manifest: dict) -> None:
        """Create the folder (or check it is this tournament's) and write the manifest."""
        try:
            for table in self.schemas:
                (self.root / table).mkdir(parents=True, exist_ok=True)
            probe = tempfile.NamedTemporaryFile(dir=self.root, prefix=".probe", delete=True)
            probe.close()
        except OSError as err:
            raise StoreError(f"output folder {self.root}: not writable ({err.strerror})") from None
        path = self.root / "manifest.json"
        if path.exists():
            old = json.loads(path.read_text())
            if old.get("config_hash") != self.config_hash:
                raise StoreError(
                    f"output folder {self.root} holds another tournament (config hash "
                    f"{old.get('config_hash')}, this one {self.config_hash}); choose another "
                    "--output or delete it")
            manifest = {**manifest, "started": old.get("started", manifest.get("started"))}
        self._write_bytes(path, json.dumps({**manifest, "config_hash": self.config_hash},
                                           indent=2).encode())

    def update_manifest(self, **fields) -> None:
        path = self.root / "manifest.json"
        manifest = json.loads(path.read_text())
        manifest.update(fields)
        self._write_bytes(path, json.dumps(manifest, indent=2).encode())

    def finished_chunks(self) -> set[int]:
        """The chunks whose games are stored."""
        names = os.listdir(self.root / "games") if (self.root / "games").is_dir() else []
        return {int(n[6:12]) for n in names if n.startswith("chunk-") and n.endswith(".parquet")}

    def write_chunk(self, chunk: int, tables: dict[str, pa.Table]) -> None:
        """Store one chunk's tables atomically (each checked against its schema)."""
        staged = []
        for name in ORDER:
            table = tables[name].cast(self.schemas[name])
            final = self.root / name / chunk_file(chunk)
            tmp = final.with_name(f".{final.name}.tmp")
            pq.write_table(table, tmp)
            staged.append((tmp, final))
        for tmp, final in staged:
            os.replace(tmp, final)

    def _write_bytes(self, path: Path, data: bytes) -> None:
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)

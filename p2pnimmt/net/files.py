"""Where a node keeps its transcript and its private secrets on disk."""

from __future__ import annotations

import os
from pathlib import Path

from ..protocol.identity import Identity
from ..protocol.transcript import TranscriptJournal


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "p2pnimmt"


class AppendFile:
    """Append-only bytes, flushed at every write (a crash loses nothing that was accepted)."""

    def __init__(self, path: Path, private: bool = False) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
        self.fd = os.open(path, flags, 0o600 if private else 0o644)
        if private:
            os.chmod(path, 0o600)
        self.path = path

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def close(self) -> None:
        os.close(self.fd)


def transcript_journal(path: Path, identity: Identity) -> tuple[TranscriptJournal, list[AppendFile]]:
    """A journal writing the transcript to `path` and the secrets to `path` + '.secrets' (mode 0600)."""
    if path.exists() and path.stat().st_size:
        raise FileExistsError(f"{path} already exists: choose another --transcript")
    transcript = AppendFile(path)
    secrets = AppendFile(path.with_name(path.name + ".secrets"), private=True)
    return TranscriptJournal(transcript.write, identity, secrets.write), [transcript, secrets]

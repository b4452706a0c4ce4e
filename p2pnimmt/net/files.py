"""Where a node keeps its transcript and its private secrets on disk."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from ..protocol.identity import Identity
from ..protocol.transcript import TranscriptJournal, records, secret_records


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "p2pnimmt"


class InUse(OSError):
    """Another process writes this transcript: two copies of one peer would sign conflicting messages."""


class AppendFile:
    """Append-only bytes, written straight to the file (a crash loses nothing that was accepted).

    With `lock`, the file is locked for this process: a second process
    playing the same peer from the same files is refused.
    """

    def __init__(self, path: Path, private: bool = False, lock: bool = False) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
        self.fd = os.open(path, flags, 0o600 if private else 0o644)
        if private:
            os.chmod(path, 0o600)
        if lock:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(self.fd)
                raise InUse(f"{path} is in use by another p2pnimmt process") from None
        self.path = path

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def close(self) -> None:
        os.close(self.fd)


def secrets_path(path: Path) -> Path:
    return path.with_name(path.name + ".secrets")


def key_path(path: Path) -> Path:
    return path.with_name(path.name + ".key")


def transcript_journal(path: Path, identity: Identity) -> tuple[TranscriptJournal, list[AppendFile]]:
    """A journal writing the transcript to `path`, the secrets to `path`.secrets and our key to `path`.key (0600)."""
    if path.exists() and path.stat().st_size:
        raise FileExistsError(f"{path} already exists: choose another --transcript")
    key = AppendFile(key_path(path), private=True)
    key.write(identity.secret)
    key.close()
    transcript = AppendFile(path, lock=True)
    secrets = AppendFile(secrets_path(path), private=True)
    return TranscriptJournal(transcript.write, identity, secrets.write), [transcript, secrets]


def continue_journal(path: Path) -> tuple[Identity, TranscriptJournal, list[bytes], list[dict], list[AppendFile]]:
    """Everything a restarted peer needs from its files: its key, a journal appending to its transcript,
    the messages it had accepted and its secrets (the 'node' record says where it was)."""
    transcript = AppendFile(path, lock=True)
    identity = Identity(key_path(path).read_bytes())
    data = path.read_bytes()
    secrets = secret_records(secrets_path(path).read_bytes())
    wires = [payload for kind, payload in records(data) if kind == "msg"]
    secret_file = AppendFile(secrets_path(path), private=True)
    journal = TranscriptJournal.continuing(data, transcript.write, identity, secret_file.write)
    return identity, journal, wires, secrets, [transcript, secret_file]

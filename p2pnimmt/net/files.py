"""Where a node keeps its transcript and its private secrets on disk, and how it writes them.

Every record goes to its file in one append, written whole or not at all:
a write that fails (a full disk) is cut back to the end of the last whole
record, and then nothing more is written to the node's files, so a crash
or a full disk leaves at worst a cut tail (`torn_tail` finds it, resume
trims it). One identity plays at most one seat at a time on a machine
(`IdentityLock`), however its files were copied.
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import msgpack

from ..protocol.codec import DecodeError, decode
from ..protocol.identity import Identity
from ..protocol.transcript import MAX_RECORD, TranscriptJournal, frames, records, secret_records


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "p2pnimmt"


def lock_dir() -> Path:
    """Where the identity locks live: the user's runtime directory if there is one, else the data directory."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        return Path(runtime) / "p2pnimmt" / "seats"
    return data_dir() / "seats"


class InUse(OSError):
    """Another process writes this transcript or plays this identity: two copies of one peer would sign
    conflicting messages."""


class WriteFailed(OSError):
    """A write to the node's transcript or secrets failed; the file ends with its last whole record and
    nothing more is written to it."""


class FileSet:
    """The files one node writes; the first failed write stops every later write to any of them."""

    def __init__(self) -> None:
        self.files: list[AppendFile] = []
        self.failure: WriteFailed | None = None
        self._listeners: list[Callable[[WriteFailed], None]] = []

    def watch(self, listener: Callable[[WriteFailed], None]) -> None:
        """Call `listener(failure)` once, when a write fails (at once if one has)."""
        self._listeners.append(listener)
        if self.failure is not None:
            listener(self.failure)

    def failed(self, failure: WriteFailed) -> None:
        if self.failure is None:
            self.failure = failure
            for listener in list(self._listeners):
                listener(failure)

    def open(self, path: Path, private: bool = False, lock: bool = False) -> AppendFile:
        f = AppendFile(path, private=private, lock=lock, group=self)
        self.files.append(f)
        return f

    def close(self) -> None:
        for f in self.files:
            f.close()
        self.files.clear()


class AppendFile:
    """Append-only bytes, straight to the file: each write() is one record, on disk whole or not at all.

    With `lock`, the file is locked for this process: a second process
    playing the same peer from the same files is refused.
    """

    def __init__(self, path: Path, private: bool = False, lock: bool = False, group: FileSet | None = None) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
        self.fd: int | None = os.open(path, flags, 0o600 if private else 0o644)
        if private:
            os.chmod(path, 0o600)
        if lock:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(self.fd)
                raise InUse(f"{path} is in use by another p2pnimmt process") from None
        self.path = path
        self.size = os.fstat(self.fd).st_size
        self.group = group if group is not None else FileSet()

    def write(self, data: bytes) -> None:
        failure = self.group.failure
        if failure is not None:
            raise WriteFailed(failure.errno, f"not written after the earlier failure ({failure.strerror})",
                              str(self.path))
        assert self.fd is not None, "written after close"
        done = 0
        try:
            while done < len(data):
                n = os.write(self.fd, data[done:])
                if n <= 0:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                done += n
        except OSError as exc:
            if done:
                try:
                    os.ftruncate(self.fd, self.size)  # back to the last whole record
                except OSError:
                    pass  # then resume finds a torn last record and trims it
            failure = WriteFailed(exc.errno or errno.EIO, exc.strerror or str(exc), str(self.path))
            self.group.failed(failure)
            raise failure from None
        self.size += done

    def truncate(self, size: int) -> None:
        """Cut the file back to `size` bytes (a torn last record)."""
        assert self.fd is not None, "truncated after close"
        os.ftruncate(self.fd, size)
        self.size = size

    def flush(self) -> None:
        """To the disk itself (at the seal: the finished transcript survives a power cut)."""
        if self.fd is not None:
            try:
                os.fsync(self.fd)
            except OSError:
                pass

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


class IdentityLock:
    """While held, no other process on this machine plays this identity (an flock on a file named by its key).

    Released (and its file removed) by release(), or by the system when the process dies.
    """

    def __init__(self, identity: Identity, directory: Path | None = None) -> None:
        folder = directory if directory is not None else lock_dir()
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{identity.peer.hex()}.lock"
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise InUse(f"this identity ({identity.fingerprint}) is in use by another p2pnimmt process "
                            "on this machine (one identity plays one seat at a time)") from None
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:  # not a file a releasing process removed between our open and our lock
                self.fd: int | None = fd
                os.write(fd, f"{os.getpid()}\n".encode())
                return
            os.close(fd)

    def release(self) -> None:
        if self.fd is not None:
            try:
                os.unlink(self.path)
            except OSError:
                pass
            os.close(self.fd)
            self.fd = None


def secrets_path(path: Path) -> Path:
    return path.with_name(path.name + ".secrets")


def key_path(path: Path) -> Path:
    return path.with_name(path.name + ".key")


def transcript_journal(path: Path, identity: Identity, files: FileSet) -> TranscriptJournal:
    """A journal writing the transcript to `path`, the secrets to `path`.secrets and our key to `path`.key (0600)."""
    if path.exists() and path.stat().st_size:
        raise FileExistsError(f"{path} already exists: choose another --transcript")
    key = AppendFile(key_path(path), private=True)
    try:
        key.write(identity.secret)
    finally:
        key.close()
    transcript = files.open(path, lock=True)
    secrets = files.open(secrets_path(path), private=True)
    return TranscriptJournal(transcript.write, identity, secrets.write)


def _incomplete(partial: bytes) -> bool:
    """True if `partial` is the start of one msgpack value cut short (not a whole value, not garbage)."""
    unpacker = msgpack.Unpacker(max_buffer_size=MAX_RECORD)
    unpacker.feed(partial)
    try:
        unpacker.unpack()
    except msgpack.OutOfData:
        return True
    except Exception:  # not msgpack at all: damage, not a cut
        return False
    return False


def torn_tail(data: bytes) -> int | None:
    """Where a torn last frame starts — the last write cut short by a crash or a full disk — or None.

    Torn: fewer than 4 bytes of length at the end, or a last frame whose
    bytes are the start of one record cut short (or all zero, as a crash
    can leave them). A frame that announces more than the file holds but is
    followed by whole records is damage, not a cut: None (verification
    reports it).
    """
    offset = 0
    while offset < len(data):
        if not any(data[offset:]):
            return offset
        if offset + 4 > len(data):
            return offset
        size = int.from_bytes(data[offset : offset + 4], "big")
        if size > MAX_RECORD:
            return None
        if offset + 4 + size > len(data):
            return offset if _incomplete(data[offset + 4 :]) else None
        offset += 4 + size
    return None


@dataclass
class OwnFiles:
    """What a restarted peer read back from its files (a torn last record already trimmed)."""

    identity: Identity
    data: bytes  # the transcript
    secrets: list[dict]
    trimmed: list[str]  # what was trimmed, for the user


def _readable(data: bytes) -> int:
    """How many whole frames that decode stand at the start of `data` (the number of the first bad one)."""
    count = 0
    try:
        for _offset, record in frames(data):
            decode(record, MAX_RECORD)
            count += 1
    except DecodeError:
        pass
    return count


def own_messages(data: bytes) -> list[bytes]:
    """The messages a checked transcript's recorder had accepted, in order."""
    return [payload for kind, payload in records(data) if kind == "msg"]


def read_key(path: Path) -> Identity:
    """The identity whose key file goes with the transcript at `path`."""
    return Identity(key_path(path).read_bytes())


def read_own_files(path: Path, files: FileSet) -> tuple[OwnFiles, Callable[[], TranscriptJournal]]:
    """Lock and read back a peer's transcript, secrets and key; a torn last record of either file is cut off.

    Returns the files and what makes the journal that appends to them
    (call it once the transcript has been checked: nothing is written before).
    """
    identity = read_key(path)
    transcript = files.open(path, lock=True)
    trimmed = []
    data = path.read_bytes()
    cut = torn_tail(data)
    if cut is not None:
        transcript.truncate(cut)
        trimmed.append(f"a torn last record of the transcript ({len(data) - cut} bytes at byte {cut})")
        data = data[:cut]
    secret_file = files.open(secrets_path(path), private=True)
    secret_data = secrets_path(path).read_bytes()
    cut = torn_tail(secret_data)
    if cut is not None:
        secret_file.truncate(cut)
        trimmed.append(f"a torn last record of the secrets ({len(secret_data) - cut} bytes at byte {cut})")
        secret_data = secret_data[:cut]
    try:
        secrets = secret_records(secret_data)
    except DecodeError as exc:
        raise DecodeError(f"the secrets file is damaged at its record {_readable(secret_data)}: {exc}") from None

    def journal() -> TranscriptJournal:
        return TranscriptJournal.continuing(data, transcript.write, identity, secret_file.write)

    return OwnFiles(identity, data, secrets, trimmed), journal

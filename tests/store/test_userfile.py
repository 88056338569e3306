"""Files the user names: read whole up to a bound, a FIFO with a time bound, each refusal
one line naming the file."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from statki_net.store.language import catalog
from statki_net.store.userfile import InputFileError, TooLarge, read_user_file, read_user_text


def _fifo_written(path: Path, data: bytes, after: float) -> threading.Thread:
    """A writer that opens the FIFO ``after`` seconds from now, writes ``data`` and closes it."""
    os.mkfifo(path)

    def write() -> None:
        time.sleep(after)
        with open(path, "wb") as fifo:
            fifo.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    return writer


def test_a_fifo_named_is_read_to_its_end_when_a_writer_comes(tmp_path: Path) -> None:
    data = os.urandom(200_000)  # more than one pipe's buffer
    writer = _fifo_written(tmp_path / "fifo", data, after=0.2)
    assert read_user_file(str(tmp_path / "fifo"), limit=1 << 20, seconds=10) == data
    writer.join()


def test_a_fifo_nobody_writes_to_is_given_up_on_in_time(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    started = time.monotonic()
    with pytest.raises(InputFileError, match=r"fifo: nothing more came in 0\.3 s"):
        read_user_file(str(tmp_path / "fifo"), limit=100, seconds=0.3)
    assert time.monotonic() - started < 5


def test_the_seconds_waited_are_said_with_a_decimal_comma_in_polish(tmp_path: Path) -> None:
    """Polish printed "0.3 s": a point, in a language that writes a comma."""
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(InputFileError) as refused:
        read_user_file(str(tmp_path / "fifo"), limit=100, seconds=0.3)
    assert "0,3 s" in refused.value.in_words(catalog("pl")), refused.value.in_words(catalog("pl"))
    assert "0.3 s" in str(refused.value), "English, as the logs keep it"


def test_more_than_the_bound_is_refused_keeping_the_start(tmp_path: Path) -> None:
    (tmp_path / "big").write_bytes(b"x" * 5000)
    with pytest.raises(TooLarge, match="big: larger than any fleet") as refused:
        read_user_file(str(tmp_path / "big"), limit=4096, what="fleet")
    assert refused.value.start.startswith(b"xxxx")
    with pytest.raises(TooLarge):
        read_user_file("/dev/zero", limit=4096, seconds=5)  # a device that never ends
    assert read_user_file(str(tmp_path / "big"), limit=5000) == b"x" * 5000


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda p: None, "no such file"),
        (lambda p: p.mkdir(), "is a folder, not a fleet"),
        (lambda p: p.write_bytes(b"\xff\xfe"), "not a text file"),
        (lambda p: p.symlink_to(p), "Too many levels of symbolic links"),
    ],
    ids=["missing", "folder", "binary", "link loop"],
)
def test_each_refusal_names_the_file_and_why(
    tmp_path: Path, make: Callable[[Path], object], reason: str
) -> None:
    path = tmp_path / "named"
    make(path)
    with pytest.raises(InputFileError) as refused:
        read_user_text(str(path), limit=100, what="fleet")
    assert str(refused.value).startswith(f"{path}: ") and reason in str(refused.value.reason)
    assert "\n" not in str(refused.value)

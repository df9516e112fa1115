"""A zip on a web server opened in place: `zipfile` reads it through HTTP range requests, so
only the central directory and the members asked for are downloaded, never the whole wheel."""

from __future__ import annotations

import io
from typing import Any

import requests

from auditor.errors import HarvestError

_TIMEOUT = 60
BLOCK = 8 << 20  # bytes per range request


class RangeFile(io.RawIOBase):
    """A read-only, seekable view of `url` whose reads are range requests; `fetched` counts the
    bytes downloaded."""

    def __init__(
        self, url: str, session: requests.Session | None = None, size: int | None = None
    ) -> None:
        """`size`: the file's length when the index listed it (no HEAD request then)."""
        super().__init__()
        self.url = url
        self.session = session or requests.Session()
        self.position = 0
        self.fetched = 0
        if size is not None:
            self.size = size
            return
        try:
            head = self.session.head(url, allow_redirects=True, timeout=_TIMEOUT)
            head.raise_for_status()
            self.size = int(head.headers["Content-Length"])
        except (requests.RequestException, KeyError, ValueError) as exc:
            raise HarvestError(f"{url}: cannot read its size ({exc})") from exc

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: self.size}[whence]
        self.position = max(0, base + offset)
        return self.position

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        end = min(self.position + len(view), self.size)
        if end <= self.position:
            return 0
        try:
            with self.session.get(
                self.url,
                headers={"Range": f"bytes={self.position}-{end - 1}"},
                timeout=_TIMEOUT,
                stream=True,
            ) as response:
                response.raise_for_status()
                if response.status_code != 206:  # the whole file would follow: not read
                    raise HarvestError(
                        f"{self.url}: the server does not answer range requests "
                        f"(status {response.status_code})"
                    )
                data = response.content
        except requests.RequestException as exc:
            raise HarvestError(
                f"{self.url}: range {self.position}-{end - 1} failed ({exc})"
            ) from exc
        if len(data) != end - self.position:
            raise HarvestError(
                f"{self.url}: range {self.position}-{end - 1} gave {len(data)} bytes"
            )
        view[: len(data)] = data
        self.position += len(data)
        self.fetched += len(data)
        return len(data)


def open_remote(
    url: str, session: requests.Session | None = None, size: int | None = None, block: int = BLOCK
) -> tuple[RangeFile, io.BufferedReader]:
    """The raw range file (for its byte count) and a buffered reader over it for `zipfile`;
    `block`: the least one range request asks for."""
    raw = RangeFile(url, session, size)
    return raw, io.BufferedReader(raw, buffer_size=block)

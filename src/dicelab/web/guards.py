"""Requests refused before any route sees them: bodies too large, foreign hosts.

A page on another site cannot read this server's answers (no CORS headers), but
through DNS rebinding its own name can come to point at 127.0.0.1: the browser
then sends that name as the ``Host`` header. Serving only the names this server
is known by (and IP addresses, which no rebinding produces) shuts that door.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

#: Largest request body accepted, in bytes.
MAX_BODY = 256 * 1024

#: Host names served whatever ``dicelab serve`` was told (IP addresses always are).
LOCAL_NAMES = ("localhost",)


class BodyLimit:
    """ASGI middleware: refuse request bodies over ``limit`` bytes with 413."""

    def __init__(self, app, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                await _refuse(scope, receive, send, 413, self._message())
                return
        seen = 0

        async def counted_receive():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise StarletteHTTPException(413, self._message())
            return message

        await self.app(scope, counted_receive, send)

    def _message(self) -> str:
        return f"request body over {self.limit} bytes"


def host_name(header: str) -> str:
    """The name or address of a ``Host`` header, without its port or brackets,
    in lower case."""
    header = header.strip().lower()
    if header.startswith("["):  # [IPv6]:port
        return header[1:].split("]", 1)[0]
    if header.count(":") == 1:
        header = header.split(":", 1)[0]
    return header.removesuffix(".")


def is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class HostCheck:
    """ASGI middleware: answer 400 to a request whose ``Host`` header names
    neither an IP address nor one of ``names`` (lower case, no port)."""

    def __init__(self, app, names: Iterable[str] = ()) -> None:
        self.app = app
        self.names = {n.lower() for n in (*LOCAL_NAMES, *names)}

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] in ("http", "websocket"):
            header = next((v for k, v in scope.get("headers", []) if k == b"host"), None)
            if header is not None:
                name = host_name(_as_typed(header))
                if name not in self.names and not is_address(name):
                    await _refuse(scope, receive, send, 400, self._message(name))
                    return
        await self.app(scope, receive, send)

    def _message(self, name: str) -> str:
        shown = name if name.isprintable() and len(name) <= 80 else repr(name[:80])
        known = ", ".join(sorted(self.names))
        return (
            f"host {shown!r} is not a name of this server (served: IP addresses, {known}; "
            "dicelab serve --allow-host NAME adds one)"
        )


def _as_typed(header: bytes) -> str:
    """A header's text as the client typed it: UTF-8 where it is (a browser sends a
    name of other letters so), else each byte a character (Latin-1, as HTTP has it)."""
    try:
        return header.decode("utf-8")
    except UnicodeDecodeError:
        return header.decode("latin-1")


async def _refuse(scope, receive, send, status: int, detail: str) -> None:
    await JSONResponse({"detail": detail}, status_code=status)(scope, receive, send)

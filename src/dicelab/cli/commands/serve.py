"""``dicelab serve``: the play-along web page and its JSON API."""

from __future__ import annotations

import typer

from dicelab.cli.app import app, fail


@app.command("serve")
def serve_command(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8000, "--port", help="Port to listen on."),
    log_level: str = typer.Option(
        "info", "--log-level", help="Server log level (warning: no line per request)."
    ),
    allow_host: list[str] = typer.Option(
        [],
        "--allow-host",
        help="Another host name to serve requests for (repeatable); IP addresses, "
        "localhost and --host always are.",
    ),
    max_memory: str | None = typer.Option(
        None,
        "--max-memory",
        help="Memory one solve may take, and the tables kept, e.g. 4G or 500M "
        "(default: 3/4 of this machine's).",
    ),
    max_solve_seconds: int = typer.Option(
        3600, "--max-solve-seconds", help="Longest solve: refused if expected longer, else stopped."
    ),
    cache_limit: str | None = typer.Option(
        None,
        "--cache-limit",
        help="Disk the table cache may fill, e.g. 2G (0: no limit; default: "
        "DICELAB_CACHE_LIMIT, else 4 GiB or a quarter of the free disk).",
    ),
) -> None:
    """Serve the play-along web page and its JSON API (docs at /docs)."""
    import os

    from dicelab.engine.runtime.budget import LIMIT_VARIABLE, parse_size
    from dicelab.web.app import run

    memory = None if max_memory is None else parse_bytes(max_memory)
    if cache_limit is not None:  # the server and its workers keep to it
        try:
            os.environ[LIMIT_VARIABLE] = str(parse_size(cache_limit))
        except ValueError:
            fail(f"cache limit: got {cache_limit!r}, expected a size such as 2G or 500M "
                 "(0: no limit)")  # fmt: skip
    if max_solve_seconds < 1:
        fail(f"max solve seconds: got {max_solve_seconds}, expected at least 1")
    if not 0 <= port <= 65535:
        fail(f"port: got {port}, expected 0 to 65535")
    levels = ("critical", "error", "warning", "info", "debug")
    if log_level not in levels:
        fail(f"log level: got {log_level!r}, expected one of: {', '.join(levels)}")
    _check_listen(host, port)
    typer.echo(f"dicelab: the page is at http://{host}:{port}/ (API docs at /docs)")
    run(
        host=host,
        port=port,
        log_level=log_level,
        allow_hosts=allow_host,
        max_memory=memory,
        max_seconds=max_solve_seconds,
    )


def parse_bytes(text: str) -> int:
    """``4G``, ``500M``, ``64K`` or a number of bytes, or one line saying what is wrong
    (a size under 64M, or over this machine's memory: no worker could be given it)."""
    from dicelab.engine.runtime.cost import human_bytes, machine_memory

    units = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
    word = text.strip().upper().removesuffix("IB").removesuffix("B")
    scale = units.get(word[-1:], 1)
    number = word[:-1] if word[-1:] in units else word
    try:
        value = float(number) * scale
    except ValueError:
        value = -1
    if not value >= 64 * 2**20:
        fail(f"max memory: got {text!r}, expected a size of at least 64M such as 4G or 500M")
    most = machine_memory()
    if not value <= most:  # infinite, or more than this machine has
        fail(f"max memory: got {text!r}, expected at most this machine's memory, "
             f"{human_bytes(most)}, such as 4G or 500M")  # fmt: skip
    return int(value)


def _check_listen(host: str, port: int) -> None:
    """Fail in one line, before the server starts, if it could not listen there."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        fail(f"host: cannot listen on {host!r}: {exc}")
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            fail(f"cannot listen on {host}:{port}: {reason} (another server there? try --port)")

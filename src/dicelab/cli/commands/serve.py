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
) -> None:
    """Serve the play-along web page and its JSON API (docs at /docs)."""
    from dicelab.web.app import run

    if not 0 <= port <= 65535:
        fail(f"port: got {port}, expected 0 to 65535")
    levels = ("critical", "error", "warning", "info", "debug")
    if log_level not in levels:
        fail(f"log level: got {log_level!r}, expected one of: {', '.join(levels)}")
    _check_listen(host, port)
    typer.echo(f"dicelab: the page is at http://{host}:{port}/ (API docs at /docs)")
    run(host=host, port=port, log_level=log_level, allow_hosts=allow_host)


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

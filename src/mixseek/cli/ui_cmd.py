"""`mixseek ui`: serve the dashboard of a workspace (needs the `mixseek[ui]` extra). A bind other than
127.0.0.1 reaches other machines, so it needs a token of at least 16 characters. The socket is bound before
the server starts, so a port in use is one line, not a log."""

from __future__ import annotations

import gc
import socket
from typing import Annotated

import typer

from mixseek.cli.errors import cli_errors
from mixseek.cli.options import WorkspaceOption
from mixseek.config.workspace import resolve_workspace
from mixseek.errors import InputError

TOKEN_ENV = "MIXSEEK_UI_TOKEN"
UI_PACKAGES = ("starlette>=0.46", "uvicorn>=0.34", "python-multipart>=0.0.20")
"""The `ui` extra's packages. The hint names them rather than `mixseek[ui]`, which fails for someone
who installed mixseek from a clone (as `llm.builtin`'s hint names pydantic-ai-slim's extras)."""
MISSING_EXTRA = "the dashboard needs the ui extra: pip install " + " ".join(f"'{p}'" for p in UI_PACKAGES)


def _listen(host: str, port: int) -> socket.socket:
    """A socket listening on host:port (port 0: a free one)."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except socket.gaierror as exc:
        raise InputError(f"--host {host}: cannot resolve it ({exc.strerror})") from None
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise InputError(f"--port {port}: cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


@cli_errors
def ui_command(
    workspace: WorkspaceOption = None,
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on; other than loopback needs --token.")
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, metavar="PORT", help="Port (0: any free one).")
    ] = 8765,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            envvar=TOKEN_ENV,
            help=f"Require this token of every request (also ${TOKEN_ENV}); 16+ characters off loopback.",
            show_default=False,
            show_envvar=False,
        ),
    ] = None,
) -> None:
    """Serve a web dashboard of the workspace: runs, executions live, submissions; start and stop."""
    try:
        import uvicorn

        from mixseek.ui.app import create_app
        from mixseek.ui.server import DashboardServer
        from mixseek.ui.settings import MIN_REMOTE_TOKEN_CHARS, UISettings, is_loopback
    except ImportError:
        raise InputError(MISSING_EXTRA) from None
    token = token or None
    if not is_loopback(host) and token is None:
        raise InputError(f"--host {host}: a non-loopback bind needs --token (or {TOKEN_ENV})")
    if not is_loopback(host) and token is not None and len(token) < MIN_REMOTE_TOKEN_CHARS:
        raise InputError(
            f"--token (or {TOKEN_ENV}): a non-loopback bind needs a token of at least "
            f"{MIN_REMOTE_TOKEN_CHARS} characters (got {len(token)})"
        )
    ws = resolve_workspace(workspace)
    sock = _listen(host, port)
    port = int(sock.getsockname()[1])
    settings = UISettings(workspace=ws, host=host, port=port, token=token)
    app = create_app(settings)
    # What is loaded now lives as long as the server: kept out of the collector's full passes,
    # which otherwise walk it all while a large execution's page is built (~60 ms a time).
    gc.freeze()
    config = uvicorn.Config(app, log_level="warning", server_header=False)
    server = DashboardServer(config)  # ends the pages' live streams when it stops
    typer.echo(f"mixseek ui: {ws.root} on {_url(host, port)} (Ctrl-C to stop)")
    if token is not None:
        typer.echo("open it once with ?token=TOKEN (or send 'Authorization: Bearer TOKEN')")
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()

"""The dashboard's HTTP server: uvicorn's, which ends the live streams before it stops.

uvicorn stops by waiting for every open response to end, and an execution page's live stream lasts
as long as its execution runs (`ui.live`): without a word from the server, a Ctrl-C would wait for
the execution. So the server sets the app's `streams_closing` first, and each stream ends within
one poll of the store.
"""

from __future__ import annotations

import socket

import uvicorn
from starlette.applications import Starlette

from mixseek.ui.live import streams_closing


class DashboardServer(uvicorn.Server):
    """A uvicorn server of the dashboard (`ui.app.create_app`)."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        app = self.config.app
        if isinstance(app, Starlette):
            streams_closing(app).set()
        await super().shutdown(sockets=sockets)

"""The dashboard's HTTP server: uvicorn's, which first tells the live streams to end (a stream lasts as
long as its execution, and uvicorn waits for every open response)."""

from __future__ import annotations

import socket

import uvicorn
from starlette.applications import Starlette

from mixseek.ui.live import streams_closing


class DashboardServer(uvicorn.Server):
    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        app = self.config.app
        if isinstance(app, Starlette):
            streams_closing(app).set()
        await super().shutdown(sockets=sockets)

"""The dashboard's server: uvicorn's, ending the live streams first (uvicorn waits for open responses)."""

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

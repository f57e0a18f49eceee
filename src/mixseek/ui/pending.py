"""The execution page before its row exists: its process starts (reloaded each second) or ended (why)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from mixseek.ui.launcher import launch_state, log_path
from mixseek.ui.reads import read_store, ui_settings
from mixseek.ui.templating import render

RELOAD_SECONDS = 1


async def launch_page(request: Request, execution_id: str) -> Response | None:
    """The page of an execution this dashboard started but the store does not hold yet; else None."""
    settings = ui_settings(request)
    state = launch_state(settings.workspace, execution_id)
    if state is None:
        return None
    if not state.running:
        # it may have written the execution after the caller looked, and then ended
        found = await read_store(settings.db_path, lambda store: store.get_execution(execution_id), None)
        if found is not None:
            return RedirectResponse(request.url.path, status_code=303)
    context = {
        "execution_id": execution_id,
        "state": state,
        "log": str(log_path(settings.workspace, execution_id)),
    }
    response = render(request, "execution_pending.html", context)
    if state.running:
        response.headers["refresh"] = str(RELOAD_SECONDS)
    return response

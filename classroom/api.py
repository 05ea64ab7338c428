"""The live class's public read-only HTTP endpoint, as Starlette routes for st.App:
GET /api/classes/CODE answers the class's public state as JSON (no secret, no device id);
a refused request gets {"error": "..."} with the store error's status (400 malformed
code, 404 unknown, 410 closed)."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from classroom.store import ClassStore, ClassStoreError

# Live numbers: no cache may answer for the store.
_HEADERS = {"Cache-Control": "no-store"}


def class_routes(store: ClassStore) -> list[Route]:
    """The routes reading `store` (the blocking store calls run in a worker thread)."""

    async def class_state(request: Request) -> JSONResponse:
        try:
            state = await run_in_threadpool(store.state, request.path_params["code"])
        except ClassStoreError as error:
            return JSONResponse({"error": str(error)}, status_code=error.status, headers=_HEADERS)
        return JSONResponse(state.to_json(), headers=_HEADERS)

    return [Route("/api/classes/{code}", class_state, methods=["GET"])]

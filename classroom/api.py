"""The live class's HTTP endpoints, as Starlette routes for st.App (mounted by main.py):
GET /api/classes/CODE answers the class's public state as JSON (no secret, no device id);
GET /api/classes/CODE/events streams what students' screens draw (classroom.events);
GET /api/classes/CODE/results.csv answers the lecturer only, whose secret comes in the
`Authorization: Bearer SECRET` header (never in the URL, which logs and QR codes keep).
A refused request gets {"error": "..."} with the store error's status (400 malformed code,
403 not the lecturer, 404 unknown, 410 closed, 503 the store cannot be reached just now)."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from classroom.events import STREAM_SECONDS, ClassWatchers
from classroom.results_csv import results_csv
from classroom.store import ClassStore, ClassStoreError, NotAllowedError

# Live numbers: no cache may answer for the store.
_HEADERS = {"Cache-Control": "no-store"}


def class_routes(
    store: ClassStore,
    watchers: ClassWatchers | None = None,
    stream_seconds: float = STREAM_SECONDS,
) -> list[Route]:
    """The routes reading `store` (the blocking store calls run in a worker thread);
    events come from `watchers` (new ones by default), each stream lasting
    `stream_seconds` before the browser reconnects."""
    watchers = watchers or ClassWatchers(store)

    async def class_state(request: Request) -> JSONResponse:
        try:
            state = await run_in_threadpool(store.state, request.path_params["code"])
        except ClassStoreError as error:
            return JSONResponse({"error": str(error)}, status_code=error.status, headers=_HEADERS)
        return JSONResponse(state.to_json(), headers=_HEADERS)

    async def class_events(request: Request) -> Response:
        try:  # a bad, unknown or closed code: an error the browser does not retry
            state = await run_in_threadpool(store.state, request.path_params["code"])
        except ClassStoreError as error:
            return JSONResponse({"error": str(error)}, status_code=error.status, headers=_HEADERS)
        return StreamingResponse(
            watchers.stream(state.code, stream_seconds),
            media_type="text/event-stream",
            headers={**_HEADERS, "X-Accel-Buffering": "no"},  # nginx: pass each event on
        )

    async def class_results(request: Request) -> Response:
        scheme, _, secret = request.headers.get("authorization", "").partition(" ")
        try:
            if scheme.lower() != "bearer" or not secret:
                raise NotAllowedError("Only the lecturer can do this: send Authorization: Bearer.")
            results = await run_in_threadpool(
                store.results, request.path_params["code"], secret.strip()
            )
        except ClassStoreError as error:
            return JSONResponse({"error": str(error)}, status_code=error.status, headers=_HEADERS)
        return Response(results_csv(results), media_type="text/csv", headers=_HEADERS)

    return [
        Route("/api/classes/{code}", class_state, methods=["GET"]),
        Route("/api/classes/{code}/events", class_events, methods=["GET"]),
        Route("/api/classes/{code}/results.csv", class_results, methods=["GET"]),
    ]

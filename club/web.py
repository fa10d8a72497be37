"""The scoreboard, the JSON API and the director's page (Starlette, served by uvicorn).

    GET  /                 the scoreboard: live scores per table, results, standings
    GET  /api/tables       every table: online or not, live state, mark, games
    GET  /api/standings    final results only: ratings per game, wins over the evening
    GET  /api/stream       server-sent events: {"version", "marks"} whenever the hub changes
    GET  /api/hub          counters: messages refused, copies dropped
    GET  /director         (password) the results with a correction form
    POST /director/correct (password) correct a result: scores, winners, reason

The public routes take GET only: nothing public can change anything. The director logs
in with HTTP Basic auth (user `director`, the password given to `club serve`); behind
TLS on a real network (docs/club.md).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hmac
import html
import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from club.errors import BadCorrection
from club.hubstore import HubStore
from club.page import PAGE

STREAM_EVERY_S = 0.05  # how often the stream looks for a change (at most 20 pushes a second)
HEARTBEAT_S = 15.0


def make_app(store: HubStore, *, director_password: str | None = None) -> Starlette:
    """The web app over `store`. Without a director password the director's page is closed."""
    page = PAGE

    def cached(kind: str) -> Any:
        cache = app.state.cache
        if cache.get("version") != store.version:
            cache.clear()
            cache["version"] = store.version
        if kind not in cache:
            cache[kind] = store.tables() if kind == "tables" else store.standings()
        return cache[kind]

    async def scoreboard(request: Request) -> Response:
        return HTMLResponse(page)

    async def tables(request: Request) -> Response:
        return JSONResponse({"version": store.version, "tables": cached("tables")})

    async def standings(request: Request) -> Response:
        return JSONResponse({"version": store.version, **cached("standings")})

    async def hub(request: Request) -> Response:
        return JSONResponse({"version": store.version, "refused": store.refused,
                             "duplicates_dropped": store.duplicates, "marks": store.marks()})

    async def stream(request: Request) -> Response:
        async def changes() -> AsyncIterator[str]:
            last, quiet = None, 0.0
            while True:
                if store.version != last:
                    last = store.version
                    quiet = 0.0
                    yield f"data: {json.dumps({'version': last, 'marks': store.marks()})}\n\n"
                elif quiet >= HEARTBEAT_S:
                    quiet = 0.0
                    yield ": still here\n\n"
                await asyncio.sleep(STREAM_EVERY_S)
                quiet += STREAM_EVERY_S
        return StreamingResponse(changes(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    def authorised(request: Request) -> bool:
        if not director_password:
            return False
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "basic":
            return False
        try:
            user, _, password = base64.b64decode(token).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return False
        return hmac.compare_digest(user.encode(), b"director") & hmac.compare_digest(
            password.encode(), director_password.encode())

    def login() -> Response:
        if not director_password:
            return PlainTextResponse("The director's page is closed: the hub was started without "
                                     "a director password.", status_code=403)
        return PlainTextResponse("The director's page needs the director's password.", status_code=401,
                                 headers={"WWW-Authenticate": 'Basic realm="club director"'})

    async def director(request: Request) -> Response:
        if not authorised(request):
            return login()
        note = html.escape(request.query_params.get("note", ""))
        rows = []
        for g in store.results():
            winners = ", ".join(str(w + 1) for w in g["winners"])  # as people count seats
            state = ("corrected: " + html.escape(g["correction"]["reason"]) if g["correction"]
                     else "confirmed" if g["final"] else g["status"])
            rows.append(
                f"<tr><td>{html.escape(g['table'])}</td><td>{g['game_id']}</td>"
                f"<td>{html.escape(g['game'])}</td><td>{html.escape(', '.join(g['players']))}</td>"
                f"<td>{html.escape(json.dumps(g['scores']))}</td><td>{html.escape(winners)}"
                f"</td><td>{state}</td></tr>")
        body = (f"<!doctype html><meta name=viewport content='width=device-width'>"
                f"<title>Director</title><h1>Director</h1><p>{note}</p>"
                f"<table border=1><tr><th>table<th>game id<th>game<th>players<th>scores<th>winners"
                f"<th>state</tr>{''.join(rows)}</table><h2>Correct a result</h2>"
                f"<form method=post action='/director/correct'>"
                f"<label>table <input name=table required></label> "
                f"<label>game id <input name=game_id required></label> "
                f"<label>scores (by seat, comma separated) <input name=scores required></label> "
                f"<label>winners (seats, counted from 1) <input name=winners required></label> "
                f"<label>reason <input name=reason required></label> <button>Correct</button></form>")
        return HTMLResponse(body)

    async def correct(request: Request) -> Response:
        if not authorised(request):
            return login()
        # a browser sends Basic credentials with any site's form: only our own page may post
        origin = request.headers.get("origin")
        if origin and urlsplit(origin).netloc != request.headers.get("host"):
            return PlainTextResponse("Not corrected: the form came from another site", status_code=403)
        # the form is url-encoded (no file uploads): parsed here, no python-multipart needed
        raw = await request.body()
        if len(raw) > 10_000:
            return PlainTextResponse("Not corrected: the form is too large", status_code=413)
        form = {k: v[0] for k, v in parse_qs(raw.decode("utf-8", "replace")).items()}
        try:
            table = str(form.get("table", "")).strip()
            game_id = int(str(form.get("game_id", "")).strip())
            scores = [float(x) if "." in x else int(x)
                      for x in str(form.get("scores", "")).replace(" ", "").split(",") if x]
            winners = [int(x) for x in str(form.get("winners", "")).replace(" ", "").split(",") if x]
            if any(w < 1 for w in winners):  # people count seats from 1; the store from 0
                raise BadCorrection(f"winners are seats counted from 1, got {winners}")
            winners = [w - 1 for w in winners]
            store.correct(table, game_id, scores, winners, str(form.get("reason", "")))
        except ValueError as exc:  # BadCorrection too
            text = str(exc) if isinstance(exc, BadCorrection) else f"not a number: {exc}"
            return PlainTextResponse(f"Not corrected: {text}", status_code=400)
        return RedirectResponse(f"/director?note=Corrected+game+{game_id}+at+{table}", status_code=303)

    app = Starlette(routes=[
        Route("/", scoreboard, methods=["GET"]),
        Route("/api/tables", tables, methods=["GET"]),
        Route("/api/standings", standings, methods=["GET"]),
        Route("/api/stream", stream, methods=["GET"]),
        Route("/api/hub", hub, methods=["GET"]),
        Route("/director", director, methods=["GET"]),
        Route("/director/correct", correct, methods=["POST"]),
    ])
    app.state.cache = {}
    return app

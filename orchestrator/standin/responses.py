"""Answers the stand-in gives in Lichess's shape."""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse


def json_error(status: int, body: dict[str, Any]) -> JSONResponse:
    return JSONResponse(body, status_code=status)

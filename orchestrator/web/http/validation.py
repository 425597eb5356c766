"""Request input the database cannot store, refused in one place for every route (docs/input-limits.md).

``check_request_input`` is an application-wide dependency (``create_app``); it runs before each route's
own parameters are used:

- an integer the route declares in its path, or an id (``id``, ``*_id``) in its query string, outside
  1 .. 2^31-1 (the database's ``INTEGER``) is a 404: nothing has that id;
- an integer in a form or JSON body outside that range (ids) or outside -2^31 .. 2^31-1 (other whole
  numbers), and any other query integer outside the latter, is a 422 naming the field;
- text holding what the databases refuse (NUL, lone surrogates: ``domain.names.text_problem``) in a path,
  query, form or JSON field is a 404 (path) or a 422 naming the field.

Form fields are read by the route's input model (``Annotated[Model, Form()]``, the same model as the JSON
body where the two doors take the same fields): a field the model cannot read is a 422 naming it, as for
JSON. A model whose fields are dynamic (one per board) refuses with ``form_problems``, one sentence per
field; ``problems_of`` turns either into the problems the error page and the JSON answer list.

Body sizes (``BodySizeLimit``, before anything is parsed): a JSON body may hold at most
``MAX_UPLOAD_BYTES``, the limit of an uploaded event definition or roster file (the largest things a JSON
request carries); any other body (a form with its upload) at most ``MAX_REQUEST_BYTES``. The app answers
413 with ``TOO_LARGE``.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Iterable, Iterator
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from pydantic import BaseModel, BeforeValidator
from pydantic_core import PydanticCustomError
from starlette.datastructures import Headers, UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from orchestrator.domain.names import text_problem
from orchestrator.errors import NotFound, ValidationFailed
from orchestrator.translation import gettext as _
from orchestrator.web.i18n import N_

MAX_DB_ID = 2**31 - 1  # PostgreSQL INTEGER (the id columns); SQLite stores up to 2^63 - 1
MIN_DB_INT = -(2**31)
MAX_UPLOAD_BYTES = 2_000_000  # an event definition or a roster file
MAX_REQUEST_BYTES = MAX_UPLOAD_BYTES + 64_000  # one upload plus the form's framing and small fields
_TOO_LARGE = N_("The request is larger than %(mb)d MB, the limit for an event definition or a roster file.")
TOO_LARGE = _TOO_LARGE % {"mb": MAX_UPLOAD_BYTES // 1_000_000}  # English, for the API's description
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


class BodySizeLimit:
    """Pure ASGI middleware: reading a body past its limit raises a 413 ``HTTPException`` in the route, so
    that the app's error handler answers (JSON under /api/, the error page elsewhere)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        limit = body_limit(headers.get("content-type", ""))
        declared = headers.get("content-length", "")
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            if declared.isascii() and declared.isdigit() and int(declared) > limit:
                raise HTTPException(413, TOO_LARGE)
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise HTTPException(413, TOO_LARGE)
            return message

        await self.app(scope, limited_receive, send)


def too_large() -> str:
    """The 413 answer's message, in the reader's language."""
    return _(_TOO_LARGE) % {"mb": MAX_UPLOAD_BYTES // 1_000_000}


def body_limit(content_type: str) -> int:
    """The largest body accepted with ``content_type`` (module docstring)."""
    media = content_type.split(";")[0].strip().lower()
    return MAX_UPLOAD_BYTES if media == "application/json" or media.endswith("+json") else MAX_REQUEST_BYTES


def is_id_name(name: str) -> bool:
    return name == "id" or name.endswith(("_id", "_ids"))


def whole_number(raw: str) -> int | None:
    """The integer a path, query or form value spells ("12", " 12 ", "12.0"), or None if it spells none."""
    try:
        number = Decimal(raw.strip())
    except InvalidOperation:
        return None
    if not number.is_finite() or number != number.to_integral_value():
        return None
    if number.adjusted() > 18:  # far out of range: no need to build "1e999999999" as an int
        return (MAX_DB_ID + 1) if number > 0 else (MIN_DB_INT - 1)
    return int(number)


def range_problem(name: str, value: int, *, where: str | None = None) -> str | None:
    """Why ``value`` does not fit the database as field ``name`` (an id or another whole number), or None;
    the sentence starts with ``where`` (default: ``name``)."""
    low = 1 if is_id_name(name) else MIN_DB_INT
    if low <= value <= MAX_DB_ID:
        return None
    return _("%(field)s: must be a whole number from %(low)d to %(high)d") % {
        "field": where or name,
        "low": low,
        "high": MAX_DB_ID,
    }


def _is_int(annotation: Any) -> bool:
    if annotation is int:
        return True
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):  # a form model: its fields
        return any(_is_int(field.annotation) for field in annotation.model_fields.values())
    if typing.get_origin(annotation) in (typing.Union, types.UnionType, list, tuple, set, frozenset):
        return any(_is_int(arg) for arg in typing.get_args(annotation))
    if typing.get_origin(annotation) is typing.Annotated:
        return _is_int(typing.get_args(annotation)[0])
    return False


def _int_fields(dependant: Dependant, kind: str) -> Iterator[str]:
    for field in getattr(dependant, kind):
        annotation = field.field_info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            fields = annotation.model_fields.items()
            yield from (f.alias or name for name, f in fields if _is_int(f.annotation))
        elif _is_int(annotation):
            yield field.alias
    for sub in dependant.dependencies:
        yield from _int_fields(sub, kind)


def _check_path(request: Request, dependant: Dependant) -> None:
    declared = set(_int_fields(dependant, "path_params"))
    for name, raw in request.path_params.items():
        if not isinstance(raw, str):
            continue
        if text_problem(raw):
            raise NotFound(N_("This page does not exist."))
        value = whole_number(raw) if name in declared else None
        if value is not None and not 1 <= value <= MAX_DB_ID:
            raise NotFound(_id_not_found(name, raw))


def _id_not_found(name: str, raw: str) -> str:
    return _("%(name)s %(value)s does not exist (ids run from 1 to %(high)d).") % {
        "name": name,
        "value": raw.strip()[:24],
        "high": MAX_DB_ID,
    }


def _check_query(request: Request, dependant: Dependant) -> None:
    declared = set(_int_fields(dependant, "query_params"))
    problems: list[str] = []
    for name, raw in request.query_params.multi_items():
        if problem := text_problem(raw):
            problems.append(f"{name}: {problem}")
            continue
        value = whole_number(raw) if name in declared or is_id_name(name) else None
        if value is None:
            continue
        if is_id_name(name) and not 1 <= value <= MAX_DB_ID:
            raise NotFound(_id_not_found(name, raw))
        if problem := range_problem(name, value):
            problems.append(problem)
    if problems:
        raise ValidationFailed(problems)


async def _check_form(request: Request, dependant: Dependant) -> None:
    declared = set(_int_fields(dependant, "body_params"))
    problems: list[str] = []
    for name, raw in (await request.form()).multi_items():
        if isinstance(raw, UploadFile):
            continue  # a file's text is checked by whatever reads it (the roster import, the event file)
        if problem := text_problem(raw):
            problems.append(f"{name}: {problem}")
            continue
        value = whole_number(raw) if name in declared or is_id_name(name) else None
        if value is not None and (problem := range_problem(name, value)):
            problems.append(problem)
    if problems:
        raise ValidationFailed(problems)


def json_problems(value: Any, path: str = "", name: str = "") -> Iterator[str]:
    """Every field of a parsed JSON document that the database cannot store, as ``field.path: problem``.

    ``name`` is the key that governs ``value``: the elements of ``winner_team_ids`` are ids too.
    """
    where = path or "body"
    if isinstance(value, dict):
        for key, item in value.items():
            if problem := text_problem(str(key)):
                yield _("%(field)s: a key %(problem)s") % {"field": where, "problem": problem}
                continue
            yield from json_problems(item, f"{path}.{key}" if path else str(key), str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from json_problems(item, f"{path}.{index}" if path else str(index), name)
    elif isinstance(value, str):
        if problem := text_problem(value):
            yield f"{where}: {problem}"
    elif (
        isinstance(value, int)
        and not isinstance(value, bool)
        and (problem := range_problem(name, value, where=where))
    ):
        yield problem


async def _check_json(request: Request) -> None:
    body = await request.body()
    if not body:
        return
    try:
        document = json.loads(body)
    except ValueError:
        return  # FastAPI answers 422 "JSON decode error" when the route reads it
    problems = list(json_problems(document))
    if problems:
        raise ValidationFailed(problems)


async def check_request_input(request: Request) -> None:
    """Refuse ids past the database's integer range and text it cannot store (module docstring)."""
    route = request.scope.get("route")
    if not isinstance(route, APIRoute):
        return
    _check_path(request, route.dependant)
    _check_query(request, route.dependant)
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return
    if content_type in _FORM_TYPES:
        await _check_form(request, route.dependant)
    elif content_type == "application/json" or content_type.endswith("+json"):
        await _check_json(request)


FORM_PROBLEMS = "form_problems"


def form_problems(problems: list[str]) -> PydanticCustomError:
    """A model validator's refusal of several fields at once (the dynamic fields of a form), each problem a
    sentence naming its field in the reader's language; ``problems_of`` lists them one by one."""
    text = "; ".join(problems).replace("{", "(").replace("}", ")")  # the error's text is a template
    return PydanticCustomError(FORM_PROBLEMS, text, {"problems": list(problems)})


def problems_of(errors: Iterable[Any]) -> list[str]:
    """The problems of a request that its parameters or its input model could not read: ``field: why``
    for each field, the sentences of ``form_problems`` as they are."""
    problems: list[str] = []
    for error in errors:
        if error.get("type") == FORM_PROBLEMS:
            problems.extend(error.get("ctx", {}).get("problems", ()))
            continue
        where = ".".join(str(part) for part in error.get("loc", ())[1:]) or "request"
        problems.append(f"{where}: {error.get('msg', 'invalid')}")
    return problems


def id_number(raw: object, *, low: int = 1) -> int | None:
    """The id (or from ``low``, another count) a text holds in ASCII digits ("²" is a digit to
    ``str.isdigit``, not to ``int``), up to the database's ``INTEGER``; None for anything else."""
    text = str(raw if raw is not None else "").strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 10:
        return None
    number = int(text)
    return number if low <= number <= MAX_DB_ID else None


def chosen_id(value: object) -> object:
    """A select's value before validation: the id it holds, else None, so that the route says what to
    choose, as it does for a select left empty."""
    return value if value is None or isinstance(value, int) else id_number(value)


# A form field naming one of the page's rows (a team, a player, a round): an id, or None when nothing
# (or nothing the page offered) was chosen.
ChosenId = Annotated[int | None, BeforeValidator(chosen_id)]

"""Who may use each route: the access-rule registry, the session user, ``require_role``.

Every route declares a rule. For FastAPI routes the rule is a dependency (an ``AccessRule`` instance):

    @router.get("/admin/users")
    def users_page(request: Request, user: AuthUser = require_role(Role.OWNER, Role.ADMIN)): ...

    @router.get("/events", dependencies=[allow_public()])
    def events_page(request: Request): ...

Other routes (static files, the OpenAPI pages) are registered with ``register_route_rule``.
``rule_of(route)`` finds the rule of any route; tests/unit/test_auth_matrix.py fails on a route without one.
The rule also checks the CSRF token on unsafe methods (web/http/csrf.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from fastapi import Depends
from fastapi.dependencies.models import Dependant
from starlette.requests import Request
from starlette.routing import Mount

from orchestrator.adapters.tables import STAFF_ROLES, Role
from orchestrator.errors import Forbidden, NotAuthenticated
from orchestrator.services.accounts.users import AuthUser, load_session_user
from orchestrator.web.http.csrf import rotate_csrf_token, verify_csrf
from orchestrator.web.i18n import N_

_UNSET = object()
SESSION_USER_ID = "uid"
SESSION_GENERATION = "gen"

ALL_ROLES = frozenset(Role)
ADMIN_ROLES = frozenset({Role.OWNER, Role.ADMIN})
STAFF = frozenset(STAFF_ROLES)


@dataclass(frozen=True, eq=False)
class AccessRule:
    """A route's rule: ``roles=None`` means anyone (anonymous too); otherwise the roles allowed.

    Called as a FastAPI dependency it returns the logged-in ``AuthUser`` (or None on a public route),
    raising ``NotAuthenticated`` (401, or a redirect to the login page) or ``Forbidden`` (403).
    """

    roles: frozenset[Role] | None
    name: str
    csrf: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    def allows(self, role: Role | None) -> bool:
        """Whether a user with ``role`` (None: anonymous) passes this rule."""
        if self.roles is None:
            return True
        return role is not None and role in self.roles

    async def __call__(self, request: Request) -> AuthUser | None:
        user = current_user(request)
        if self.roles is not None:
            if user is None:
                raise NotAuthenticated(N_("Please log in."))
            if user.role not in self.roles:
                raise Forbidden(N_("Your account may not use this page."))
        if self.csrf:
            await verify_csrf(request)
        return user


PUBLIC = AccessRule(None, "public")
# The JSON login has no session to bind a token to yet; it accepts application/json only.
PUBLIC_JSON_LOGIN = AccessRule(None, "public, JSON only", csrf=False)


def require_role(*roles: Role | str) -> Any:
    """A dependency admitting only ``roles`` (exactly these: there is no implicit hierarchy)."""
    allowed = frozenset(Role(r) for r in roles)
    if not allowed:
        raise ValueError("require_role needs at least one role")
    names = ", ".join(sorted(r.value for r in allowed))
    return Depends(AccessRule(allowed, f"roles: {names}"))


def require_staff() -> Any:
    return Depends(AccessRule(STAFF, "staff"))


def require_login() -> Any:
    return Depends(AccessRule(ALL_ROLES, "any logged-in user"))


def allow_public() -> Any:
    return Depends(PUBLIC)


def current_user(request: Request) -> AuthUser | None:
    """The user named by the session cookie, loaded once per request; a stale session is cleared."""
    cached = getattr(request.state, "user", _UNSET)
    if cached is not _UNSET:
        return cached if isinstance(cached, AuthUser) else None
    user = None
    user_id = request.session.get(SESSION_USER_ID)
    generation = request.session.get(SESSION_GENERATION)
    if isinstance(user_id, int) and isinstance(generation, int):
        with request.app.state.uow_factory() as uow:
            user = load_session_user(uow, user_id=user_id, session_generation=generation)
        if user is None:
            request.session.clear()
    request.state.user = user
    return user


def log_in(request: Request, user: AuthUser) -> None:
    """Start a fresh session for ``user`` (a new CSRF token, nothing kept from before)."""
    request.session.clear()
    request.session[SESSION_USER_ID] = user.id
    request.session[SESSION_GENERATION] = user.session_generation
    rotate_csrf_token(request)
    request.state.user = user


def log_out(request: Request) -> None:
    request.session.clear()
    request.state.user = None


# --- the registry -------------------------------------------------------------------------------------

_ROUTE_RULES: dict[str, AccessRule] = {}


def register_route_rule(path: str, rule: AccessRule) -> None:
    """Declare the rule of a route that cannot carry a dependency (a Mount, FastAPI's docs pages)."""
    _ROUTE_RULES[path] = rule


def _rules_in(dependant: Dependant) -> Iterable[AccessRule]:
    for dependency in dependant.dependencies:
        if isinstance(dependency.call, AccessRule):
            yield dependency.call
        yield from _rules_in(dependency)


def rule_of(route: Any) -> AccessRule | None:
    """The access rule a route declared, or None (a bug the matrix test reports).

    ``route`` is an APIRoute, a route context from ``iter_routes`` or a plain Starlette Route/Mount.
    """
    dependant = getattr(route, "dependant", None)
    if isinstance(dependant, Dependant):
        rules = list(_rules_in(dependant))
        if len({id(rule) for rule in rules}) > 1:
            return None  # two different rules on one route is ambiguous: treat as undeclared
        return rules[0] if rules else None
    path = getattr(route, "path", None)
    return _ROUTE_RULES.get(path) if isinstance(path, str) else None


@dataclass(frozen=True)
class RouteInfo:
    path: str
    methods: frozenset[str]
    is_mount: bool
    rule: AccessRule | None


def iter_routes(app: Any) -> Iterator[RouteInfo]:
    """Every route the application serves, with routers' prefixes applied, and its rule."""
    try:  # FastAPI >= 0.16x keeps included routers as lazy entries of app.routes
        from fastapi.routing import iter_route_contexts

        routes: Iterable[Any] = iter_route_contexts(app.routes)
    except ImportError:  # older FastAPI flattens included routes into app.routes
        routes = app.routes
    for route in routes:
        original = getattr(route, "original_route", route)
        path = str(getattr(route, "path", None) or getattr(original, "path", ""))
        methods = getattr(route, "methods", None) or set()
        yield RouteInfo(
            path=path,
            methods=frozenset(methods),
            is_mount=isinstance(original, Mount),
            rule=rule_of(route),
        )

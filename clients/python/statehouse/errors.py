"""Problems the API answers, as exceptions.

Every error of the API is a problem document with a stable ``code`` (docs/api.md, "Errors"). Each
code has its own exception class, and the classes are grouped by family so a caller can catch as
narrowly or as broadly as it needs::

    StatehouseError                      every failure of this package
    ├── TransportError                   the API could not be reached (no HTTP answer)
    ├── AuthError                        unauthenticated, forbidden
    ├── NotFoundError                    not_found (also: outside the caller's profiles)
    ├── RequestError                     validation_failed, payload_too_large
    ├── PreconditionError                precondition_required, revision_conflict, stale_generation
    ├── ConflictError                    conflict, session_busy, session_closed, reopen_not_permitted,
    │                                    title_conflict, profile_collision, idempotency_conflict
    ├── DeliveryError                    delivery_claimed, claim_expired, delivery_settled
    ├── CursorExpiredError               cursor_expired (``floor`` says where to resume)
    ├── RetryableError                   rate_limited, store_unavailable, deadline_exceeded
    └── ServerError                      internal_error, and any answer that is not a problem document
"""

from __future__ import annotations

from typing import Any, Callable, Generic, Mapping, Optional, TypeVar, overload

T = TypeVar("T")


class _ProblemField(Generic[T]):
    """A read-only attribute of an error, read from its problem document: ``convert(problem[key])``
    (the value when it has the expected type, else an empty one)."""

    def __init__(self, key: str, convert: Callable[[Any], T]) -> None:
        self.key = key
        self.convert = convert

    @overload
    def __get__(self, error: None, owner: Any) -> "_ProblemField[T]": ...

    @overload
    def __get__(self, error: "StatehouseError", owner: Any) -> T: ...

    def __get__(self, error: Optional["StatehouseError"], owner: Any) -> Any:
        if error is None:
            return self
        return self.convert(error.problem.get(self.key))

    def __set__(self, error: "StatehouseError", value: Any) -> None:
        raise AttributeError(f"{self.key} comes from the problem document and cannot be set")


def _int(value: Any) -> Optional[int]:
    return value if isinstance(value, int) else None


def _str(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None


def _seconds(value: Any) -> Optional[float]:
    return float(value) if isinstance(value, (int, float)) else None


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []


class StatehouseError(Exception):
    """A failed call. ``code`` is the API's problem code (or ``transport`` / ``unexpected``)."""

    code: str = "unexpected"

    def __init__(
        self,
        detail: str,
        *,
        code: Optional[str] = None,
        status: Optional[int] = None,
        problem: Optional[Mapping[str, Any]] = None,
        method: Optional[str] = None,
        path: Optional[str] = None,
    ) -> None:
        super().__init__(detail)
        if code is not None:
            self.code = code
        self.detail = detail
        self.status = status
        self.problem: Mapping[str, Any] = problem or {}
        self.method = method
        self.path = path

    request_id = _ProblemField("requestId", _str)

    def __str__(self) -> str:
        where = f" ({self.method} {self.path})" if self.method and self.path else ""
        status = f"{self.status} " if self.status else ""
        return f"{status}{self.code}: {self.detail}{where}"


class TransportError(StatehouseError):
    """No HTTP answer: connection refused, reset, timed out."""

    code = "transport"


class AuthError(StatehouseError):
    pass


class UnauthenticatedError(AuthError):
    code = "unauthenticated"


class ForbiddenError(AuthError):
    code = "forbidden"


class NotFoundError(StatehouseError):
    code = "not_found"


class RequestError(StatehouseError):
    pass


class ValidationFailedError(RequestError):
    code = "validation_failed"

    issues = _ProblemField("issues", _list)


class PayloadTooLargeError(RequestError):
    code = "payload_too_large"


class PreconditionError(StatehouseError):
    pass


class PreconditionRequiredError(PreconditionError):
    code = "precondition_required"


class RevisionConflictError(PreconditionError):
    code = "revision_conflict"

    current_revision = _ProblemField("currentRevision", _int)


class StaleGenerationError(PreconditionError):
    code = "stale_generation"

    current_generation = _ProblemField("currentGeneration", _int)


class ConflictError(StatehouseError):
    """``conflict`` itself, and the parent of the other 409s about the state of a resource."""

    code = "conflict"


class SessionBusyError(ConflictError):
    code = "session_busy"


class SessionClosedError(ConflictError):
    code = "session_closed"


class ReopenNotPermittedError(ConflictError):
    code = "reopen_not_permitted"


class TitleConflictError(ConflictError):
    code = "title_conflict"


class ProfileCollisionError(ConflictError):
    code = "profile_collision"


class IdempotencyConflictError(ConflictError):
    code = "idempotency_conflict"


class DeliveryError(StatehouseError):
    pass


class DeliveryClaimedError(DeliveryError):
    code = "delivery_claimed"


class ClaimExpiredError(DeliveryError):
    code = "claim_expired"


class DeliverySettledError(DeliveryError):
    code = "delivery_settled"


class CursorExpiredError(StatehouseError):
    code = "cursor_expired"

    floor = _ProblemField("floor", _int)


class RetryableError(StatehouseError):
    """The API asked the caller to come back later (``Retry-After``)."""

    retry_after_seconds = _ProblemField("retryAfterSeconds", _seconds)


class RateLimitedError(RetryableError):
    code = "rate_limited"


class StoreUnavailableError(RetryableError):
    code = "store_unavailable"


class DeadlineExceededError(RetryableError):
    code = "deadline_exceeded"


class ServerError(StatehouseError):
    code = "internal_error"


_BY_CODE: dict[str, type[StatehouseError]] = {
    cls.code: cls
    for cls in (
        UnauthenticatedError,
        ForbiddenError,
        NotFoundError,
        ValidationFailedError,
        PayloadTooLargeError,
        PreconditionRequiredError,
        RevisionConflictError,
        StaleGenerationError,
        ConflictError,
        SessionBusyError,
        SessionClosedError,
        ReopenNotPermittedError,
        TitleConflictError,
        ProfileCollisionError,
        IdempotencyConflictError,
        DeliveryClaimedError,
        ClaimExpiredError,
        DeliverySettledError,
        CursorExpiredError,
        RateLimitedError,
        StoreUnavailableError,
        DeadlineExceededError,
        ServerError,
    )
}

# Codes this client does not know yet still land in the right family by their status.
_BY_STATUS: dict[int, type[StatehouseError]] = {
    400: RequestError,
    401: UnauthenticatedError,
    403: ForbiddenError,
    404: NotFoundError,
    409: ConflictError,
    410: CursorExpiredError,
    412: PreconditionError,
    413: PayloadTooLargeError,
    422: IdempotencyConflictError,
    428: PreconditionRequiredError,
    429: RateLimitedError,
    503: StoreUnavailableError,
}


def error_class_for(code: Optional[str], status: int) -> type[StatehouseError]:
    if code and code in _BY_CODE:
        return _BY_CODE[code]
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return ServerError if status >= 500 else StatehouseError


def problem_error(
    status: int,
    problem: Mapping[str, Any],
    *,
    method: Optional[str] = None,
    path: Optional[str] = None,
) -> StatehouseError:
    """The exception for a problem document (or a body that is not one)."""
    raw_code = problem.get("code")
    code = raw_code if isinstance(raw_code, str) else None
    cls = error_class_for(code, status)
    detail = problem.get("detail") or problem.get("title") or f"HTTP {status}"
    return cls(
        str(detail),
        code=code or cls.code,
        status=status,
        problem=problem,
        method=method,
        path=path,
    )

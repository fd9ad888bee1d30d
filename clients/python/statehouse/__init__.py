"""Statehouse's Python client: the REST API with typed problems, retries and revision tracking.

    from statehouse import Client
    client = Client()   # STATEHOUSE_URL, STATEHOUSE_TOKEN, STATEHOUSE_PROFILE (or arguments)

``statehouse.hermes.SessionDB`` is Hermes Agent's session store backed by this client.
"""

from .client import Client, SessionTokens, camel, camel_keys
from .errors import (
    AuthError,
    ClaimExpiredError,
    ConflictError,
    CursorExpiredError,
    DeadlineExceededError,
    DeliveryClaimedError,
    DeliveryError,
    DeliverySettledError,
    ForbiddenError,
    IdempotencyConflictError,
    NotFoundError,
    PayloadTooLargeError,
    PreconditionError,
    PreconditionRequiredError,
    ProfileCollisionError,
    RateLimitedError,
    ReopenNotPermittedError,
    RequestError,
    RetryableError,
    RevisionConflictError,
    ServerError,
    SessionBusyError,
    SessionClosedError,
    StaleGenerationError,
    StatehouseError,
    StoreUnavailableError,
    TitleConflictError,
    TransportError,
    UnauthenticatedError,
    ValidationFailedError,
)
from .receipts import ReceiptWatcher

__version__ = "0.1.0"

__all__ = [
    "AuthError",
    "ClaimExpiredError",
    "Client",
    "ConflictError",
    "CursorExpiredError",
    "DeadlineExceededError",
    "DeliveryClaimedError",
    "DeliveryError",
    "DeliverySettledError",
    "ForbiddenError",
    "IdempotencyConflictError",
    "NotFoundError",
    "PayloadTooLargeError",
    "PreconditionError",
    "PreconditionRequiredError",
    "ProfileCollisionError",
    "RateLimitedError",
    "ReceiptWatcher",
    "ReopenNotPermittedError",
    "RequestError",
    "RetryableError",
    "RevisionConflictError",
    "ServerError",
    "SessionBusyError",
    "SessionClosedError",
    "SessionTokens",
    "StaleGenerationError",
    "StatehouseError",
    "StoreUnavailableError",
    "TitleConflictError",
    "TransportError",
    "UnauthenticatedError",
    "ValidationFailedError",
    "camel",
    "camel_keys",
]

"""The official SDKs' exceptions, turned into ProviderError messages that say what to do next.

Both SDKs share one error shape (APIStatusError with status_code, APITimeoutError,
APIConnectionError), so one translation serves both; the SDK module is passed in, never imported here.
"""

from __future__ import annotations

from types import ModuleType

from ..errors import ProviderError
from .model import ProviderUnusable

_UNUSABLE = {
    401: "the API key was rejected (401): check {key}",
    403: "the API key may not use this model (403): check {key} and the model name",
    404: "model or endpoint not found (404): check [engine] model and base_url",
}


def provider_error(
    provider: str,
    error: Exception,
    sdk: ModuleType,
    key_name: str,
    timeout_secs: float,
    base_url: str,
) -> ProviderError:
    """A ProviderError (ProviderUnusable when no later call can succeed) for an SDK exception."""
    if isinstance(error, sdk.APITimeoutError):
        return ProviderError(
            provider,
            f"no answer within {timeout_secs:g}s from {base_url}, after retries; raise [engine] timeout_secs",
        )
    if isinstance(error, sdk.APIConnectionError):
        return ProviderError(
            provider, f"cannot reach {base_url} ({error}); check the network or [engine] base_url"
        )
    if isinstance(error, sdk.APIStatusError):
        status = int(error.status_code)
        detail = _detail(error)
        if status in _UNUSABLE:
            return ProviderUnusable(provider, f"{_UNUSABLE[status].format(key=key_name)} ({detail})", status)
        if status == 429:
            return ProviderError(provider, f"rate limited (429) after retries ({detail})", status)
        if status >= 500:
            return ProviderError(provider, f"server error ({status}) after retries ({detail})", status)
        return ProviderError(provider, f"request refused ({status}): {detail}", status)
    return ProviderError(provider, f"{type(error).__name__}: {error}")


def _detail(error: Exception) -> str:
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])[:200]
    return str(getattr(error, "message", error))[:200]

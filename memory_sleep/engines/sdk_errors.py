"""The official SDKs' exceptions, turned into ProviderError messages that say what to do next.

Both SDKs share one error shape (APIStatusError with status_code, APITimeoutError,
APIConnectionError), so one translation serves both; the SDK module is passed in, never imported here.
A 200 whose body is no API response (the SDKs raise a JSON error or hand back the text) is one too.
"""

from __future__ import annotations

from types import ModuleType

from memory_sleep.engines.model import ProviderTimeout, ProviderTransient, ProviderUnusable
from memory_sleep.errors import ProviderError

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
    """A ProviderError for an SDK exception: ProviderUnusable when no later call can succeed,
    ProviderTransient when a retry may, ProviderTimeout when the server did not answer in time."""
    if isinstance(error, sdk.APITimeoutError):
        return ProviderTimeout(
            provider, f"no answer within {timeout_secs:g}s from {base_url}; raise [engine] timeout_secs"
        )
    if isinstance(error, sdk.APIConnectionError):
        return ProviderTransient(
            provider,
            f"connection to {base_url} failed ({error.__cause__ or error}); check the network or [engine] base_url",
        )
    if isinstance(error, sdk.APIStatusError):
        status = int(error.status_code)
        detail = _detail(error)
        if status in _UNUSABLE:
            return ProviderUnusable(provider, f"{_UNUSABLE[status].format(key=key_name)} ({detail})", status)
        if status == 429:
            return ProviderTransient(provider, f"rate limited (429) ({detail})", status, _retry_after(error))
        if status >= 500 or status in (408, 409):
            kind = "server error" if status >= 500 else "temporary failure"
            return ProviderTransient(provider, f"{kind} ({status}) ({detail})", status, _retry_after(error))
        return ProviderError(provider, f"request refused ({status}): {detail}", status)
    return ProviderError(provider, f"{type(error).__name__}: {error}")


def not_an_api_answer(provider: str, body: str, base_url: str) -> ProviderTransient:
    """HTTP 200 with something that is not an API response: a web UI, a proxy's page, an empty body."""
    text = body.strip()
    what = (
        "an empty body"
        if not text
        else "an HTML page"
        if text[:1] == "<"
        else f"{text[:60]!r}, which is not an API response"
    )
    return ProviderTransient(
        provider,
        f"{base_url} answered with {what}; check that [engine] base_url is the API "
        "(for OpenAI-compatible servers it usually ends in /v1), not a web page or proxy",
    )


def _retry_after(error: Exception) -> float | None:
    """The server's retry-after-ms or retry-after (seconds) header, if any."""
    headers = getattr(getattr(error, "response", None), "headers", None) or {}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            return float(headers[name]) * scale
        except (KeyError, TypeError, ValueError):
            continue
    return None


def _detail(error: Exception) -> str:
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])[:200]
    text = getattr(getattr(error, "response", None), "text", "")
    if isinstance(text, str) and text.lstrip()[:1] == "<":
        return "an HTML error page, likely from a proxy in front of the API"
    return str(getattr(error, "message", error))[:200]

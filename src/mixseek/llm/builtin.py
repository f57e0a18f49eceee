"""Providers pydantic-ai knows: is the name known, is its SDK installed, how to install it. Looking a provider
up imports its SDK, so that happens only here, when a model is checked or built."""

from __future__ import annotations

import difflib
import re

from mixseek.errors import InputError
from mixseek.llm.credentials import CREDENTIAL_RULES
from mixseek.llm.model_string import ACCEPTED_FORM, PROVIDER_ALIASES

# pydantic-ai names the optional group of a provider's SDK in the ImportError it raises.
_SLIM_GROUP_RE = re.compile(r"pydantic-ai-slim\[([A-Za-z0-9_-]+)\]")

# Offered in "did you mean" suggestions for unknown providers.
_SUGGESTABLE = frozenset({*CREDENTIAL_RULES, *PROVIDER_ALIASES, "bedrock", "google-cloud", "local"})


def install_command(error: ImportError) -> str:
    """The pip command installing a provider's SDK: pydantic-ai-slim's extra (a clone has no mixseek's)."""
    match = _SLIM_GROUP_RE.search(str(error))
    return f"pip install 'pydantic-ai-slim[{match.group(1)}]'" if match else "install the provider's SDK"


def missing_sdk_error(model: str, role: str, provider: str, error: ImportError) -> InputError:
    """The one-line error for a provider whose SDK is not installed."""
    package = _missing_package(error)
    what = f"the Python module {package!r}, which is" if package else "a provider SDK that is"
    return InputError(f"model {model!r} for {role} needs {what} not installed: {install_command(error)}")


def _missing_package(error: ImportError) -> str | None:
    """The module whose import failed (pydantic-ai chains the original ImportError)."""
    cause = error.__cause__
    name = error.name or (cause.name if isinstance(cause, ImportError) else None)
    return name if name and not name.startswith("pydantic_ai") else None


def unknown_provider_error(model: str, role: str, provider: str, known: tuple[str, ...] = ()) -> InputError:
    """The one-line error for a prefix that is neither a pydantic-ai provider nor registered."""
    message = f"model {model!r} for {role} has an unknown provider {provider!r}"
    close = difflib.get_close_matches(provider, sorted({*_SUGGESTABLE, *known}), n=1, cutoff=0.75)
    if close:
        message += f" (did you mean {close[0]!r}?)"
    return InputError(f"{message}: {ACCEPTED_FORM}")


def ensure_known_provider(model: str, role: str, provider: str, *, registered: tuple[str, ...] = ()) -> None:
    """Raise unless pydantic-ai knows `provider` (a canonical name) and its SDK imports."""
    from pydantic_ai.exceptions import UserError
    from pydantic_ai.providers import infer_provider_class

    try:
        infer_provider_class(provider)
    except ImportError as exc:
        raise missing_sdk_error(model, role, provider, exc) from exc
    except (ValueError, UserError) as exc:
        raise unknown_provider_error(model, role, provider, registered) from exc

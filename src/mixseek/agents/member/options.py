"""Per-type settings of the built-in member types; defined in `mixseek.config.member_options`."""

from mixseek.config.member_options import CodeExecOptions, WebFetchOptions, WebSearchOptions

__all__ = ["CodeExecOptions", "WebFetchOptions", "WebSearchOptions"]

"""Package names that import their module on first use, so `import mixseek.x` stays cheap.

`mixseek`'s own `__init__` runs this before the `mixseek` program has installed its Ctrl-C guard
(`cli.entry`), so it imports nothing at all on load (not `typing`, nor `collections.abc`, nor the
`__future__` module): its annotations are strings, read only by type checkers.
"""

TYPE_CHECKING = False  # `typing.TYPE_CHECKING`, which type checkers take for True
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def lazy_exports(
    package: str, exports: "Mapping[str, str]", namespace: "dict[str, Any]"
) -> "tuple[Callable[[str], Any], Callable[[], list[str]]]":
    """`__getattr__` and `__dir__` for `package`: a name of `exports` (name -> module) is imported
    from its module when first read, then kept in `namespace` as a plain attribute."""

    def __getattr__(name: str) -> "Any":
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module '{package}' has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted([*namespace, *exports])

    return __getattr__, __dir__

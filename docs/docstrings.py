r"""A griffe extension: the docstrings of this package, read as the API reference's Markdown.

The docstrings are written for ``help()`` and doctest (tests/test_doctests.py runs them):
examples as bare ``>>>`` blocks and references as Sphinx roles (:func:`solve`).  Markdown
would run an example into the paragraph around it (and take ``table[1][1]`` for a link),
so each doctest block becomes a fenced ``pycon`` block, each role its plain code span, and
an index pair in prose, C[j][i], stays text (Markdown's reference links need "][").

>>> prompt = ">" * 3
>>> text = f"Solve C[j][i].\n\n{prompt} solve(4)[1][1]\n0.5\n\nSee :func:`exact.solve`."
>>> for line in markdown(text).splitlines():
...     print(("| " + line).rstrip())
| Solve C[j]\[i].
|
| ```pycon
| >>> solve(4)[1][1]
| 0.5
| ```
|
| See `exact.solve`.
"""

from __future__ import annotations

import re

ROLE = re.compile(r":(?:func|meth|class|mod|attr|data|obj|exc|const):`~?([^`]+)`")
#: A code span (single or double backticks), left as it is.
CODE = re.compile(r"(``.+?``|`[^`]+`)")


def prose(line: str) -> str:
    """A line of prose: roles as code spans, "][" outside code escaped."""
    line = ROLE.sub(r"`\1`", line)
    parts = CODE.split(line)
    return "".join(part if i % 2 else part.replace("][", "]\\[") for i, part in enumerate(parts))


def markdown(text: str) -> str:
    """``text`` (a docstring) with its doctest blocks fenced and its roles as code spans."""
    out: list[str] = []
    fence: str | None = None  # the indentation of the open doctest block
    in_code = False  # inside a fence the docstring itself wrote
    for line in text.splitlines():
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        if fence is None and stripped.startswith("```"):
            in_code = not in_code
        if fence is not None and not stripped:
            out.append(f"{fence}```")
            fence = None
        elif fence is None and not in_code and stripped.startswith(">>>"):
            out.append(f"{indent}```pycon")
            fence = indent
        out.append(line if fence is not None or in_code else prose(line))
    if fence is not None:
        out.append(f"{fence}```")
    return "\n".join(out)


try:
    import griffe
except ImportError:  # the docs extra is not installed: markdown() alone (its doctest)
    griffe = None

if griffe is not None:

    class DoctestBlocks(griffe.Extension):
        """Rewrite every docstring with :func:`markdown` as it is loaded."""

        def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
            if obj.docstring is not None:
                obj.docstring.value = markdown(obj.docstring.value)

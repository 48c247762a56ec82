"""The example of docs/engines.rst runs as printed and prints what its comments say."""

import contextlib
import io
import pathlib

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"


def test_engines_page_example():
    text = (DOCS / "engines.rst").read_text()
    block = text.split(".. code-block:: python\n\n")[1]
    lines = []
    for line in block.splitlines():
        if line and not line.startswith("   "):
            break
        lines.append(line[3:])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile("\n".join(lines), "engines.rst", "exec"), {})
    assert out.getvalue().split() == ["True", "True", "True"]

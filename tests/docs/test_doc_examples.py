"""Every example on every documentation page runs as printed.

Each ``.rst`` page under ``docs/`` (new pages are picked up automatically), and the
fenced ``python`` blocks of ``README.md``, is read top to bottom and its examples are run **in order in one fresh interpreter** (a
subprocess, working directory a new temporary folder), as a reader pasting them one
after the other would:

* ``.. code-block:: python`` (or ``pycon``) blocks and ``::`` literal blocks holding
  Python are executed; a ``::`` block counts as Python when its first line starts with
  ``import``, ``from`` or ``>>>``, or when it parses as Python (shell commands and
  printed output do not);
* ``>>>`` blocks (doctest blocks, or inside the blocks above) run as doctests: the
  output shown must be the output printed (``...`` matches anything, whitespace is
  normalized);
* ``.. code-block:: console`` blocks: every ``$ rlscore ...`` line runs the command
  line (as ``python -m rlscore``) in the same folder, and the lines after it, up to
  the next ``$``, must be its output (doctest rules again); with no lines after it the
  command must succeed;
* ``.. literalinclude::`` of a ``.py`` script runs the script (``python script.py``,
  in the script's folder) -- these tests are marked ``slow``;
* a Python block that starts worker processes (a Dask ``LocalCluster`` or ``Client()``,
  ``multiprocessing``, a ``ProcessPoolExecutor``) runs the way a reader runs it: written
  to a file and run as ``python file.py`` in a child process, on its own (it must be a
  complete script). Worker processes started by "spawn" -- Dask's default --
  re-import the main script, so such an example only works with its work under
  ``if __name__ == "__main__":``; run inside this runner's interpreter (``python -c``,
  no script to re-import) an unguarded example would pass and then fail for the
  reader ("Nanny failed to start").

A page marks its exceptions with reST comments (invisible in the built pages):

``.. doc-test: skip``
    the next block is not run (a synopsis of commands, a fragment);
``.. doc-test: slow``
    on its own before a block: that block runs only in the slow suite; the page's
    other blocks still run in the fast one (after it, as if it had run, so use it only
    for blocks the later ones do not depend on);
``.. doc-test: needs-data NAME``
    the page's examples need the data set folder NAME: they run only when the
    environment variable ``RLSCORE_DATA`` points to a folder holding NAME, and are
    skipped with that reason otherwise (tests never read data from elsewhere).
"""

import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.rst") if "_build" not in p.parts) + [ROOT / "README.md"]

_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+(code-block|code|sourcecode)::\s*(\S*)\s*$")
_INCLUDE = re.compile(r"^(\s*)\.\.\s+literalinclude::\s*(\S+)\s*$")
_MARK = re.compile(r"^\s*\.\.\s+doc-test:\s*(skip|slow|needs-data)\s*(\S*)\s*$")
_PYTHON_LANGS = {"python", "python3", "py", "pycon", "default", ""}
#: Python that starts worker processes: such a block runs as a script file
_WORKERS = re.compile(r"\bLocalCluster\(|\bClient\(\s*\)|\bmultiprocessing\b|"
                      r"\bProcessPoolExecutor\(")


def _indent(line):
    return len(line) - len(line.lstrip())


def _body(lines, i, base):
    """The indented block after line i-1 (options and blank lines skipped); returns
    (dedented text, first body line number, next index)."""
    n = len(lines)
    while i < n and (not lines[i].strip() or
                     (_indent(lines[i]) > base and lines[i].strip().startswith(":")
                      and not lines[i].strip().startswith(":::"))):
        i += 1
    start = i
    while i < n and (not lines[i].strip() or _indent(lines[i]) > base):
        i += 1
    return textwrap.dedent("\n".join(lines[start:i])).strip("\n"), start + 1, i


def _is_python(text):
    first = text.lstrip().split("\n", 1)[0]
    if first.startswith((">>>", "import ", "from ")):
        return True
    try:
        compile(text, "<block>", "exec")
    except SyntaxError:
        return False
    return True


def parse_markdown(path):
    """Fenced ``python`` blocks of a Markdown file (the README)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if lines[i].strip() in ("```python", "```py", "```pycon"):
            j = i + 1
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            text = "\n".join(lines[i + 1:j])
            blocks.append(dict(kind="doctest" if ">>>" in text else "code", text=text,
                               line=i + 2, slow=False))
            i = j
        i += 1
    return blocks, []


def parse_page(path):
    """Blocks of a page in order: dicts with kind (code, doctest, console, script),
    line, text, slow; plus the data sets it needs."""
    if path.suffix == ".md":
        return parse_markdown(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, needs, pending = [], [], None
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        mark = _MARK.match(line)
        if mark:
            if mark.group(1) == "needs-data":
                needs.append(mark.group(2))
            else:
                pending = mark.group(1)
            i += 1
            continue
        directive = _DIRECTIVE.match(line)
        include = _INCLUDE.match(line)
        block = None
        if directive:
            lang = directive.group(3).lower()
            text, start, i = _body(lines, i + 1, _indent(line))
            if lang in _PYTHON_LANGS:
                block = dict(kind="doctest" if ">>>" in text else "code", text=text, line=start)
            elif lang in ("console", "shell-session"):
                block = dict(kind="console", text=text, line=start)
        elif include:
            target = (path.parent / include.group(2)).resolve()
            _, start, j = _body(lines, i + 1, _indent(line))
            opts = "\n".join(lines[i + 1:j])
            i = j
            if target.suffix == ".py" or ":language: python" in opts:
                block = dict(kind="script", text=str(target), line=start)
        elif line.rstrip().endswith("::") and not line.lstrip().startswith(".."):
            text, start, i = _body(lines, i + 1, _indent(line))
            if text and _is_python(text):
                block = dict(kind="doctest" if text.lstrip().startswith(">>>") else "code",
                             text=text, line=start)
        elif line.lstrip().startswith(">>>"):
            j = i
            while j < n and lines[j].strip():
                j += 1
            block = dict(kind="doctest", text=textwrap.dedent("\n".join(lines[i:j])),
                         line=i + 1)
            i = j
        else:
            i += 1
            continue
        if block is None:
            continue
        if block["kind"] == "code" and _WORKERS.search(block["text"]):
            block["kind"] = "file"
        block["slow"] = pending == "slow" or block["kind"] == "script"
        if pending != "skip":
            blocks.append(block)
        pending = None
    return blocks, needs


_RUNNER = r'''
import doctest, json, os, runpy, shlex, subprocess, sys
blocks = json.loads(sys.argv[1])
page = sys.argv[2]
ns = {"__name__": "__main__"}
flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
checker = doctest.OutputChecker()
for b in blocks:
    where = f"{page}:{b['line']}"
    if b["kind"] == "code":
        exec(compile(b["text"], where, "exec"), ns)
    elif b["kind"] == "doctest":
        test = doctest.DocTestParser().get_doctest(b["text"], ns, where, page, b["line"])
        runner = doctest.DocTestRunner(checker=checker, optionflags=flags)
        runner.run(test, clear_globs=False, out=sys.stderr.write)
        ns.update(test.globs)                   # DocTest works on a copy
        if runner.failures:
            sys.exit(f"doctest failures at {where}")
    elif b["kind"] == "console":
        cmds, cur = [], None
        for ln in b["text"].splitlines():
            if ln.startswith("$ "):
                cur = [ln[2:], []]
                cmds.append(cur)
            elif cur is not None and cur[0].endswith("\\"):
                cur[0] = cur[0][:-1] + " " + ln.strip()
            elif cur is not None:
                cur[1].append(ln)
        for cmd, expected in cmds:
            args = shlex.split(cmd)
            if args[0] == "rlscore":
                args = [sys.executable, "-m", "rlscore"] + args[1:]
            elif args[0] == "python":
                args = [sys.executable] + args[1:]
            else:
                sys.exit(f"{where}: only rlscore and python commands run, got {cmd!r}")
            res = subprocess.run(args, capture_output=True, text=True)
            if res.returncode != 0:
                sys.exit(f"{where}: {cmd!r} exited {res.returncode}\n{res.stderr}")
            want = "\n".join(expected).strip()
            if want and not checker.check_output(want + "\n", res.stdout, flags):
                sys.exit(f"{where}: {cmd!r} printed\n{res.stdout}\nthe page shows\n{want}")
    elif b["kind"] == "file":
        path = os.path.abspath(f"example_{b['line']}.py")
        with open(path, "w") as f:
            f.write(b["text"] + "\n")
        res = subprocess.run([sys.executable, path], capture_output=True, text=True)
        sys.stdout.write(res.stdout)
        if res.returncode != 0:
            sys.exit(f"{where}: `python {os.path.basename(path)}` (the example as a "
                     f"script file) exited {res.returncode}\n{res.stderr[-4000:]}")
    elif b["kind"] == "script":
        os.chdir(os.path.dirname(b["text"]))
        sys.argv = [b["text"]]
        runpy.run_path(b["text"], run_name="__main__")
'''


def _page_id(page):
    return str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else page.name


def _run(page, blocks, tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONHASHSEED="0")
    res = subprocess.run([sys.executable, "-c", _RUNNER, json.dumps(blocks), _page_id(page)],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=3600)
    assert res.returncode == 0, (f"examples of {_page_id(page)} fail:\n"
                                 f"{res.stdout[-4000:]}\n{res.stderr[-6000:]}")


def _check_data(needs):
    root = os.environ.get("RLSCORE_DATA")
    missing = [d for d in needs if not (root and pathlib.Path(root, d).is_dir())]
    if missing:
        pytest.skip(f"needs the data set folder(s) {missing} under $RLSCORE_DATA")


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_page_examples_run_as_printed(page, tmp_path):
    blocks, needs = parse_page(page)
    fast = [b for b in blocks if not b["slow"]]
    if not fast:
        pytest.skip("no fast examples on this page")
    _check_data(needs)
    _run(page, fast, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_page_scripts_and_slow_examples_run(page, tmp_path):
    blocks, needs = parse_page(page)
    if not any(b["slow"] for b in blocks):
        pytest.skip("no slow examples on this page")
    _check_data(needs)
    _run(page, blocks, tmp_path)


def test_parser_finds_every_kind_of_block(tmp_path):
    """The extractor on a page with every kind of block and marker."""
    page = tmp_path / "page.rst"
    page.write_text(textwrap.dedent('''\
        Title
        =====

        Setup::

            import math
            x = 2

        >>> print(x + 1)
        3

        .. code-block:: python
           :caption: more

           y = math.sqrt(x)

        .. doc-test: skip

        .. code-block:: python

           undefined_name

        .. code-block:: console

           $ rlscore --help
           usage: ...

        Printed::

           variant=sum: AUC 0.93

        .. literalinclude:: script.py
           :lines: 2-
        '''))
    blocks, needs = parse_page(page)
    assert [b["kind"] for b in blocks] == ["code", "doctest", "code", "console", "script"]
    assert blocks[2]["text"] == "y = math.sqrt(x)"
    assert [b["slow"] for b in blocks] == [False, False, False, False, True]
    assert needs == []


_POOL = """\
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

def square(x):
    return x * x

{guard}with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as ex:
{indent}    print(sum(ex.map(square, range(4))))
"""


@pytest.mark.parametrize("guarded", [False, True])
def test_examples_starting_worker_processes_run_as_script_files(tmp_path, guarded):
    """A block that starts processes is run as ``python file.py``, as a reader pasting
    it into a script runs it: without the ``__main__`` guard the spawned worker
    re-imports the script and the example fails (as the Dask example of
    docs/distributed.rst did), with it the example prints its result."""
    code = _POOL.format(guard='if __name__ == "__main__":\n    ' if guarded else "",
                        indent="    " if guarded else "")
    page = tmp_path / "page.rst"
    page.write_text("Title\n=====\n\n.. code-block:: python\n\n"
                    + textwrap.indent(code, "    "))
    blocks, _ = parse_page(page)
    assert [b["kind"] for b in blocks] == ["file"]
    run = tmp_path / "run"
    run.mkdir()
    if guarded:
        _run(page, blocks, run)
    else:
        with pytest.raises(AssertionError, match="as a script file"):
            _run(page, blocks, run)

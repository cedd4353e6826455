"""The one Jinja environment of probestats: shipped templates, escaping and formatting filters.

:func:`environment` builds it for Markdown (every printed value escaped with
:func:`~probestats.present.words.fmt.md_escape` unless marked :class:`~probestats.present.words.fmt.MdSafe`)
or HTML (autoescaped), with the filters ``fmt_p`` (alpha-aware), ``fmt_num``, ``fmt_gap``,
``pct``, ``md``, ``code`` and ``fill``. The report, the framing section and the compare
section all render through it.
"""

from __future__ import annotations

import contextlib
import os
import re
import traceback
from importlib import resources
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from probestats.errors import OptionError, either, opt
from probestats.present.report.plain import flags_in_words
from probestats.present.words.fmt import MdSafe, fmt_gap, fmt_num, fmt_p, fmt_p_floor, fmt_pct, md_escape, md_finalize
from probestats.present.words.sanitize import html as html_text, visible

__all__ = ["environment", "template_root", "FolderLoader", "Todo", "user_template_errors", "tidy_layout"]


class Todo(str):
    """A visible placeholder asking the reader for what the log cannot say."""

    def __new__(cls, what: str):
        return super().__new__(cls, f"[to fill in: {what}]")


def tidy_layout(text: str, format: str) -> str:
    """A rendered report's layout tidied as every report's is: in Markdown, no run of blank lines and one
    newline at the end (escaped values never hold a newline, so only the layout changes); other formats as
    they are.

    >>> nl = chr(10)
    >>> tidy_layout("# T" + nl * 4 + "body" + nl * 2, "md") == "# T" + nl * 2 + "body" + nl
    True
    >>> tidy_layout("<p>" + nl * 3 + "</p>", "html") == "<p>" + nl * 3 + "</p>"
    True
    """
    if format != "md":
        return text
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n") + "\n"


def template_root():
    """The folder of the shipped templates: ``report_templates/`` at the top of a source tree (also
    what an editable install uses), else the copy installed inside the package by the wheel.

    >>> template_root().joinpath("report.md.j2").is_file()
    True
    """
    source_tree = Path(__file__).resolve().parents[3] / "report_templates"
    if (source_tree / "report.md.j2").is_file():
        return source_tree
    return resources.files("probestats").joinpath("report_templates")


def _package_template(name: str):
    if any(part in ("", "..") for part in name.split("/")) or "\\" in name:
        return None
    node = template_root().joinpath(*name.split("/"))
    if not node.is_file():
        return None
    source = node.read_text(encoding="utf-8")
    return source, None, lambda: True


class FolderLoader(jinja2.FileSystemLoader):
    """Templates read only from inside one folder: a name or a link that leads outside it is refused,
    and so is a hard link (a second name of a file that may lie anywhere).

    Every name a template asks for (the report's own, ``include``, ``import``, ``extends``) is
    resolved with its links; a file that then lies outside the folder is refused with
    :class:`~probestats.errors.OptionError` (not skipped: a refused template of the report's own
    name must not silently give way to the shipped one).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> outside = folder.parent / (folder.name + "-secret.txt")
    >>> _ = outside.write_text("secret")
    >>> (folder / "evil").symlink_to(outside)
    >>> FolderLoader(folder).get_source(None, "evil")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: templates=...: 'evil' is a link to a file outside that folder; ...
    """

    def __init__(self, folder):
        super().__init__(str(folder))
        self.folder = folder
        self.root = os.path.realpath(folder)

    def get_source(self, environment, template):
        pieces = jinja2.loaders.split_template_path(template)  # refuses '..'
        path = os.path.realpath(os.path.join(self.root, *pieces))
        if os.path.commonpath([self.root, path]) != self.root:
            raise OptionError(f"{opt('templates', str(self.folder))}: '{template}' is a link to a file outside that folder; "
                              "templates are read only from inside it (copy the file into the folder)")
        if os.path.isfile(path) and os.stat(path).st_nlink > 1:
            # a hard link is the same file as another name that may lie anywhere: nothing shows where
            raise OptionError(f"{opt('templates', str(self.folder))}: '{template}' is a hard link (the same file as another "
                              "name, which may lie outside the folder); copy the file into the folder instead")
        return super().get_source(environment, template)


def _loader(templates) -> jinja2.BaseLoader:
    loaders: list[jinja2.BaseLoader] = []
    if templates is not None:
        folder = Path(templates)
        if not folder.is_dir():
            raise OptionError(f"{opt('templates', str(folder))}: not a folder; give the folder that holds your .j2 templates")
        loaders.append(FolderLoader(folder))
    loaders.append(jinja2.FunctionLoader(_package_template))
    return jinja2.ChoiceLoader(loaders)


def _md_filter(value) -> MdSafe:
    return value if isinstance(value, MdSafe) else MdSafe(md_escape("" if value is None else value))


def _md_code(value) -> MdSafe:
    """A Markdown code span that holds any text (the fence is longer than any backtick run)."""
    text = visible(" ".join(str(value).split()))
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return MdSafe(f"{fence}{pad}{text.replace('|', chr(92) + '|')}{pad}{fence}")


def _md_fill(value) -> MdSafe:
    r"""Text, a list of texts, or a bold placeholder, escaped for Markdown; a text of several lines keeps
    them (a hard line break, indented to stay in its list item).

    >>> print(_md_fill("one\ntwo <b>"))
    one\
      two \<b\>
    """
    if isinstance(value, Todo):
        return MdSafe(f"**{md_escape(value)}**")
    if isinstance(value, (list, tuple)):
        return MdSafe("; ".join(md_escape(v) for v in value))
    if isinstance(value, str) and "\n" in value.strip("\n"):
        return MdSafe("\\\n  ".join(md_escape(line) for line in value.strip("\n").split("\n")))
    return MdSafe(md_escape(value))


def _html_fill(value) -> Markup:
    if isinstance(value, Todo):
        return Markup('<mark class="todo">{}</mark>').format(visible(str(value)))
    if isinstance(value, (list, tuple)):
        return Markup("; ").join(html_text(v) for v in value)
    if isinstance(value, str) and "\n" in value.strip("\n"):   # a text of several lines keeps them
        return Markup("<br>").join(html_text(line) for line in value.strip("\n").split("\n"))
    return html_text(value)


def _html_finalize(value):
    """Every value an HTML template prints: controls visible, escaped, right-to-left text isolated."""
    if value is None or isinstance(value, (Markup, int, float)):
        return value
    return html_text(value)


@jinja2.pass_context
def _fmt_p_filter(ctx, p, alpha=None):
    return fmt_p(p, ctx.get("alpha") if alpha is None else alpha)


@jinja2.pass_context
def _fmt_p_floor_filter(ctx, p, log10_p=None, alpha=None):
    """``fmt_p``, but a p at the float floor shows as ``< 1e-300`` (see :func:`probestats.present.words.fmt.fmt_p_floor`)."""
    return fmt_p_floor(p, log10_p, ctx.get("alpha") if alpha is None else alpha, prefix=False)


def environment(format: str = "md", templates=None) -> jinja2.Environment:
    """The Jinja environment for ``format`` ("md" or "html"), loading a user's ``templates``
    folder first (when given) and the shipped templates after it.

    Examples
    --------
    >>> env = environment("md")
    >>> env.from_string("{{ name }} p = {{ p|fmt_p }}").render(name="a|b", p=0.0499996, alpha=0.05)
    'a\\\\|b p = 0.0499996'
    >>> environment("html").from_string("{{ name }}").render(name="<b>")
    '&lt;b&gt;'
    """
    common = {"loader": _loader(templates), "undefined": jinja2.StrictUndefined,
              "trim_blocks": True, "lstrip_blocks": True, "keep_trailing_newline": True}
    # sandboxed: a template from --templates may come from someone else; it can lay out the values it is
    # given but not reach Python's internals, files or programs
    from jinja2.sandbox import SandboxedEnvironment

    if format == "html":
        env = SandboxedEnvironment(autoescape=True, finalize=_html_finalize, **common)
        env.filters["fill"] = _html_fill
    else:
        env = SandboxedEnvironment(autoescape=False, finalize=md_finalize, **common)
        env.filters["md"] = _md_filter
        env.filters["code"] = _md_code
        env.filters["fill"] = _md_fill
    env.filters["fmt_p"] = _fmt_p_filter
    env.filters["in_words"] = _in_words_filter
    env.filters["fmt_p_floor"] = _fmt_p_floor_filter
    env.filters["fmt_num"] = fmt_num
    env.filters["fmt_gap"] = fmt_gap
    env.filters["pct"] = lambda x: fmt_pct(x, "n/a")
    env.tests["todo"] = lambda v: isinstance(v, Todo)
    return env


@contextlib.contextmanager
def user_template_errors(templates):
    """A user's template that cannot be read or rendered: one line naming it and the fix (a context manager
    around rendering; the shipped templates failing is a bug and is raised as it is)."""
    try:
        yield
    except OptionError:
        raise  # already one line naming the fix (a template that leads outside its folder)
    except Exception as exc:
        if templates is None:
            raise  # the shipped templates failing is a bug, not a user's mistake
        folder = Path(templates).resolve()
        in_user_template = any(f.filename.endswith(".j2") and Path(f.filename).resolve().parent == folder
                               for f in traceback.extract_tb(exc.__traceback__))
        if not (isinstance(exc, (jinja2.TemplateError, UnicodeDecodeError)) or in_user_template):
            raise
        missing = isinstance(exc, jinja2.TemplateNotFound)
        name = None if missing else getattr(exc, "name", None)
        line = None if missing else getattr(exc, "lineno", None)
        if name is None:  # errors raised while rendering: the innermost template frame names it
            frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.endswith(".j2")]
            if frames:
                name, line = Path(frames[-1].filename).name, frames[-1].lineno
        where = f"{name or 'a template'}" + (f" line {line}" if line else "")
        if isinstance(exc, UnicodeDecodeError):
            why = "is not UTF-8 text; save it as UTF-8"
        elif missing:
            why = f"asks for '{exc.name}', which is neither in that folder nor shipped; fix the name"
        else:
            message = " ".join(str(getattr(exc, "message", None) or exc).split())
            if not isinstance(exc, jinja2.TemplateError):
                message = f"{type(exc).__name__}: {message}"
            why = f"fails: {message}; fix it, or remove it to use the shipped one"
        given = either(f"templates={str(templates)!r}", f"--templates {templates}")
        raise OptionError(f"{given}: {where} {why}") from None


def _in_words_filter(text) -> str:
    """A message written for the command line, as a plain report says it: each flag named in words, no file of
    the repository (:func:`probestats.present.report.plain.flags_in_words`)."""
    return flags_in_words(str(text))

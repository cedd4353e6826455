"""A progress display for long jobs: the stage a command is in, with the time it has taken.

Shown on standard error, and only when standard error is a terminal (never when piped or
redirected, and the commands turn it off with ``--json``), so no output a program reads changes.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Callable, Iterator


@contextmanager
def stages(enabled: bool = True, stream=None) -> Iterator[Callable[[str], None] | None]:
    """Yield a callback that shows each stage it is given (or None when nothing is shown).

    >>> import io
    >>> with stages(stream=io.StringIO()) as progress:  # not a terminal: nothing is shown
    ...     progress is None
    True
    """
    stream = sys.stderr if stream is None else stream
    if not enabled or not getattr(stream, "isatty", lambda: False)():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from probestats.present.sanitize import terminal

    console = Console(file=stream, stderr=True)
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=console,
                  transient=True) as bar:
        task = bar.add_task("starting", total=None)

        def show(stage: str) -> None:
            bar.update(task, description=terminal(stage))  # a file name is text from the user

        yield show

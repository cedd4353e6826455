"""A progress display for long jobs: the stage a command is in, with the time it has taken.

Shown on standard error (the commands turn it off with ``--json``), so no output a program reads changes: on a
terminal a spinner with the stage; piped or redirected, a plain line with the stage and the time so far, first
after :data:`PLAIN_EVERY` seconds (30) of work and then as often, so a quick job writes nothing and a long one
says it is still working.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Callable, Iterator

from probestats.present.words.sanitize import terminal

#: Seconds of work before the first plain progress line (standard error not a terminal), and between lines:
#: long enough that a job which ends in seconds (or with one Error line) writes none
PLAIN_EVERY = 30.0


@contextmanager
def _plain(stream, label: str, every: float | None) -> Iterator[Callable[[str], None]]:
    """Every ``every`` seconds while the block runs, one line ``label: stage, 12 s so far`` on ``stream``."""
    import threading
    import time

    every = PLAIN_EVERY if every is None else every
    start = time.monotonic()
    state = {"stage": "working"}
    done = threading.Event()

    def beat() -> None:
        while not done.wait(every):
            try:
                stream.write(f"{label}: {terminal(state['stage'])}, {time.monotonic() - start:.0f} s so far\n")
                stream.flush()
            except (OSError, ValueError):   # the stream was closed: nothing more to say
                return

    def show(stage: str) -> None:
        state["stage"] = stage

    thread = threading.Thread(target=beat, name="probestats-progress", daemon=True)
    thread.start()
    try:
        yield show
    finally:
        done.set()
        thread.join()


@contextmanager
def stages(enabled: bool = True, stream=None, label: str = "probestats",
           every: float | None = None) -> Iterator[Callable[[str], None] | None]:
    """Yield a callback that shows each stage it is given (or None when nothing is shown).

    >>> import io, time
    >>> out = io.StringIO()
    >>> with stages(stream=out, every=0.05) as progress:  # not a terminal: a line while a stage lasts
    ...     progress("testing")
    ...     time.sleep(0.3)
    >>> out.getvalue().splitlines()[0].startswith("probestats: testing, ")
    True
    >>> with stages(stream=io.StringIO(), enabled=False) as progress:
    ...     progress is None
    True
    """
    stream = sys.stderr if stream is None else stream
    if not enabled:
        yield None
        return
    if not getattr(stream, "isatty", lambda: False)():
        with _plain(stream, label, every) as show:
            yield show
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    console = Console(file=stream, stderr=True)
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=console,
                  transient=True) as bar:
        task = bar.add_task("starting", total=None)

        def show(stage: str) -> None:
            bar.update(task, description=terminal(stage))  # a file name is text from the user

        yield show

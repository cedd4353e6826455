"""Writing output files whole or not at all."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_whole(path: str | Path, content: str | bytes) -> None:
    """Write ``content`` to ``path`` through a temporary file and an atomic rename.

    A reader never sees half a file, and a failure leaves any earlier file as it was.
    The file gets ordinary permissions (the umask's), not a temporary file's private 0600.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.md"
    >>> write_whole(target, "# Report\\n")
    >>> target.read_text()
    '# Report\\n'
    """
    path = Path(path)
    data = content.encode("utf-8") if isinstance(content, str) else content
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent if str(path.parent) else ".")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def refuse_inputs(outputs, inputs) -> None:
    """Refuse an output path that is (after symlinks, or as a hard link) a file the command reads.

    ``outputs`` and ``inputs`` map an option as the user wrote it (``"-o"``, ``"--noise"``) to a path
    or ``None``. Called before anything is read, so a refused run reads and writes nothing.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> log = pathlib.Path(tempfile.mkdtemp()) / "log.csv"
    >>> _ = log.write_text("item,variant,steps\\n")
    >>> refuse_inputs({"-o": log}, {"LOG": log})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: -o ...log.csv is LOG ...log.csv, which this command reads; write the output to another file
    >>> refuse_inputs({"-o": log.with_name("report.md")}, {"LOG": log})
    """
    from probestats.errors import OptionError

    def paths(value):  # a path, None, or several paths (a log given as several files)
        if value is None:
            return []
        return [value] if isinstance(value, (str, os.PathLike)) else [v for v in value if v is not None]

    for out_option, out in outputs.items():
        if out is None:
            continue
        out_real = os.path.realpath(out)
        for in_option, source in ((o, p) for o, v in inputs.items() for p in paths(v)):
            same = out_real == os.path.realpath(source)
            if not same:
                try:
                    same = os.path.samefile(out, source)
                except OSError:  # one of them does not exist (yet)
                    same = False
            if same:
                raise OptionError(f"{out_option} {out} is {in_option} {source}, which this command reads; "
                                  "write the output to another file")

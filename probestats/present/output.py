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

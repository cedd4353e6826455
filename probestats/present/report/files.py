"""Writing output files whole or not at all, and never over a file this run did not write.

:func:`write_whole` writes one file through a temporary file and an atomic rename;
:func:`write_assets` writes a report's images into its folder beside the report. Inside
:func:`written_together` (the command line's report opens one) the images wait for the report
itself, and the two are written together, all or none: a failure (a full disk, a file-size limit, a path
that cannot be a file) removes every temporary file and any folder it created, and is one
:class:`~probestats.errors.OptionError` naming the user's path, never a temporary one.

An image folder's file is replaced only when an earlier run of probestats wrote it (its PNG
carries the marker :data:`MARK`; another file, such as the whole per-item table as CSV, is listed with
the SHA-256 of its bytes in the folder's :data:`MANIFEST`, so a file edited since is not ours any more);
any other file of the same name is refused unless ``force``.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import hashlib
import json
import os
import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from probestats.errors import OptionError, either
from probestats.present.words.fmt import MdSafe

__all__ = ["write_whole", "write_assets", "write_figures", "written_together", "refuse_inputs", "mark_png", "MARK"]

#: the text chunk (keyword, text) that marks a PNG as a report image written by probestats
MARK = (b"probestats", b"report image")
_PNG = b"\x89PNG\r\n\x1a\n"
#: the file in a report's folder that lists the files other than images probestats wrote there
MANIFEST = ".probestats-written.json"
_pending: contextvars.ContextVar["_Outputs | None"] = contextvars.ContextVar("probestats_outputs", default=None)


def mark_png(png: bytes) -> bytes:
    """``png`` with the text chunk :data:`MARK` after its header (other bytes are returned as they are).

    >>> marked = mark_png(_PNG + _chunk(b"IHDR", bytes(13)) + _chunk(b"IEND", b""))
    >>> _is_marked(marked), _is_marked(_PNG)
    (True, False)
    """
    if not png.startswith(_PNG) or _is_marked(png):
        return png
    end = len(_PNG) + 12 + struct.unpack(">I", png[8:12])[0]  # after the IHDR chunk
    return png[:end] + _chunk(b"tEXt", MARK[0] + b"\0" + MARK[1]) + png[end:]


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _is_marked(head: bytes) -> bool:
    return head.startswith(_PNG) and _chunk(b"tEXt", MARK[0] + b"\0" + MARK[1]) in head[:4096]


def _written_by_probestats(path: Path) -> bool:
    """Whether ``path`` is a regular file (not a link) that probestats wrote: a PNG it marked, its
    manifest, or a file the manifest lists with the SHA-256 of the bytes the file holds now."""
    if os.path.islink(path) or not os.path.isfile(path):
        return False
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return False
    if _is_marked(data[:4096]):
        return True
    if path.name == MANIFEST:
        return _manifest_entries(data) is not None
    listed = _read_manifest(path.parent)
    return listed.get(path.name) == hashlib.sha256(data).hexdigest()


def _manifest_entries(data: bytes) -> dict | None:
    """The entries (name -> SHA-256) of a manifest's bytes, or None when they are not one."""
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("written_by") != "probestats" or not isinstance(doc.get("files"), dict):
        return None
    return {str(k): str(v) for k, v in doc["files"].items()}


def _read_manifest(folder: Path) -> dict:
    path = Path(folder) / MANIFEST
    if os.path.islink(path) or not os.path.isfile(path):
        return {}
    try:
        return _manifest_entries(path.read_bytes()) or {}
    except OSError:
        return {}


def _with_manifest(folder: Path, items: dict) -> dict:
    """``items`` (path -> bytes) and, when some are not PNGs, the folder's manifest listing them."""
    others = {p.name: hashlib.sha256(data).hexdigest() for p, data in items.items() if not data.startswith(_PNG)}
    if not others:
        return items
    entries = {**_read_manifest(folder), **others}
    doc = {"written_by": "probestats", "files": dict(sorted(entries.items()))}
    return {**items, Path(folder) / MANIFEST: (json.dumps(doc, indent=2) + "\n").encode("utf-8")}


@dataclass
class _Outputs:
    """Files staged to be written together: path -> bytes, and the image folders among their parents."""

    force: bool = False
    files: dict = field(default_factory=dict)
    folders: set = field(default_factory=set)
    replaced: list = field(default_factory=list)

    def commit(self) -> None:
        files, self.files = self.files, {}
        self.replaced += _write_all(files, self.folders, self.force)


@contextlib.contextmanager
def written_together(force: bool = False):
    """Hold the images :func:`write_assets` writes inside the block until the next :func:`write_whole`,
    which writes them and its own file together, all or none (images still held at the end of the
    block are written then; nothing is when the block raises).

    Yields the staging, whose ``replaced`` lists the images of an earlier run that were replaced
    (for the caller to say so).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with written_together() as outputs:
    ...     write_assets(folder / "r_files", {"items.csv": b"item,gap"})
    ...     (folder / "r_files").exists()
    ...     write_whole(folder / "r.md", "[the whole table](r_files/items.csv)")
    ...     sorted(p.name for p in folder.rglob("*"))
    False
    ['.probestats-written.json', 'items.csv', 'r.md', 'r_files']
    """
    outputs = _Outputs(force=force)
    token = _pending.set(outputs)
    try:
        yield outputs
    finally:
        _pending.reset(token)
    outputs.commit()


def image_entry(name: str, png: bytes, alt: str, caption: str, format: str, assets_dir=None) -> tuple[dict, dict]:
    """A figure of a report as its template takes it, and the files to write beside the report.

    HTML embeds the PNG as a data address; Markdown links ``ASSETS/NAME.png`` in the assets folder, and the
    PNG is returned to be written there; without an assets folder (JSON) there is no figure.

    >>> refs, files = image_entry("gaps", b"png", "alt", "caption", "md", "report_files")
    >>> str(refs["gaps"]["src"]), list(files)
    ('report_files/gaps.png', ['gaps'])
    >>> image_entry("gaps", b"png", "alt", "caption", "html")[0]["gaps"]["src"]
    'data:image/png;base64,cG5n'
    """
    import base64
    from urllib.parse import quote

    if format == "html":
        return {name: {"src": "data:image/png;base64," + base64.b64encode(png).decode("ascii"), "alt": alt,
                       "caption": caption}}, {}
    if assets_dir is not None:
        return {name: {"src": MdSafe(f"{quote(Path(assets_dir).name)}/{name}.png"), "alt": alt,
                       "caption": caption}}, {name: png}
    return {}, {}


def check_target(path: str | Path, said: str, example: str) -> Path:
    """Refuse, before any work, an output path that is a folder or whose folder does not exist.

    ``said`` is the path as the caller named it (``output='r.md'``, ``-o r.md``); ``example`` a file name the
    message offers inside a folder.

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> check_target(folder, "output", "report.md")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: output: is a folder; give a file name such as .../report.md
    >>> check_target(Path(folder) / "none" / "r.md", "output", "report.md")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: output: the folder '.../none' does not exist; create it first
    """
    path = Path(path)
    if path.is_dir():
        raise OptionError(f"{said}: is a folder; give a file name such as {path / example}")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.exists():
        raise OptionError(f"{said}: the folder '{parent}' does not exist; create it first")
    return path


def write_whole(path: str | Path, content: str | bytes) -> None:
    """Write ``content`` to ``path`` through a temporary file and an atomic rename.

    A reader never sees half a file, and a failure leaves any earlier file as it was and no
    temporary file. The file gets ordinary permissions (the umask's), not a temporary file's
    private 0600. Inside :func:`written_together` the file is only staged.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.md"
    >>> write_whole(target, "# Report\\n")
    >>> target.read_text()
    '# Report\\n'
    >>> write_whole(target / "x.md", "")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: cannot write .../out.md/x.md: '.../out.md' is a file, not a folder; ...
    """
    data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
    staged = _pending.get()
    if staged is not None:  # the images staged so far go with it, all or none
        staged.files[Path(path)] = data
        staged.commit()
        return
    _write_all({Path(path): data}, set(), force=True)


def write_figures(folder: str | Path, pngs: dict) -> None:
    """A report's figures, ``{name: PNG bytes}``, written beside it as ``<name>.png`` (see :func:`write_assets`):
    with the report itself, never over a file probestats did not write."""
    write_assets(folder, {f"{name}.png": png for name, png in pngs.items()})


def write_assets(folder: str | Path, files: dict, force: bool = False) -> None:
    """Write a report's images (name -> PNG bytes, or other bytes such as a CSV) into ``folder``, created when
    missing.

    An image replaces a file of its name only when probestats wrote that file (an earlier run of
    the report); any other file is refused unless ``force`` (or the ``force`` of the enclosing
    :func:`written_together`). Each image is marked (:func:`mark_png`) so that a later run knows it.
    """
    folder = Path(folder)
    _refuse_long_names("the images folder", folder)
    if not os.path.isdir(folder.parent):
        _refuse_parent(folder, folder.parent)
    staged = _pending.get()
    items = _with_manifest(folder, {folder / name: mark_png(bytes(png)) for name, png in files.items()})
    if staged is not None:
        staged.folders.add(folder)
        staged.files.update(items)
        return
    _write_all(items, {folder}, force)


def _write_all(files: dict, folders: set, force: bool) -> list:
    """Write ``files`` (path -> bytes) all or none, creating the image ``folders`` they need.

    Returns the image paths that replaced an earlier run's images.
    """
    replaced = _check_targets(files, folders, force)
    created: list[Path] = []
    temps: dict[Path, str] = {}
    new: list[Path] = []
    try:
        for folder in sorted(folders, key=lambda p: len(p.parts)):
            if not os.path.lexists(folder) and any(p.parent == folder for p in files):
                with _as_option_error(folder):
                    folder.mkdir()
                created.append(folder)
        for path, data in files.items():
            with _as_option_error(path):
                temps[path] = _temporary(path, data)
        for path, tmp in temps.items():
            existed = os.path.lexists(path)
            with _as_option_error(path):
                os.replace(tmp, path)
            if not existed:
                new.append(path)
    except BaseException:
        for tmp in temps.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        for path in new:  # written by this run only: nothing of a failed run stays
            with contextlib.suppress(OSError):
                os.unlink(path)
        for folder in reversed(created):
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    return replaced


def _check_targets(files: dict, folders: set, force: bool) -> list:
    """Refuse, before writing anything, a path that cannot become the file asked for, and an image
    that would replace a file probestats did not write (unless ``force``)."""
    replaced = []
    for folder in folders:
        if os.path.lexists(folder) and not os.path.isdir(folder):
            raise OptionError(f"cannot write the report's images: '{folder}' is a file, not a folder; "
                              "move it away or name the report otherwise")
    for path in files:
        parent = path.parent if str(path.parent) else Path(".")
        if os.path.isdir(path):
            raise OptionError(f"cannot write {path}: it is a folder; move it away or write to another name")
        if path.parent in folders and os.path.lexists(path):
            if _written_by_probestats(path):
                if path.name != MANIFEST:  # the list of what it wrote is not news to the user
                    replaced.append(path)
            elif not force:
                raise OptionError(f"cannot write {path}: a file of that name is already in '{path.parent}' and "
                                  "probestats did not write it; move it away, or "
                                  + either("write to another name", "give --force to replace it"))
        elif parent not in folders and not os.path.isdir(parent):
            _refuse_parent(path, parent)
    return replaced


def _refuse_parent(path: Path, parent: Path) -> None:
    """The folder a file should go in does not exist or is not a folder: say which."""
    here = parent
    while not os.path.lexists(here) and here != here.parent:
        here = here.parent
    if os.path.lexists(here) and not os.path.isdir(here):
        raise OptionError(f"cannot write {path}: '{here}' is a file, not a folder; write to a folder")
    raise OptionError(f"cannot write {path}: the folder '{parent}' does not exist; create it first")


def _temporary(path: Path, data: bytes) -> str:
    """``data`` in a new temporary file beside ``path`` (a short name, whatever the length of
    ``path``'s), with the umask's permissions; its name is returned."""
    import tempfile

    parent = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=".probestats-", suffix=".tmp", dir=parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


_WHY = {
    errno.ENOSPC: "the disk is full; free some space or write elsewhere",
    errno.EDQUOT: "the disk quota is used up; free some space or write elsewhere",
    errno.EFBIG: "the file would be larger than the file-size limit set for this process; raise the limit",
    errno.EACCES: "permission denied; write to a folder you may write to",
    errno.EPERM: "permission denied; write to a folder you may write to",
    errno.EROFS: "the file system is read-only; write elsewhere",
    errno.ENAMETOOLONG: "the name is too long; use a shorter one",
    errno.ENOTDIR: "a part of the path is a file, not a folder; write to a folder",
    errno.EISDIR: "it is a folder; write to a file name",
    errno.ENOENT: "the folder does not exist or does not take new files; write to an ordinary folder",
    errno.EEXIST: "a file of that name is in the way; move it away",
    errno.EXDEV: "the folder is on another file system than its temporary file; write elsewhere",
}


@contextlib.contextmanager
def _as_option_error(path: Path):
    """An OSError writing ``path`` as one line naming ``path`` (the user's), never a temporary file's."""
    try:
        yield
    except OSError as exc:
        why = _WHY.get(exc.errno) or f"{exc.strerror or type(exc).__name__}; write elsewhere"
        raise OptionError(f"cannot write {path}: {why}") from None


def _refuse_long_names(option: str, path) -> None:
    """Refuse an output path with a name longer than a file system takes (asked of every path
    before any check of it, which would fail on such a name).

    >>> _refuse_long_names("-o", "a" * 300 + ".md")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: -o aaaa...aaa.md: a name of 303 bytes, more than the 255 a file name may have; use a shorter name
    """
    limit = 255  # the longest file name of the common file systems, in bytes
    for part in Path(path).parts:
        size = len(os.fsencode(part))
        if size > limit:
            shown = str(path) if len(str(path)) <= 60 else f"{str(path)[:4]}...{str(path)[-6:]}"
            raise OptionError(f"{option} {shown}: a name of {size} bytes, more than the {limit} a file name may "
                              "have; use a shorter name")


def _said(option: str, path) -> str:
    """An option with its path as the user wrote them: a flag (``-o report.md``, ``--read KEY=`` and the path)
    or a Python parameter (``output='report.md'``).

    >>> _said("-o", "r.md"), _said("--read records=VALUE", "t"), _said("output", "r.md")
    ('-o r.md', '--read records=t', "output='r.md'")
    """
    if option.endswith("=VALUE"):
        return f"{option.removesuffix('VALUE')}{path}"
    if (option.isidentifier() and option.islower()) or option.endswith("]"):
        return f"{option}={str(path)!r}"
    return f"{option} {path}"


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

    def paths(value):  # a path, None, or several paths (a log given as several files)
        if value is None:
            return []
        return [value] if isinstance(value, (str, os.PathLike)) else [v for v in value if v is not None]

    for out_option, out in outputs.items():
        if out is None:
            continue
        _refuse_long_names(out_option, out)
        out_real = os.path.realpath(out)
        for in_option, source in ((o, p) for o, v in inputs.items() for p in paths(v)):
            same = out_real == os.path.realpath(source)
            if not same:
                try:
                    same = os.path.samefile(out, source)
                except OSError:  # one of them does not exist (yet)
                    same = False
            if same:
                raise OptionError(f"{_said(out_option, out)} is {_said(in_option, source)}, which this command reads; "
                                  "write the output to another file")

"""A book's chapters, read from an EPUB (2 or 3) or a Markdown file: titles and plain text, nothing spoken yet.

EPUB: ``META-INF/container.xml`` names the OPF package; its ``<spine>`` gives the reading order of
XHTML documents (manifest ids to hrefs, relative to the OPF's folder). Titles come from the EPUB 3
navigation document (``<nav epub:type="toc">``) or else the EPUB 2 NCX (``navPoint/navLabel/text``),
matched to spine documents by href without its ``#fragment``; the first entry naming a document wins.
A spine document with no entry joins the chapter before it (a chapter split over several files
reads as one); one before any entry starts a chapter titled by its first h1-h3 heading, or untitled
(``""``). A book with no navigation at all makes each document a chapter titled so. Skipped:
``linear="no"`` spine items (footnotes, covers), the navigation document itself (a table of
contents read aloud is a list of page titles), and documents without text (a cover picture).

An EPUB is a zip of XML from strangers, so it is read under ``BookLimits``: entries, the bytes the
zip's directory declares, and the bytes actually inflated (counted while reading: a directory can
lie). Encrypted entries are refused, as are hrefs that leave the archive (``..``, absolute, a URL).
XML goes through the SSML parser's locked-down expat: an internal DTD subset, an entity declaration
or an external entity is refused; a bare ``<!DOCTYPE html>`` or XHTML's public DOCTYPE is kept, as
nothing is fetched from it. HTML's named entities (``&nbsp;``, ``&mdash;``), which XML does not
define, are rewritten to character references before parsing; any other named entity is refused.

Markdown: ``#`` and ``##`` headings start chapters (ATX headings only); text before the first one
is a chapter titled ``title``. What would be read aloud as syntax is removed: emphasis markers,
link targets (``[text](url)`` reads ``text``), images, HTML tags, list and quote markers, rules,
heading markers of deeper headings (their text stays), and fenced code blocks, which are dropped:
code read aloud is noise. Indented lines are read as text, not as code: prose often indents its
paragraphs.
"""

from __future__ import annotations

import html.entities
import io
import posixpath
import re
import xml.parsers.expat
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from ..errors import BookUnreadable, EmptyText, quoted
from .ssml import locked_down_parser


@dataclass(frozen=True)
class Chapter:
    title: str  # "" when the book gives it none
    text: str  # paragraphs separated by a blank line


@dataclass(frozen=True)
class BookLimits:
    """What one EPUB may hold. This function's own bounds: enough for a long novel with its pictures."""

    max_entries: int = 10_000
    max_total_bytes: int = 256 * 1024 * 1024  # inflated, over the whole archive
    max_file_bytes: int = 16 * 1024 * 1024  # inflated, one file read (a chapter, the OPF, the NCX)


@dataclass(frozen=True)
class ChapterMark:
    """Where a chapter begins in its book's text: a byte offset into the text as UTF-8, as the
    chunks' own offsets are counted."""

    title: str
    start: int


_CHAPTER_BREAK = "\n\n"  # a blank line: the chunker never reads across one


def book_text(chapters: list[Chapter]) -> str:
    """The book as one text to read: each chapter's title (said, ended as a sentence) then its
    paragraphs, chapters apart by a blank line, as the chunker splits paragraphs."""
    return _CHAPTER_BREAK.join(said for said in map(_said, chapters) if said)


def chapter_marks(chapters: list[Chapter]) -> list[ChapterMark]:
    """Where each chapter that says anything begins in ``book_text(chapters)``."""
    marks, position = [], 0
    for chapter in chapters:
        said = _said(chapter)
        if not said:
            continue
        marks.append(ChapterMark(chapter.title.strip(), position))
        position += len((said + _CHAPTER_BREAK).encode("utf-8"))
    return marks


def _said(chapter: Chapter) -> str:
    title = chapter.title.strip()
    if title and not title.endswith((".", "!", "?", ":", "。", "！", "？")):
        title += "."
    return _CHAPTER_BREAK.join(part for part in (title, chapter.text.strip()) if part)


CONTAINER = "META-INF/container.xml"
_XML_ENTITIES = frozenset({"amp", "lt", "gt", "quot", "apos"})
_NAMED_ENTITY = re.compile(rb"&([A-Za-z_][A-Za-z0-9_.-]{0,63});")
# Elements whose start and end end a paragraph; br ends a line.
_BLOCKS = frozenset(
    "address article aside blockquote body caption dd div dl dt figcaption figure footer h1 h2 h3 h4 h5 h6 header hr "
    "li main nav ol p pre section table td th tr ul".split()
)
_UNREAD = frozenset({"head", "script", "style", "template"})
_TITLE_HEADINGS = frozenset({"h1", "h2", "h3"})
_SPACE = re.compile(r"\s+")


def read_epub(data: bytes, *, limits: BookLimits = BookLimits()) -> list[Chapter]:
    """The chapters of the EPUB ``data``, in reading order. Raises ``BookUnreadable`` naming what is wrong."""
    archive = _Archive(data, limits)
    package_path = _container_rootfile(archive)
    package = _read_package(archive, package_path)
    titles = _navigation_titles(archive, package)
    chapters: list[tuple[str, list[str]]] = []
    for path in package.spine:
        if path == package.nav:
            continue
        document = _read_xhtml(archive, path)
        if not document.paragraphs:
            continue
        if path in titles or not chapters or not titles:
            chapters.append((titles.get(path, document.heading), list(document.paragraphs)))
        else:
            chapters[-1][1].extend(document.paragraphs)
    if not chapters:
        raise EmptyText("the EPUB's reading order holds no text (a book of pictures?): send a book with text")
    return [Chapter(title, "\n\n".join(paragraphs)) for title, paragraphs in chapters]


class _Archive:
    """The zip, checked whole before any file is read, and each file inflated under the bounds."""

    def __init__(self, data: bytes, limits: BookLimits) -> None:
        self.limits = limits
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(data))
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError) as error:
            raise BookUnreadable(f"the book is not an EPUB (a zip archive): {error}. Send the .epub file itself.") from None
        entries = self.zip.infolist()
        if len(entries) > limits.max_entries:
            raise BookUnreadable(f"the EPUB holds {len(entries):,} files; the limit is {limits.max_entries:,}. Send a smaller book.")
        declared = sum(entry.file_size for entry in entries)
        if declared > limits.max_total_bytes:
            raise BookUnreadable(
                f"the EPUB's files add up to {declared:,} bytes once unpacked; the limit is {limits.max_total_bytes:,}. Send a smaller book."
            )
        for entry in entries:
            if entry.flag_bits & 0x1:  # the zip format's "encrypted" bit
                raise BookUnreadable(f"the EPUB's file {quoted(entry.filename)} is encrypted: send a book without DRM or a password.")
        self.names = {entry.filename: entry for entry in entries}
        self.inflated = 0

    def read(self, path: str) -> bytes:
        entry = self.names.get(path)
        if entry is None:
            raise BookUnreadable(f"the EPUB names the file {quoted(path)}, which it does not hold: repair the book.")
        if entry.file_size > self.limits.max_file_bytes:
            raise BookUnreadable(self._too_big(path, entry.file_size))
        try:
            # zipfile stops inflating at the size the directory declares and then checks the CRC, so a
            # directory that understates a size fails here; reading at most one byte past the bound keeps
            # the count honest whatever the zip module does.
            with self.zip.open(entry) as file:
                data = file.read(self.limits.max_file_bytes + 1)
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError) as error:
            raise BookUnreadable(f"the EPUB's file {quoted(path)} cannot be unpacked: {error}. Repair the book.") from None
        if len(data) > self.limits.max_file_bytes:
            raise BookUnreadable(self._too_big(path, len(data)))
        self.inflated += len(data)
        if self.inflated > self.limits.max_total_bytes:
            raise BookUnreadable(
                f"the EPUB's files read so far unpack to {self.inflated:,} bytes; the limit is {self.limits.max_total_bytes:,}. Send a smaller book."
            )
        return data

    def _too_big(self, path: str, size: int) -> str:
        return f"the EPUB's file {quoted(path)} unpacks to {size:,} bytes or more; the limit is {self.limits.max_file_bytes:,}. Send a smaller book."


def _inside(base: str, href: str, named_in: str) -> str:
    """``href`` (a URL relative to the folder ``base``) as a path inside the archive, its fragment dropped."""
    parts = urlsplit(href)
    path = unquote(parts.path)
    if parts.scheme or parts.netloc or path.startswith("/"):
        raise BookUnreadable(f"{named_in} points outside the EPUB ({quoted(href)}): a book must hold every file it reads.")
    joined = posixpath.normpath(posixpath.join(base, path)) if path else base
    if joined == ".." or joined.startswith("../"):
        raise BookUnreadable(f"{named_in} points outside the EPUB ({quoted(href)}): a book must hold every file it reads.")
    return joined


# --- XML ---------------------------------------------------------------------------------------


def _parse(
    archive: _Archive,
    path: str,
    start: Callable[[str, dict[str, str]], None],
    end: Callable[[str], None] = lambda _: None,
    characters: Callable[[str], None] = lambda _: None,
) -> None:
    """Parse the archive's XML file ``path``, calling back with local names (``opf:item`` -> ``item``)."""

    def refuse(*_: object) -> None:
        raise BookUnreadable(
            f"the EPUB's file {quoted(path)} declares a DTD or entities, or refers to an external entity: refused, as "
            "such XML can be made to expand without bound or read other files. Remove them from the book."
        )

    def allow_bare_doctype(_name: str, _system_id: str | None, _public_id: str | None, has_internal_subset: bool) -> None:
        if has_internal_subset:
            refuse()

    def refuse_undefined(name: str, _is_parameter: bool) -> None:
        raise _undefined_entity(path, name)

    parser = locked_down_parser(refuse)
    parser.StartDoctypeDeclHandler = allow_bare_doctype
    parser.SkippedEntityHandler = refuse_undefined  # with an external DTD subset expat skips what it cannot define
    # Local names, and attributes both ways: ``epub:type`` is found by its prefix, ``opf:role`` as ``role``.
    parser.StartElementHandler = lambda name, attributes: start(_local(name), {_local(k): v for k, v in attributes.items()} | attributes)
    parser.EndElementHandler = lambda name: end(_local(name))
    parser.CharacterDataHandler = characters
    undefined: list[str] = []
    try:
        parser.Parse(_html_entities_as_references(archive.read(path), undefined), True)
    except xml.parsers.expat.ExpatError as error:
        if error.code == xml.parsers.expat.errors.codes[xml.parsers.expat.errors.XML_ERROR_UNDEFINED_ENTITY] and undefined:
            raise _undefined_entity(path, undefined[0]) from None  # expat's message does not name it
        raise BookUnreadable(
            f"the EPUB's file {quoted(path)} is not well-formed XML: {xml.parsers.expat.ErrorString(error.code)} "
            f"(line {error.lineno}, column {error.offset + 1}). Repair the book."
        ) from None


def _local(name: str) -> str:
    return name.rpartition(":")[2]


def _html_entities_as_references(data: bytes, undefined: list[str]) -> bytes:
    """``&nbsp;`` and HTML's other named entities as numeric references, which XML reads without a DTD.
    A name neither defines is left for expat to refuse, and added to ``undefined``."""

    def reference(match: re.Match[bytes]) -> bytes:
        name = match.group(1).decode("ascii")
        if name in _XML_ENTITIES:
            return match.group(0)
        characters = html.entities.html5.get(f"{name};")
        if characters is None:
            undefined.append(name)
            return match.group(0)
        return "".join(f"&#{ord(c)};" for c in characters).encode("ascii")

    return _NAMED_ENTITY.sub(reference, data)


def _undefined_entity(path: str, name: str) -> BookUnreadable:
    return BookUnreadable(
        f"the EPUB's file {quoted(path)} uses the entity &{name}; which neither XML nor HTML defines: write the character itself."
    )


# --- container, package, navigation -----------------------------------------------------------


def _container_rootfile(archive: _Archive) -> str:
    if CONTAINER not in archive.names:
        raise BookUnreadable(f"the book has no {CONTAINER}, which every EPUB holds: send an .epub file.")
    rootfiles: list[str] = []

    def start(name: str, attributes: dict[str, str]) -> None:
        if name == "rootfile" and attributes.get("full-path"):
            rootfiles.append(attributes["full-path"])

    _parse(archive, CONTAINER, start)
    if not rootfiles:
        raise BookUnreadable(f"the EPUB's {CONTAINER} names no package (<rootfile full-path=...>): repair the book.")
    return _inside("", rootfiles[0], f"{CONTAINER}'s rootfile")


@dataclass
class _Package:
    spine: list[str] = field(default_factory=list)  # linear documents, in reading order
    nav: str | None = None  # EPUB 3 navigation document
    ncx: str | None = None  # EPUB 2 table of contents


def _read_package(archive: _Archive, path: str) -> _Package:
    folder = posixpath.dirname(path)
    manifest: dict[str, tuple[str, str, str]] = {}  # id -> (href, media-type, properties)
    itemrefs: list[tuple[str, str]] = []  # (idref, linear)
    toc: list[str] = []

    def start(name: str, attributes: dict[str, str]) -> None:
        if name == "item" and "id" in attributes and "href" in attributes:
            manifest[attributes["id"]] = (attributes["href"], attributes.get("media-type", ""), attributes.get("properties", ""))
        elif name == "itemref" and "idref" in attributes:
            itemrefs.append((attributes["idref"], attributes.get("linear", "yes")))
        elif name == "spine" and attributes.get("toc"):
            toc.append(attributes["toc"])

    _parse(archive, path, start)
    package = _Package()
    for idref, linear in itemrefs:
        if idref not in manifest:
            raise BookUnreadable(
                f"the EPUB's package {quoted(path)} lists {quoted(idref)} in its spine but not in its manifest: repair the book."
            )
        if linear.strip() != "no":
            package.spine.append(_inside(folder, manifest[idref][0], f"the spine item {quoted(idref)}"))
    for id_, (href, media_type, properties) in manifest.items():
        if "nav" in properties.split():
            package.nav = _inside(folder, href, f"the manifest item {quoted(id_)}")
        elif media_type == "application/x-dtbncx+xml" and (not toc or toc[0] == id_):
            package.ncx = _inside(folder, href, f"the manifest item {quoted(id_)}")
    return package


def _navigation_titles(archive: _Archive, package: _Package) -> dict[str, str]:
    """Spine path -> chapter title, from the EPUB 3 navigation document, else the NCX; {} when neither has entries."""
    entries: list[tuple[str, str]] = []  # (href as written, title)
    source = package.nav
    if package.nav is not None:
        entries = _nav_entries(archive, package.nav)
    if not entries and package.ncx is not None:
        source = package.ncx
        entries = _ncx_entries(archive, package.ncx)
    titles: dict[str, str] = {}
    folder = posixpath.dirname(source or "")
    for href, title in entries:
        try:
            path = _inside(folder, href, "the table of contents")
        except BookUnreadable:
            continue  # an entry for a web page is not a chapter of the book
        titles.setdefault(path, title)
    return titles


def _nav_entries(archive: _Archive, path: str) -> list[tuple[str, str]]:
    entries: list[tuple[str, str]] = []
    depth_in_toc = 0  # open <nav> elements since the toc one opened; 0: outside it
    link: list[str] = []  # the open <a>'s href, then its words
    link_open = False

    def start(name: str, attributes: dict[str, str]) -> None:
        nonlocal depth_in_toc, link_open
        if name == "nav":
            if depth_in_toc or "toc" in _epub_types(attributes):
                depth_in_toc += 1
        elif name == "a" and depth_in_toc and "href" in attributes:
            link[:] = [attributes["href"]]
            link_open = True

    def end(name: str) -> None:
        nonlocal depth_in_toc, link_open
        if name == "nav" and depth_in_toc:
            depth_in_toc -= 1
        elif name == "a" and link_open:
            link_open = False
            entries.append((link[0], _collapsed("".join(link[1:]))))

    def characters(data: str) -> None:
        if link_open:
            link.append(data)

    _parse(archive, path, start, end, characters)
    return entries


def _epub_types(attributes: dict[str, str]) -> list[str]:
    """The words of an ``epub:type`` attribute, whatever prefix the document bound to the EPUB namespace."""
    return [word for key, value in attributes.items() if key.endswith(":type") for word in value.split()]


def _ncx_entries(archive: _Archive, path: str) -> list[tuple[str, str]]:
    entries: list[tuple[str, str]] = []
    open_points: list[list[str]] = []  # per open navPoint: [src, title]
    in_label_text = False

    def start(name: str, attributes: dict[str, str]) -> None:
        nonlocal in_label_text
        if name == "navPoint":
            open_points.append(["", ""])
        elif name == "text" and open_points:
            in_label_text = True
        elif name == "content" and open_points and not open_points[-1][0]:
            open_points[-1][0] = attributes.get("src", "")
            entries.append((open_points[-1][0], _collapsed(open_points[-1][1])))  # a point's label comes before its content

    def end(name: str) -> None:
        nonlocal in_label_text
        if name == "navPoint" and open_points:
            open_points.pop()
        elif name == "text":
            in_label_text = False

    def characters(data: str) -> None:
        if in_label_text and not open_points[-1][0]:
            open_points[-1][1] += data

    _parse(archive, path, start, end, characters)
    return [(src, title) for src, title in entries if src]


# --- XHTML documents ---------------------------------------------------------------------------


@dataclass
class _Document:
    paragraphs: list[str] = field(default_factory=list)
    heading: str = ""  # the first h1-h3's text


def _read_xhtml(archive: _Archive, path: str) -> _Document:
    document = _Document()
    lines: list[str] = []  # the paragraph being read, its lines as written
    unread = 0  # open elements whose text is not read (head, script, style)
    heading: list[str] | None = None  # the first h1-h3's words while it is open
    in_body = False

    def end_paragraph() -> None:
        text = "\n".join(line for line in (_collapsed(line) for line in "".join(lines).split("\n")) if line)
        if text:
            document.paragraphs.append(text)
        lines.clear()

    def start(name: str, attributes: dict[str, str]) -> None:
        nonlocal unread, heading, in_body
        if name in _UNREAD or unread:
            unread += 1
        elif name == "br":
            lines.append("\n")
        elif name in _BLOCKS:
            in_body = in_body or name == "body"
            end_paragraph()
            if name in _TITLE_HEADINGS and not document.heading:
                heading = []

    def end(name: str) -> None:
        nonlocal unread, heading
        if unread:
            unread -= 1
        elif name in _BLOCKS:
            end_paragraph()
            if name in _TITLE_HEADINGS and heading is not None:
                document.heading = _collapsed("".join(heading))  # "" (a picture's heading): the next one may title it
                heading = None

    def characters(data: str) -> None:
        if in_body and not unread:
            lines.append(data.replace("\n", " "))
            if heading is not None:
                heading.append(data)

    _parse(archive, path, start, end, characters)
    end_paragraph()
    return document


def _collapsed(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


# --- Markdown ----------------------------------------------------------------------------------

_ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_RULE = re.compile(r"^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*\S+.*$")
_BLOCK_MARKERS = re.compile(r"^[ \t]*(?:>[ \t]?)*[ \t]*(?:[-+*][ \t]+|\d{1,9}[.)][ \t]+)?(?:\[[ xX]\][ \t]+)?")
_IMAGE = re.compile(r"!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])")
_LINK = re.compile(r"\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_AUTOLINK = re.compile(r"<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*|[^<>\s@]+@[^<>\s]+)>")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>|<!--.*?-->")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_EMPHASIS = (
    re.compile(r"(\*\*|~~|\*)(?=\S)(.+?)(?<=\S)\1"),
    re.compile(r"(?<![\w\\])(__|_)(?=\S)(.+?)(?<=\S)\1(?!\w)"),  # _ inside a word (snake_case) is no emphasis
)
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_ESCAPED = 0xF0000  # escaped punctuation waits in Unicode's private use plane, out of the patterns' way
_UNESCAPE = re.compile("[\U000f0021-\U000f007e]")


def read_markdown(text: str, *, title: str = "") -> list[Chapter]:
    """The chapters of the Markdown ``text``: one per ``#`` or ``##`` heading, titled by it; text before
    the first heading is a chapter titled ``title`` (the file's name, or ``""``)."""
    chapters: list[tuple[str, list[str]]] = [(title, [])]
    fence: str | None = None
    for line in text.splitlines():
        if fence is not None:
            fence = None if line.strip().startswith(fence) else fence
            continue
        if opened := _FENCE.match(line):
            fence = opened.group(1)
            continue
        heading = _ATX_HEADING.match(line)
        if heading and len(heading.group(1)) <= 2:
            chapters.append((_spoken(heading.group(2) or ""), []))
        elif heading:
            chapters[-1][1].extend(["", _spoken(heading.group(2) or ""), ""])
        elif _RULE.match(line) or _LINK_DEFINITION.match(line):
            chapters[-1][1].append("")
        else:
            chapters[-1][1].append(_spoken(_BLOCK_MARKERS.sub("", line, count=1)))
    read = [Chapter(name, _paragraphs(lines)) for name, lines in chapters]
    read = [chapter for chapter in read if chapter.text]
    if not read:
        raise EmptyText("the Markdown holds no text to read: send a file with words outside code blocks")
    return read


def _spoken(line: str) -> str:
    """One line of Markdown without the syntax a voice would read out."""
    line = _ESCAPE.sub(lambda escaped: chr(_ESCAPED + ord(escaped.group(1))), line)
    line = _IMAGE.sub("", line)
    line = _LINK.sub(r"\1", line)
    line = _AUTOLINK.sub("", line)
    line = _HTML_TAG.sub("", line)
    line = _CODE_SPAN.sub(lambda match: match.group(2).strip(), line)
    for emphasis in _EMPHASIS:
        while True:
            stripped = emphasis.sub(r"\2", line)
            if stripped == line:
                break
            line = stripped
    return _UNESCAPE.sub(lambda escaped: chr(ord(escaped.group(0)) - _ESCAPED), line).rstrip()


def _paragraphs(lines: Iterable[str]) -> str:
    """Lines to paragraphs: a blank line ends one, lines within one are joined by a space."""
    paragraphs: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            paragraphs[-1].append(_collapsed(line))
        elif paragraphs[-1]:
            paragraphs.append([])
    return "\n\n".join(" ".join(paragraph) for paragraph in paragraphs if paragraph)

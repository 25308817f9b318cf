"""A book's chapters from an EPUB (built here with zipfile, as a publisher's tools lay it out) or Markdown."""

from __future__ import annotations

import io
import struct
import zipfile

import pytest

from supertonic_engine.errors import BookUnreadable, EmptyText
from supertonic_engine.text.book import BookLimits, Chapter, read_epub, read_markdown

CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="{opf}" media-type="application/oebps-package+xml"/></rootfiles>
</container>"""

XHTML2_DOCTYPE = '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">'


def xhtml(body: str, doctype: str = "<!DOCTYPE html>") -> str:
    return (
        f'<?xml version="1.0" encoding="utf-8"?>\n{doctype}\n'
        '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">'
        f"<head><title>Running head</title><style>p {{ color: red }}</style></head><body>{body}</body></html>"
    )


def package(items: list[tuple[str, str, str]], spine: list[str], toc: str = "") -> str:
    """items: (id, href, properties or media type); spine: idrefs, ``!id`` for linear="no"."""
    manifest = "".join(
        f'<item id="{id_}" href="{href}" media-type="{kind if "/" in kind else "application/xhtml+xml"}"'
        f"{f' properties={chr(34)}{kind}{chr(34)}' if kind and '/' not in kind else ''}/>"
        for id_, href, kind in items
    )
    itemrefs = "".join(
        f'<itemref idref="{ref.lstrip("!")}"{" linear=" + chr(34) + "no" + chr(34) if ref.startswith("!") else ""}/>' for ref in spine
    )
    return (
        '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
        f"<metadata/><manifest>{manifest}</manifest><spine{f' toc={chr(34)}{toc}{chr(34)}' if toc else ''}>{itemrefs}</spine></package>"
    )


def epub(files: dict[str, str | bytes], opf: str = "OEBPS/content.opf") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        if "META-INF/container.xml" not in files:
            archive.writestr("META-INF/container.xml", CONTAINER.format(opf=opf))
        for name, content in files.items():
            archive.writestr(name, content, compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def epub3() -> bytes:
    """An EPUB 3 in nested folders: a nav, a cover (linear="no"), a chapter split over two files, a chapter with a fragment link."""
    nav = xhtml(
        '<nav epub:type="toc"><ol>'
        '<li><a href="text/one.xhtml">Chapter&nbsp;One</a><ol><li><a href="text/one.xhtml#part">A part</a></li></ol></li>'
        '<li><a href="text/two.xhtml#start">Chapter  <em>Two</em></a></li>'
        '</ol></nav><nav epub:type="landmarks"><ol><li><a href="text/cover.xhtml">Cover</a></li></ol></nav>'
    )
    return epub(
        {
            "OEBPS/book/content.opf": package(
                [
                    ("nav", "nav.xhtml", "nav"),
                    ("cover", "text/cover.xhtml", ""),
                    ("one", "text/one.xhtml", ""),
                    ("one-b", "text/one%20b.xhtml", ""),
                    ("two", "text/two.xhtml", ""),
                    ("css", "style.css", "text/css"),
                ],
                ["!cover", "nav", "one", "one-b", "two"],
            ),
            "OEBPS/book/nav.xhtml": nav,
            "OEBPS/book/text/cover.xhtml": xhtml("<p>Cover text nobody reads.</p>"),
            "OEBPS/book/text/one.xhtml": xhtml(
                "<h1>One</h1><p>It was a   bright\n cold day&mdash;in April.</p><script>alert(1)</script>"
                "<div>First line<br/>second line</div><ul><li>an item</li><li>another</li></ul>"
            ),
            "OEBPS/book/text/one b.xhtml": xhtml("<section><p>The chapter goes on in a second file.</p></section>"),
            "OEBPS/book/text/two.xhtml": xhtml('<h2 id="start">Two</h2><blockquote><p>A quote &amp; more.</p></blockquote>'),
            "OEBPS/book/style.css": "p { margin: 0 }",
        },
        opf="OEBPS/book/content.opf",
    )


def test_an_epub3_reads_its_spine_in_order_titled_by_its_nav():
    assert read_epub(epub3()) == [
        Chapter(
            "Chapter One",  # a no-break space is a space once collapsed
            "One\n\nIt was a bright cold day\u2014in April.\n\nFirst line\nsecond line\n\nan item\n\nanother\n\n"
            "The chapter goes on in a second file.",
        ),
        Chapter("Chapter Two", "Two\n\nA quote & more."),
    ]


def ncx(points: str) -> str:
    return f'<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><navMap>{points}</navMap></ncx>'


def nav_point(label: str, src: str, inner: str = "") -> str:
    return f"<navPoint><navLabel><text>{label}</text></navLabel><content src='{src}'/>{inner}</navPoint>"


def test_an_epub2_takes_its_titles_from_the_ncx_and_a_page_before_any_entry_is_titled_by_its_heading():
    book = epub(
        {
            "content.opf": package(
                [
                    ("ncx", "toc.ncx", "application/x-dtbncx+xml"),
                    ("title", "title.html", ""),
                    ("c1", "c1.html", ""),
                    ("c2", "sub/c2.html", ""),
                ],
                ["title", "c1", "c2"],
                toc="ncx",
            ),
            "toc.ncx": ncx(nav_point("Part I", "c1.html", nav_point("Nested", "sub/c2.html#x")) + nav_point("Again", "c1.html#later")),
            "title.html": xhtml("<div><h3>The Title Page</h3><p>by Someone</p></div>", XHTML2_DOCTYPE),
            "c1.html": xhtml("<p>Words of&#160;part one.</p>", XHTML2_DOCTYPE),
            "sub/c2.html": xhtml("<p>Nested words.</p>", XHTML2_DOCTYPE),
        },
        opf="content.opf",
    )
    assert read_epub(book) == [
        Chapter("The Title Page", "The Title Page\n\nby Someone"),
        Chapter("Part I", "Words of part one."),
        Chapter("Nested", "Nested words."),
    ]


def test_a_book_without_navigation_makes_each_document_a_chapter_titled_by_its_first_heading():
    book = epub(
        {
            "o/p.opf": package([("a", "a.xhtml", ""), ("b", "b.xhtml", ""), ("pic", "pic.xhtml", "")], ["a", "pic", "b"]),
            "o/a.xhtml": xhtml("<h4>Small</h4><h2><img src='x.png'/></h2><h3>Real heading</h3><p>A.</p>"),
            "o/pic.xhtml": xhtml("<div><img src='x.png' alt='a picture'/></div>"),
            "o/b.xhtml": xhtml("<p>B.</p>"),
        },
        opf="o/p.opf",
    )
    assert read_epub(book) == [Chapter("Real heading", "Small\n\nReal heading\n\nA."), Chapter("", "B.")]


def simple_book(chapter: str | bytes, **extra: str | bytes) -> bytes:
    return epub({"p.opf": package([("c", "c.xhtml", "")], ["c"]), "c.xhtml": chapter, **extra}, opf="p.opf")


def refusal(data: bytes, limits: BookLimits | None = None) -> str:
    with pytest.raises(BookUnreadable) as raised:
        read_epub(data, limits=limits or BookLimits())
    assert raised.value.field == "text" and raised.value.code == "book_unreadable"
    return raised.value.message


def test_an_entity_html_defines_and_xml_does_not_is_read_and_any_other_is_refused_naming_it():
    assert read_epub(simple_book(xhtml("<p>A&nbsp;B &hellip; &lt;C&gt; &eacute;t&eacute;</p>")))[0].text == "A B \u2026 <C> \u00e9t\u00e9"
    assert "&madeup;" in refusal(simple_book(xhtml("<p>A &madeup; B</p>")))
    assert "&madeup;" in refusal(simple_book(xhtml("<p>A &madeup; B</p>", XHTML2_DOCTYPE)))


def test_a_dtd_with_entities_is_refused():
    laughs = '<!DOCTYPE html [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
    message = refusal(simple_book(xhtml("<p>&b;</p>", laughs)))
    assert "'c.xhtml'" in message and "DTD" in message


def test_a_dtd_without_entities_is_refused_too():
    message = refusal(simple_book(xhtml("<p>x</p>", '<!DOCTYPE html [<!ATTLIST p class CDATA "injected">]>')))
    assert "'c.xhtml'" in message and "DTD" in message


def test_an_external_entity_is_refused(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("do not read")
    message = refusal(simple_book(xhtml("<p>&x;</p>", f'<!DOCTYPE html [<!ENTITY x SYSTEM "file://{secret}">]>')))
    assert "external entity" in message


def test_the_container_is_read_as_locked_down_as_a_chapter():
    def book(doctype: str) -> bytes:
        container = CONTAINER.format(opf="p.opf").replace("<container", f"{doctype}<container")
        return simple_book(xhtml("<p>x</p>"), **{"META-INF/container.xml": container})

    # A DOCTYPE naming an external DTD but declaring nothing is read; nothing is fetched from it.
    assert read_epub(book('<!DOCTYPE c SYSTEM "http://example.com/x.dtd">')) == [Chapter("", "x")]
    message = refusal(book('<!DOCTYPE c [<!ENTITY e SYSTEM "http://example.com/e">]>'))
    assert "'META-INF/container.xml'" in message and "DTD" in message


def test_hrefs_that_leave_the_archive_are_refused_naming_them():
    for href in ("../../etc/passwd", "/etc/passwd", "http://example.com/c.xhtml"):
        message = refusal(epub({"o/p.opf": package([("c", href, "")], ["c"])}, opf="o/p.opf"))
        assert repr(href) in message and "outside the EPUB" in message
    assert "outside the EPUB" in refusal(epub({}, opf="../p.opf"))


def test_a_zip_bomb_is_refused_by_the_size_its_directory_declares():
    bomb = simple_book(xhtml("<p>" + "a" * 2_000_000 + "</p>"))
    assert len(bomb) < 10_000
    message = refusal(bomb, BookLimits(max_total_bytes=1_000_000))
    assert "1,000,000" in message and "once unpacked" in message
    message = refusal(bomb, BookLimits(max_file_bytes=1_000_000))
    assert "'c.xhtml'" in message and "1,000,000" in message


def test_too_many_entries_are_refused():
    many = simple_book(xhtml("<p>x</p>"), **{f"img/{n}.png": b"" for n in range(30)})
    assert "the limit is 20" in refusal(many, BookLimits(max_entries=20))


def lie_about_size(data: bytes, name: bytes, size: int) -> bytes:
    """The zip with ``name``'s uncompressed size in its central directory (and local header) replaced by ``size``."""
    out = bytearray(data)
    central = 0
    while (central := out.find(b"PK\x01\x02", central)) != -1:
        name_length = struct.unpack_from("<H", out, central + 28)[0]
        if bytes(out[central + 46 : central + 46 + name_length]) == name:
            struct.pack_into("<I", out, central + 24, size)
            local = struct.unpack_from("<I", out, central + 42)[0]
            struct.pack_into("<I", out, local + 22, size)
        central += 4
    return bytes(out)


def test_a_directory_that_understates_a_file_s_size_is_refused_naming_the_file():
    honest = simple_book(xhtml("<p>" + "a" * 50_000 + "</p>"))
    liar = lie_about_size(honest, b"c.xhtml", 100)
    assert zipfile.ZipFile(io.BytesIO(liar)).getinfo("c.xhtml").file_size == 100
    message = refusal(liar)
    assert "'c.xhtml'" in message and "cannot be unpacked" in message


def test_an_encrypted_entry_is_refused_naming_it():
    book = bytearray(simple_book(xhtml("<p>x</p>")))
    position = 0
    while (position := book.find(b"PK\x01\x02", position)) != -1:  # set the encrypted bit in every central directory record
        book[position + 8] |= 0x1
        position += 4
    message = refusal(bytes(book))
    assert "encrypted" in message and "'mimetype'" in message


def test_what_is_not_an_epub_says_so():
    assert "not an EPUB" in refusal(b"plain text")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.txt", "x")
    assert "META-INF/container.xml" in refusal(buffer.getvalue())
    assert "not well-formed XML" in refusal(simple_book("<html><body><p>unclosed</body></html>"))
    assert "'gone.xhtml'" in refusal(epub({"p.opf": package([("c", "gone.xhtml", "")], ["c"])}, opf="p.opf"))
    with pytest.raises(EmptyText):
        read_epub(simple_book(xhtml("<div><img src='x.png'/></div>")))


MARKDOWN = """Written by **Someone**, from [the site](https://example.com "a title").

# Chapter *One*

It was a _bright_ cold day, said some_variable_name.
![a map](map.png) See <https://example.com> and `the code`.

- a list item
* another
1. numbered

> A quote
> goes on.

```python
# not a heading
print("not read")
```

### A smaller heading ###

---

## Chapter Two ##
Words with \\*stars\\* and [a reference][ref] and <b>tags</b>.

[ref]: https://example.com
"""


def test_markdown_chapters_start_at_level_one_and_two_headings_without_syntax_read_aloud():
    assert read_markdown(MARKDOWN, title="book.md") == [
        Chapter("book.md", "Written by Someone, from the site."),
        Chapter(
            "Chapter One",
            "It was a bright cold day, said some_variable_name. See and the code.\n\n"
            "a list item another numbered\n\nA quote goes on.\n\nA smaller heading",
        ),
        Chapter("Chapter Two", "Words with *stars* and a reference and tags."),
    ]


def test_markdown_with_only_code_is_empty():
    with pytest.raises(EmptyText):
        read_markdown("```\ncode\n```\n")
    assert read_markdown("# Only a title\n\nText.") == [Chapter("Only a title", "Text.")]

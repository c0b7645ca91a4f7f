"""Whether a manifest file's bytes may spell a word once parsed: the sound form of the cheap text tests
discovery makes before parsing a file (is it an Application, an ApplicationSet, a hostPath
PersistentVolume, a CustomResourceDefinition?).

A text test may only skip a file when no spelling could make the parsed value; the decision itself
is always made on the parsed documents. YAML and JSON read many spellings as the same string
(attacker trial 8, F6/F8/F9): ``kind: !!str Application``, ``kind: &a Application``, a folded
``>-`` scalar and ``'Application'`` all hold the word as written, but go-yaml (``scannerc.go``
double-quoted escapes ``\\x``, ``\\u``, ``\\U``, ``\\/`` and the escaped line break that joins two
lines), ``encoding/json`` (``\\u0061``, ``\\/``), a ``!!binary`` scalar (``resolve.go`` decodes
its base64; a tag may be spelled through ``%TAG`` or with ``%`` escapes) and a UTF-16 or UTF-32
file (read after its BOM: :func:`hooklint.loader.decode_manifest`) can make a string whose letters
are nowhere in the bytes. :func:`rewritten` says when that may be so; :func:`may_hold` is then
true whatever the words.
"""

from __future__ import annotations

import codecs
import re

#: A backslash escape that can make a letter, ``/`` or join two lines (YAML double-quoted, JSON);
#: the others (``\\n``, ``\\t``, ``\\"``, ...) make no letter of a word.
_LETTER_ESCAPE = re.compile(rb"\\[xuU/\r\n]")
#: A tag that may be ``!!binary`` (any tag naming ``binary`` or holding a ``%`` escape), or a
#: ``%TAG`` directive (a handle that may expand to the binary tag).
_DECODING_TAG = re.compile(rb"!\S*?(?:binary|%)|^%TAG", re.MULTILINE)
#: :data:`_DECODING_TAG` in linear time (it read a run of ``!`` once for each of them: 40 kB of
#: ``!`` took 45 s): from a word's start to its first ``!``, then on to ``binary`` or ``%`` (a
#: later ``!`` of the word has no more after it), each word read once.
_DECODING_TAG_WORD = re.compile(rb"(?<!\S)[^\s!]*!\S*?(?:binary|%)|^%TAG", re.MULTILINE)
#: The byte order marks of texts the loader decodes from UTF-16 or UTF-32.
_WIDE_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


#: id(data) -> (data, rewritten(data) or None until asked) for the bytes the scans of one
#: discovery share (:func:`share`: each file's bytes are one object, read once by
#: :func:`hooklint.sources.repository.facts.read_regular`), so that the scans search each file for
#: escapes and tags once; other bytes are searched each time. Emptied by :func:`forget`.
_shared: dict[int, tuple[bytes, "bool | None"]] = {}


def share(data: bytes) -> None:
    """Remember :func:`rewritten` of ``data`` once asked, until :func:`forget` (bytes read once and
    kept for the scans of a run)."""
    _shared[id(data)] = (data, None)


def forget() -> None:
    """Drop every :func:`share` (the end of discovery, or a new run)."""
    _shared.clear()


def rewritten(data: bytes) -> bool:
    """Whether the parsed text of the file bytes ``data`` may hold strings whose characters are
    not written as such in ``data``: a backslash escape that can make a letter (YAML double-quoted
    ``\\x61``, ``\\u0061``, ``\\U00000061``, ``\\/``, an escaped line break; JSON ``\\u0061``,
    ``\\/``), a tag that may be ``!!binary``, or a UTF-16/UTF-32 encoding. Conservative: an escape
    in a comment or a plain scalar counts too."""
    kept = _shared.get(id(data))
    if kept is not None and kept[0] is data and kept[1] is not None:
        return kept[1]
    found = data.startswith(_WIDE_BOMS) or _LETTER_ESCAPE.search(data) is not None or (
        b"!" in data and _DECODING_TAG_WORD.search(data) is not None)
    if kept is not None and kept[0] is data:
        _shared[id(data)] = (data, found)
    return found



def may_hold(data: bytes, *words: bytes) -> bool:
    """Whether the parsed documents of the file bytes ``data`` may hold every one of ``words`` (as
    a key, a value or part of one): each is written in ``data``, or ``data`` is :func:`rewritten`.
    False means no spelling in ``data`` makes one of them, so a scan may skip the file unparsed."""
    for word in words:  # a loop, not all(...) over a generator: asked of every file by each scan
        if word not in data:
            return rewritten(data)
    return True

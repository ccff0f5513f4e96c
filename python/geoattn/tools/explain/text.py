"""Token text from a model folder's tokenizer with the standard library alone (no sentencepiece
or tokenizers package needed): the vocabulary's pieces, each id's piece as text.

- tokenizer.model (sentencepiece): the pieces read from its protobuf (ModelProto field 1, each
  SentencePiece's field 1 the piece, field 3 its type); "▁" is a space, a byte piece <0xNN> is
  that byte.
- tokenizer.json (Hugging Face): model.vocab and added_tokens; a ByteLevel decoder maps the
  pieces' characters back to bytes (GPT-2's byte-to-character table), otherwise "▁" is a space
  and <0xNN> a byte (byte fallback).

A piece that is not whole UTF-8 on its own (one byte of a multi-byte character) shows its bytes
as \\xNN. This is each id's piece, not a detokenised string: a word's leading space is kept.
printable() shows a piece on one line (the context block, the figure's labels).
"""
from __future__ import annotations

import json
import os
import re

__all__ = ["TokenizerError", "Vocabulary", "load_vocabulary", "printable"]

_BYTE_PIECE = re.compile(r"^<0x([0-9A-Fa-f]{2})>$")
_SP_BYTE = 6  # sentencepiece's ModelProto.SentencePiece.Type BYTE
_SHOWN = {"\n": "↵", "\r": "␍", "\t": "⇥"}  # printable(): a line break, a carriage return, a tab


class TokenizerError(ValueError):
    """A model folder without a tokenizer this module reads, or one it cannot parse."""


def _varint(buf, i):
    out = shift = 0
    while True:
        b = buf[i]
        i += 1
        out |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return out, i


def _fields(buf):
    """(field number, wire type, value) of a protobuf message: ints for varints, bytes for
    length-delimited fields, the raw bytes of fixed32/fixed64 ones."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(buf, i)
        elif wire == 2:
            size, i = _varint(buf, i)
            value, i = buf[i:i + size], i + size
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            value, i = buf[i:i + width], i + width
        else:
            raise TokenizerError(f"protobuf wire type {wire} not expected")
        yield number, wire, value


def _bytes_to_unicode():
    """GPT-2's table from bytes to the printable characters a ByteLevel BPE vocabulary uses."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


class Vocabulary:
    """Each id's piece as bytes (`pieces`), with `source` naming the file and the route."""

    def __init__(self, pieces: dict, source: str):
        self.pieces = pieces
        self.source = source

    def text(self, token: int) -> str:
        """The piece of `token` as text (\\xNN for bytes that are not whole UTF-8; <id N> for an
        id the vocabulary lacks)."""
        b = self.pieces.get(int(token))
        return f"<id {int(token)}>" if b is None else b.decode("utf-8", errors="backslashreplace")


def _sentencepiece(path):
    with open(path, "rb") as f:
        buf = f.read()
    pieces = {}
    for number, wire, value in _fields(buf):
        if number != 1 or wire != 2:
            continue
        piece, kind = b"", 1
        for n, w, v in _fields(value):
            if n == 1 and w == 2:
                piece = bytes(v)
            elif n == 3 and w == 0:
                kind = v
        m = _BYTE_PIECE.match(piece.decode("utf-8", "replace"))
        pieces[len(pieces)] = bytes([int(m.group(1), 16)]) if kind == _SP_BYTE and m else \
            piece.replace("▁".encode(), b" ")
    if not pieces:
        raise TokenizerError(f"{path}: no pieces in this sentencepiece model")
    return Vocabulary(pieces, f"{path} (sentencepiece pieces read from its protobuf)")


def _hf_json(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    vocab = dict((doc.get("model") or {}).get("vocab") or {})
    if not vocab:
        raise TokenizerError(f"{path}: no model.vocab in this tokenizer.json")
    for t in doc.get("added_tokens") or []:
        vocab[t["content"]] = t["id"]
    decoder = json.dumps(doc.get("decoder"))
    if '"ByteLevel"' in decoder:
        back = {c: b for b, c in _bytes_to_unicode().items()}
        added = {t["content"] for t in doc.get("added_tokens") or []}
        pieces = {i: p.encode() if p in added or any(c not in back for c in p) else bytes(back[c] for c in p)
                  for p, i in vocab.items()}
        route = "byte-level BPE pieces"
    else:
        pieces = {}
        for p, i in vocab.items():
            m = _BYTE_PIECE.match(p)
            pieces[i] = bytes([int(m.group(1), 16)]) if m else p.replace("▁", " ").encode()
        route = "pieces, ▁ as a space, byte fallback"
    return Vocabulary(pieces, f"{path} ({route}, read with the json module)")


def load_vocabulary(model_dir: str | os.PathLike) -> Vocabulary:
    """The vocabulary of a model folder: its tokenizer.json, else its tokenizer.model."""
    model_dir = os.fspath(model_dir)
    for name, read in (("tokenizer.json", _hf_json), ("tokenizer.model", _sentencepiece)):
        path = os.path.join(model_dir, name)
        if os.path.isfile(path):
            try:
                return read(path)
            except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
                raise TokenizerError(f"{path}: not readable ({type(e).__name__}: {e})") from None
    raise TokenizerError(f"{model_dir}: no tokenizer.json or tokenizer.model")


def printable(text: str) -> str:
    """A piece on one line: a line break as ↵, a tab as ⇥, a carriage return as ␍, any other
    control character (and ESC, so no piece can colour a terminal) as \\xNN."""
    return "".join(_SHOWN.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 else c)
                   for c in text)

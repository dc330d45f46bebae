#!/usr/bin/env python3
"""Tantivy's side of `sift-bench scale`: the same documents, queries and churn as Sift's, through Tantivy's
Python bindings (the version pinned in requirements.txt beside this file).

sift-bench runs this script as a child process. It reads:
  --documents FILE  one document a line: id TAB title TAB body (the words are lowercase ASCII)
  --plan FILE       JSON: {"kinds": [{"name": ..., "all": bool, "queries": [text, ...]}, ...],
                           "deletes": [id, ...], "updates": [[id, title, body], ...]}
  --index DIR       the index folder (made anew unless --reuse finds an index there)
and prints one JSON line on its standard output (see `report` below). `--check` only imports tantivy.

What it does, in order:
  1. Loads the documents with one writer thread and a writer heap of --heap-mb MB: `add_document` and the final
     `commit` are timed (parsing the file and building the Document objects are not), then the merges that the
     default merge policy started are waited for, timed apart. Peak RSS: VmHWM read right after that.
  2. Times each query once, top 20 by BM25 (Tantivy's own, k1 1.2, b 0.75, per field),
     fetching the 20 stored documents as Sift and raw FTS5 read theirs. An all-terms query is a conjunction of
     one disjunction per word over both fields; an any-term query is one flat disjunction of the words over both
     fields (the shape block-max WAND takes). A second, untimed pass counts the matches (count=True).
  3. Deletes and then updates the plan's documents, each change its own commit (as each of Sift's changes is
     its own transaction), timed; then waits for merges and searches again.
"""
import argparse
import json
import os
import sys
import time


def vm_hwm_bytes():
    """The process's peak resident set (VmHWM), in bytes; 0 where /proc is missing."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def directory_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return total


def build_schema(tantivy):
    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("id", stored=True, indexed=True)
    builder.add_text_field("title", stored=True)
    builder.add_text_field("body", stored=True)
    return builder.build()


def read_documents(path, batch):
    """Yields lists of at most `batch` (id, title, body) tuples."""
    rows = []
    with open(path, encoding="utf-8") as source:
        for number, line in enumerate(source, 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3 or not parts[0].isdigit():
                raise ValueError(f"{path}:{number}: expected id TAB title TAB body")
            rows.append((int(parts[0]), parts[1], parts[2]))
            if len(rows) == batch:
                yield rows
                rows = []
    if rows:
        yield rows


def make_document(tantivy, identifier, title, body):
    # Keyword arguments would make `id` an i64, which the schema's u64 field refuses.
    document = tantivy.Document()
    document.add_unsigned("id", identifier)
    document.add_text("title", title)
    document.add_text("body", body)
    return document


def load(tantivy, index, documents_path, heap_bytes):
    """Indexes every document with one writer thread; returns (documents, seconds, merge seconds)."""
    writer = index.writer(heap_size=heap_bytes, num_threads=1)
    seconds = 0.0
    count = 0
    for rows in read_documents(documents_path, 10_000):
        batch = [make_document(tantivy, *row) for row in rows]
        start = time.perf_counter()
        for document in batch:
            writer.add_document(document)
        seconds += time.perf_counter() - start
        count += len(batch)
    start = time.perf_counter()
    writer.commit()
    seconds += time.perf_counter() - start
    start = time.perf_counter()
    writer.wait_merging_threads()
    return count, seconds, time.perf_counter() - start


def make_query(tantivy, schema, text, all_terms):
    Query, Occur = tantivy.Query, tantivy.Occur

    def term(field, word):
        return Query.term_query(schema, field, word, index_option="freq")

    words = list(dict.fromkeys(text.split()))
    if all_terms:
        return Query.boolean_query([
            (Occur.Must, Query.boolean_query([(Occur.Should, term("title", w)), (Occur.Should, term("body", w))]))
            for w in words])
    return Query.boolean_query([(Occur.Should, term(field, w)) for w in words for field in ("title", "body")])


def search_round(tantivy, index, schema, kinds):
    """Times every query of every kind (ms), then counts their matches untimed."""
    index.reload()
    searcher = index.searcher()
    results = []
    for kind in kinds:
        queries = [make_query(tantivy, schema, text, kind["all"]) for text in kind["queries"]]
        times = []
        for query in queries:
            start = time.perf_counter()
            hits = searcher.search(query, limit=20, count=False).hits
            for _, address in hits:
                searcher.doc(address)
            times.append((time.perf_counter() - start) * 1e3)
        counts = [searcher.search(query, limit=1, count=True).count for query in queries]
        results.append({"name": kind["name"], "milliseconds": times,
                        "meanMatches": sum(counts) / max(1, len(counts))})
    return {"kinds": results, "segments": searcher.num_segments, "documents": searcher.num_docs}


def churn(tantivy, index, schema, plan, heap_bytes):
    """Deletes, then updates (delete by id, add the new text), each change its own commit."""
    writer = index.writer(heap_size=heap_bytes, num_threads=1)

    def delete(identifier):
        # By a term query: `delete_documents_by_term` with a Python int makes an i64 term, which matches no u64.
        writer.delete_documents_by_query(tantivy.Query.term_query(schema, "id", identifier))

    start = time.perf_counter()
    for identifier in plan["deletes"]:
        delete(identifier)
        writer.commit()
    deletes = time.perf_counter() - start
    start = time.perf_counter()
    for identifier, title, body in plan["updates"]:
        delete(identifier)
        writer.add_document(make_document(tantivy, identifier, title, body))
        writer.commit()
    updates = time.perf_counter() - start
    start = time.perf_counter()
    writer.wait_merging_threads()
    return {"deletes": len(plan["deletes"]), "deleteSeconds": deletes,
            "updates": len(plan["updates"]), "updateSeconds": updates,
            "mergeSeconds": time.perf_counter() - start}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only import tantivy and print its version")
    parser.add_argument("--documents")
    parser.add_argument("--plan")
    parser.add_argument("--index")
    parser.add_argument("--heap-mb", type=int, default=128)
    parser.add_argument("--reuse", action="store_true", help="search an index already in --index")
    arguments = parser.parse_args()
    try:
        import tantivy
    except ImportError as error:
        print(json.dumps({"skipped": f"cannot import tantivy ({error})"}))
        return 0
    version = getattr(tantivy, "__version__", "unknown")
    if arguments.check:
        print(json.dumps({"version": version}))
        return 0
    if not (arguments.documents and arguments.plan and arguments.index):
        parser.error("--documents, --plan and --index are required")
    if not 15 <= arguments.heap_mb <= 4096:
        parser.error("--heap-mb takes 15 to 4096")
    with open(arguments.plan, encoding="utf-8") as source:
        plan = json.load(source)
    heap_bytes = arguments.heap_mb * 1_000_000
    schema = build_schema(tantivy)
    report = {"version": version, "heapMB": arguments.heap_mb}
    reused = arguments.reuse and tantivy.Index.exists(arguments.index)
    os.makedirs(arguments.index, exist_ok=True)
    index = tantivy.Index(schema, path=arguments.index, reuse=reused)
    if reused:
        report["reused"] = True
    else:
        count, seconds, merge_seconds = load(tantivy, index, arguments.documents, heap_bytes)
        report.update({"loaded": count, "loadSeconds": seconds, "mergeSeconds": merge_seconds,
                       "loadPeakBytes": vm_hwm_bytes()})
    report["indexBytes"] = directory_bytes(arguments.index)
    report["searches"] = search_round(tantivy, index, schema, plan["kinds"])
    if plan["deletes"] or plan["updates"]:
        report["churn"] = churn(tantivy, index, schema, plan, heap_bytes)
        report["searchesAfterChurn"] = search_round(tantivy, index, schema, plan["kinds"])
    report["peakBytes"] = vm_hwm_bytes()
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Exact top-k with sqlite-vec (a vec0 table) over the vectors `sift-bench vectors` wrote, for its comparison.

Reads --vectors (rows x dim little-endian float32, row i has rowid i + 1) and --queries (the same layout), loads
them into a vec0 table in --database, then times each query's exact top --limit (`embedding MATCH ? AND k = ?`) on
one thread. Prints one JSON object: the times in ms, the rowids found per query, the load time and the file size.
Exits with status 2 and a reason on stderr when sqlite-vec cannot be loaded (install it with
`/usr/bin/python3 -m pip install --user --break-system-packages sqlite-vec`).
"""
import argparse
import json
import os
import sqlite3
import sys
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--vectors", required=True)
    parser.add_argument("--queries", required=True)
    parser.add_argument("--dimension", type=int, required=True)
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--database", required=True)
    parser.add_argument("--metric", choices=["cosine", "l2"], default="cosine")
    args = parser.parse_args()
    try:
        import sqlite_vec
    except ImportError as error:
        print(f"sqlite_vec is not importable ({error})", file=sys.stderr)
        sys.exit(2)
    connection = sqlite3.connect(args.database)
    try:
        connection.enable_load_extension(True)
        sqlite_vec.load(connection)
        connection.enable_load_extension(False)
    except (AttributeError, sqlite3.Error) as error:
        print(f"this Python's SQLite cannot load sqlite-vec ({error})", file=sys.stderr)
        sys.exit(2)
    version = connection.execute("SELECT vec_version()").fetchone()[0]
    row_bytes = 4 * args.dimension
    connection.execute(f"CREATE VIRTUAL TABLE v USING vec0(embedding float[{args.dimension}] distance_metric={args.metric})")
    start = time.perf_counter()
    with open(args.vectors, "rb") as file:
        rowid = 0
        while True:
            chunk = file.read(row_bytes * 10_000)
            if not chunk:
                break
            if len(chunk) % row_bytes:
                print("the vectors file is not a whole number of vectors", file=sys.stderr)
                sys.exit(1)
            rows = [(rowid + 1 + i, chunk[i * row_bytes:(i + 1) * row_bytes]) for i in range(len(chunk) // row_bytes)]
            rowid += len(rows)
            connection.executemany("INSERT INTO v(rowid, embedding) VALUES(?, ?)", rows)
    connection.commit()
    load_seconds = time.perf_counter() - start
    with open(args.queries, "rb") as file:
        data = file.read()
    queries = [data[i:i + row_bytes] for i in range(0, len(data) - row_bytes + 1, row_bytes)]
    sql = "SELECT rowid FROM v WHERE embedding MATCH ? AND k = ? ORDER BY distance"
    for query in queries[:3]:  # warm the page cache and the statement
        connection.execute(sql, (query, args.limit)).fetchall()
    times, found = [], []
    for query in queries:
        start = time.perf_counter()
        rows = connection.execute(sql, (query, args.limit)).fetchall()
        times.append((time.perf_counter() - start) * 1000)
        found.append([row[0] for row in rows])
    connection.close()
    print(json.dumps({"version": version, "rows": rowid, "load_seconds": load_seconds,
                      "file_bytes": os.path.getsize(args.database), "times_ms": times, "found": found}))


if __name__ == "__main__":
    main()

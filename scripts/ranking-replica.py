#!/usr/bin/env python3
"""A Python replica of Sift's default English ranking, to try ranking ideas in seconds before writing C.

Not part of the product (Sift never runs Python). It reads the BEIR collections of ../shared/datasets and
prints nDCG@10 (trec_eval's definition, as SiftEvaluation) of one configuration per collection. The default
configuration mirrors `sift eval`: Snowball English stemming (PyStemmer), Sift's 123 English question
stopwords, BM25F with k1 1.2, b 0.75, title weight 2, Lucene's idf, linear query-term frequency. It tokenizes
with a `\\w+` pattern instead of ICU, so its figures differ a little from `sift eval`'s (BM25F with the default
analysis, cranfield / cisi / medline / npl: 0.3805 / 0.4096 / 0.6988 / 0.4370 here, 0.3799 / 0.4147 / 0.6976 /
0.4370 in `sift eval`).

    python3 -m venv /tmp/r && /tmp/r/bin/pip install PyStemmer     # (bm25s too, for --bm25s)
    /tmp/r/bin/python scripts/ranking-replica.py                         # the default, four English collections
    /tmp/r/bin/python scripts/ranking-replica.py --proximity mindist     # + Tao & Zhai's proximity (measured, not in Sift)
    /tmp/r/bin/python scripts/ranking-replica.py --qtf once --only medline
    /tmp/r/bin/python scripts/ranking-replica.py --bm25s --k1 0.9 --b 0.4    # the bm25s library itself
    /tmp/r/bin/python scripts/ranking-replica.py --form inb2                # Sift's default ranking (InB2, c 1)
"""
import argparse
import collections
import json
import math
import os
import re

DATASETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "datasets")

# Sift's question stopwords (SiftICU.englishStopwords) and Lucene's 33 English stopwords.
SIFT_STOPWORDS = set("""a about above after again against all am an and any are as at be because been before being
below between both but by can did do does doing don down during each few for from further had has have having he
her here hers herself him himself his how i if in into is it its itself just me more most my myself no not now of
off on once or other our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were what when where which
while who whom why will with you your yours yourself yourselves""".split())
LUCENE_STOPWORDS = set("""a an and are as at be but by for if in into is it no not of on or such that the their then
there these they this to was will with""".split())
STOPWORDS = {"none": set(), "sift": SIFT_STOPWORDS, "lucene": LUCENE_STOPWORDS}


def load(name):
    folder = os.path.join(DATASETS, name)
    with open(os.path.join(folder, "corpus.jsonl")) as f:
        docs = [json.loads(line) for line in f]
    with open(os.path.join(folder, "queries.jsonl")) as f:
        queries = [json.loads(line) for line in f]
    qrels = collections.defaultdict(dict)
    with open(os.path.join(folder, "qrels.tsv")) as f:
        next(f)
        for line in f:
            query, doc, score = line.rstrip("\n").split("\t")
            if int(score) > 0:
                qrels[query][doc] = int(score)
    return docs, [q for q in queries if q["_id"] in qrels], qrels


def ndcg(ranking, judgments, cutoff=10):
    dcg = sum(judgments.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranking[:cutoff]))
    ideal = sorted(judgments.values(), reverse=True)[:cutoff]
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / best if best > 0 else 0.0


def closest_pair(token_lists, words):
    """Tao & Zhai's MinDist: the smallest distance between two distinct query words in one column, or None."""
    best = None
    for tokens in token_lists:
        last = {}
        for j, w in enumerate(tokens):
            if w not in words:
                continue
            for other, position in last.items():
                if other != w and (best is None or j - position < best):
                    best = j - position
            last[w] = j
    return best


def run(name, o, stemmer):
    docs, queries, qrels = load(name)
    pattern = re.compile(r"\w\w+" if o.min2 else r"\w+")

    def tokens(text, stop):
        return stemmer.stemWords([w for w in pattern.findall(text.lower()) if w not in stop])

    doc_stop, query_stop = STOPWORDS[o.doc_stopwords], STOPWORDS[o.query_stopwords]
    columns = []  # per document: (title tokens, body tokens)
    for d in docs:
        title, body = tokens(d.get("title") or "", doc_stop), tokens(d["text"], doc_stop)
        columns.append(([], title + body) if o.concat else (title, body))
    counts = [(collections.Counter(t), collections.Counter(x)) for t, x in columns]
    n = len(docs)
    average = [sum(len(c[k]) for c in columns) / n for k in (0, 1)]
    weights = (o.title_weight, 1.0)
    postings = collections.defaultdict(list)
    instances = collections.Counter()
    for i, (t, x) in enumerate(counts):
        instances.update(t)
        instances.update(x)
        for w in set(t) | set(x):
            postings[w].append(i)
    k1, b = o.k1, o.b
    scores = {}
    for q in queries:
        words = tokens(q["text"], query_stop) or tokens(q["text"], set())
        qtf = collections.Counter(words)
        score = collections.defaultdict(float)
        if o.form == "inb2":  # InB2's In * (F + 1) / n (Amati & van Rijsbergen 2002), as sift_inb2
            idf = {w: math.log2((n + 1) / (len(postings[w]) + 0.5)) * (instances[w] + 1) / len(postings[w])
                   for w in qtf if w in postings}
        else:
            idf = {w: math.log(1 + (n - len(postings[w]) + 0.5) / (len(postings[w]) + 0.5)) for w in qtf if w in postings}
        for w, count in qtf.items():
            if w not in idf:
                continue
            weight = {"linear": count, "once": 1, "k3": 8 * count / (7 + count)}[o.qtf]
            for i in postings[w]:
                if o.form == "inb2":  # normalization 2 per column, saturated as tfn / (tfn + 1)
                    pseudo = sum(weights[k] * counts[i][k][w] * math.log2(1 + o.c * average[k] / len(columns[i][k]))
                                 for k in (0, 1) if counts[i][k].get(w) and average[k] > 0)
                    score[i] += weight * idf[w] * pseudo / (1 + pseudo)
                    continue
                pseudo = sum(weights[k] * counts[i][k][w] / (1 - b + b * len(columns[i][k]) / average[k])
                             for k in (0, 1) if counts[i][k].get(w) and average[k] > 0)
                if o.form == "bm25l":  # Lv & Zhai's BM25L: (k1 + 1)(c + delta) / (k1 + c + delta), scaled by 1/(k1 + 1)
                    part = (pseudo + o.delta) / (k1 + pseudo + o.delta)
                else:  # BM25 (+ Lv & Zhai's BM25+ lower bound delta, in the same 1/(k1 + 1) scale)
                    part = pseudo / (k1 + pseudo) + o.delta / (k1 + 1)
                score[i] += weight * idf[w] * part
        for i in list(score):
            if o.proximity == "mindist":  # Tao & Zhai 2007, alpha 0.3, added to BM25
                d = closest_pair(columns[i], idf)
                if d is not None:
                    score[i] += math.log(1 + math.exp(-d) / 0.3) / (k1 + 1)
            elif o.proximity == "buttcher":  # Büttcher, Clarke & Lushman 2006: accumulators of adjacent occurrences
                for k in (0, 1):
                    hits = [(j, w) for j, w in enumerate(columns[i][k]) if w in idf]
                    acc = collections.defaultdict(float)
                    for (p1, w1), (p2, w2) in zip(hits, hits[1:]):
                        if w1 != w2:
                            acc[w1] += idf[w2] / (p2 - p1) ** 2
                            acc[w2] += idf[w1] / (p2 - p1) ** 2
                    big_k = k1 * (1 - b + b * len(columns[i][k]) / average[k]) if average[k] > 0 else k1
                    score[i] += sum(weights[k] * min(1, idf[w]) * a / (a + big_k) for w, a in acc.items())
        ranked = sorted(score.items(), key=lambda item: (-item[1], item[0]))[:1000]
        scores[q["_id"]] = ndcg([docs[i]["_id"] for i, _ in ranked], qrels[q["_id"]])
    return scores


def run_bm25s(name, o, stemmer):
    """The bm25s library as a user would run it: Lucene BM25, its English stopwords, title + text as one field."""
    import bm25s
    docs, queries, qrels = load(name)
    corpus = bm25s.tokenize([(d.get("title") or "") + " " + d["text"] for d in docs], stopwords="en",
                            stemmer=stemmer, show_progress=False)
    retriever = bm25s.BM25(k1=o.k1, b=o.b, method="lucene")
    retriever.index(corpus, show_progress=False)
    asked = bm25s.tokenize([q["text"] for q in queries], stopwords="en", stemmer=stemmer, show_progress=False)
    vocabulary = {i: w for w, i in asked.vocab.items()}
    results, _ = retriever.retrieve([[vocabulary[i] for i in row] for row in asked.ids], k=min(1000, len(docs)),
                                    show_progress=False)
    return {q["_id"]: ndcg([docs[j]["_id"] for j in results[i]], qrels[q["_id"]]) for i, q in enumerate(queries)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="cranfield,cisi,medline,npl")
    parser.add_argument("--k1", type=float, default=1.2)
    parser.add_argument("--b", type=float, default=0.75)
    parser.add_argument("--title-weight", type=float, default=2.0)
    parser.add_argument("--qtf", choices=["linear", "once", "k3"], default="linear")
    parser.add_argument("--query-stopwords", choices=list(STOPWORDS), default="sift")
    parser.add_argument("--doc-stopwords", choices=list(STOPWORDS), default="none")
    parser.add_argument("--min2", action="store_true", help="drop 1-character tokens (bm25s's tokenizer)")
    parser.add_argument("--concat", action="store_true", help="title and text as one field")
    parser.add_argument("--proximity", choices=["none", "mindist", "buttcher"], default="none")
    parser.add_argument("--form", choices=["bm25", "bm25l", "inb2"], default="bm25")
    parser.add_argument("--c", type=float, default=1.0, help="InB2's normalization 2 parameter")
    parser.add_argument("--delta", type=float, default=0.0, help="BM25+ / BM25L delta")
    parser.add_argument("--stemmer", default="english", help="PyStemmer algorithm: english (Porter2) or porter")
    parser.add_argument("--bm25s", action="store_true", help="run the bm25s library instead of the replica")
    o = parser.parse_args()
    import Stemmer
    stemmer = Stemmer.Stemmer(o.stemmer)
    for name in o.only.split(","):
        values = (run_bm25s if o.bm25s else run)(name, o, stemmer)
        print(f"{name}\tnDCG@10 {sum(values.values()) / len(values):.4f}", flush=True)


if __name__ == "__main__":
    main()

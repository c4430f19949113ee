"""Plain BM25 reference: SQLite FTS5 (bm25()), any query word matching, over title + content.
Reads the dataset (JSON lines) on stdin; prints {"R@1", "R@10", "MRR@10"} for the reported split."""
import json, re, sqlite3, sys

items = [json.loads(l) for l in sys.stdin if l.strip()]
db = sqlite3.connect(":memory:")
db.execute("create virtual table d using fts5(id unindexed, title, content, tokenize='porter')")
db.executemany("insert into d values (?, ?, ?)", [(i["id"], i["title"], i["content"]) for i in items])
r1 = r10 = mrr = n = 0
for item in items:
    if item["split"] != "reported":
        continue
    n += 1
    words = re.findall(r"\w+", item["query"].lower())
    if not words:
        continue
    q = " OR ".join(f'"{w}"' for w in words)
    ids = [r[0] for r in db.execute("select id from d where d match ? order by bm25(d) limit 10", (q,))]
    if item["id"] in ids:
        rank = ids.index(item["id"]) + 1
        r10 += 1
        r1 += rank == 1
        mrr += 1 / rank
print(json.dumps({"R@1": r1 / n, "R@10": r10 / n, "MRR@10": mrr / n, "queries": n}))

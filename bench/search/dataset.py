"""Known-item set from real third-party text: Python standard-library docstrings.

Each public function or method with a docstring of at least two parts gives one item: its
first line is the query, its qualified name (title) and the rest of the docstring (content) is
the node. Items are split by a hash of their id into `tuning` and `reported` halves.
Prints one JSON object per line: {id, title, content, query, split}.
"""
import hashlib, importlib, inspect, json, sys

MODULES = ["os", "os.path", "json", "re", "string", "shutil", "subprocess", "pathlib", "datetime", "math",
           "statistics", "random", "textwrap", "logging", "argparse", "csv", "heapq", "bisect", "copy",
           "inspect", "functools", "itertools", "collections", "urllib.parse", "base64", "hashlib", "zipfile",
           "tarfile", "tempfile", "glob", "fnmatch", "difflib", "email.utils", "http.client", "socket",
           "threading", "queue", "asyncio", "unittest", "decimal", "fractions", "calendar", "time", "uuid",
           "pickle", "sqlite3", "gzip", "io", "locale", "platform", "pprint", "shlex", "struct", "typing",
           "warnings", "weakref", "xml.dom.minidom", "zlib", "codecs", "configparser", "contextlib", "enum",
           "html", "ipaddress", "mimetypes", "operator", "secrets", "selectors", "signal", "sys", "traceback"]
limit = int(sys.argv[1]) if len(sys.argv) > 1 else 600
seen, items = set(), []
for name in MODULES:
    try:
        mod = importlib.import_module(name)
    except Exception:
        continue
    members = []
    for attr, obj in vars(mod).items():
        if attr.startswith("_"):
            continue
        if inspect.isfunction(obj) or inspect.isbuiltin(obj):
            members.append((f"{name}.{attr}", obj))
        elif inspect.isclass(obj) and getattr(obj, "__module__", "") == mod.__name__:
            for m, f in vars(obj).items():
                if not m.startswith("_") and inspect.isfunction(f):
                    members.append((f"{name}.{attr}.{m}", f))
    for qual, obj in members:
        doc = inspect.getdoc(obj) or ""
        lines = doc.strip().split("\n")
        first, rest = lines[0].strip(), " ".join(l.strip() for l in lines[1:]).strip()
        if len(first) < 20 or len(rest) < 60 or first in seen or "(" in first[:40] and ")" in first[:60]:
            continue
        seen.add(first)
        items.append({"id": qual, "title": qual.split(".")[-1].replace("_", " "), "content": rest[:4000],
                      "query": first[:500]})
items.sort(key=lambda i: hashlib.sha256(i["id"].encode()).hexdigest())
for item in items[:limit]:
    item["split"] = "reported" if int(hashlib.sha256(item["id"].encode()).hexdigest(), 16) % 2 else "tuning"
    print(json.dumps(item))

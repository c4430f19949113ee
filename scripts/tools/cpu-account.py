"""The report of scripts/tools/cpu-account.sh: CPU seconds by kind of process.

Reads the acct(2) records (struct acct_v3, linux/acct.h: 64 bytes each, times as comp_t in
1/100 s) and the sampler's "time pid args" lines, names each record by the last command line
seen for its pid while it lived, and sums user + system time by kind.
"""

import collections
import struct
import sys

RECORD = struct.Struct("<ccHIIIIIIf8H16s")  # acct_v3
# (substring of the command line, or of the executable's name, kind), first match wins.
KINDS = [
    ("vitest", "test runners (vitest)"),
    ("services/standalone", "embedded servers (npm start)"),
    ("/node --import tsx services/", "services of the distributed suite"),
    ("node --import tsx services/", "the chart's pods (services)"),
    ("kafka", "Kafka"),
    ("schemathesis", "schemathesis"),
    ("/bin/st ", "schemathesis"),
    ("chrom", "Chromium and Playwright"),
    ("playwright", "Chromium and Playwright"),
    ("tsc ", "lint and typecheck"),
    ("eslint", "lint and typecheck"),
    ("prettier", "lint and typecheck"),
    ("dpdm", "lint and typecheck"),
    (".bin/kg", "kg and kg-mcp (CLI processes)"),
    ("kg-mcp", "kg and kg-mcp (CLI processes)"),
    ("npm ci", "npm ci"),
    ("buildah", "image builds (buildah)"),
    ("pg_isready", "readiness probes"),
    ("redis-cli", "readiness probes"),
    ("kafka-ready", "readiness probes"),
    ("kube-", "the cluster (control plane, kubelet, containerd)"),
    ("etcd", "the cluster (control plane, kubelet, containerd)"),
    ("containerd", "the cluster (control plane, kubelet, containerd)"),
    ("runc", "the cluster (control plane, kubelet, containerd)"),
    ("coredns", "the cluster (control plane, kubelet, containerd)"),
    ("java", "Kafka"),
    ("postgres", "PostgreSQL, Redis, MinIO, Qdrant"),
    ("qdrant", "PostgreSQL, Redis, MinIO, Qdrant"),
    ("minio", "PostgreSQL, Redis, MinIO, Qdrant"),
    ("redis-server", "PostgreSQL, Redis, MinIO, Qdrant"),
    ("go", "Go builds"),
    ("compile", "Go builds"),
    ("MainThread", "other Node.js processes"),
    ("node", "other Node.js processes"),
]


def comp_t(v):
    return (v & 0x1FFF) << (3 * (v >> 13))


def main(acct_path, samples_path):
    seen = collections.defaultdict(list)
    with open(samples_path, errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 2)
            if len(parts) == 3 and "<defunct>" not in parts[2]:
                seen[int(parts[1])].append((int(parts[0]), parts[2]))
    cpu = collections.Counter()
    count = collections.Counter()
    data = open(acct_path, "rb").read()
    for off in range(0, len(data) - RECORD.size + 1, RECORD.size):
        r = RECORD.unpack_from(data, off)
        pid, btime, etime = r[6], r[8], r[9] / 100
        seconds = (comp_t(r[10]) + comp_t(r[11])) / 100
        comm = r[18].split(b"\0")[0].decode(errors="replace")
        lines = [a for t, a in seen.get(pid, []) if btime - 2 <= t <= btime + etime + 3]
        name = lines[-1] if lines else ""
        kind = next((k for s, k in KINDS if s in name), None) or next(
            (k for s, k in KINDS if s in comm), "other"
        )
        cpu[kind] += seconds
        count[kind] += 1
    total = sum(cpu.values())
    print(f"\n{'CPU s':>8}  {'share':>6}  {'processes':>9}  kind")
    for kind, seconds in cpu.most_common():
        print(f"{seconds:8.0f}  {100 * seconds / max(total, 1):5.1f}%  {count[kind]:9d}  {kind}")
    print(f"{total:8.0f}  100.0%  {sum(count.values()):9d}  every process that ended")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

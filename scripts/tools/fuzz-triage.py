#!/usr/bin/env python3
"""Sorts the failures of a schemathesis run into accepted (the baseline) and real ones.

Reads schemathesis's NDJSON event stream (every failing check, with the request and the
response that failed it) and its JSON run report (counts, errors), matches each failure
against scripts/tools/fuzz-baseline.yaml, and prints one line per distinct real failure
(check, operation, status) with a minimal reproducing curl. Writes the same as markdown
and JSON beside the reports. Exit status: 0 when every failure is in the baseline and
no operation errored, 1 otherwise, 2 when its inputs are unusable (bad baseline, no
report).

  fuzz-triage.py --ndjson run.ndjson --report run.json --openapi openapi.json \
      --baseline fuzz-baseline.yaml --out-dir fuzz-results
  fuzz-triage.py --baseline fuzz-baseline.yaml --check-baseline    # validate the file only

Runs with the Python of .tools/schemathesis-venv (PyYAML comes with schemathesis).
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import shlex
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

RULE_KEYS = {
    "id", "check", "operation", "status", "documented", "response_matches", "message_matches", "follows", "reason",
}
METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
MAX_SHOWN = 1500  # characters of a curl line printed before it is cut (the JSON keeps it whole)
MAX_INLINE_BODY = 2000  # bytes of a request body written into the curl line; larger ones go to a file


class Unusable(Exception):
    """An input the triage cannot work with (exit 2)."""


@dataclass
class Rule:
    id: str
    reason: str
    checks: set[str]
    operations: set[str] | None
    statuses: set[int] | None
    documented: bool
    response_matches: re.Pattern[str] | None
    message_matches: re.Pattern[str] | None
    follows: set[str] | None
    hits: int = 0
    operations_hit: Counter[str] = field(default_factory=Counter)


@dataclass
class Failure:
    check: str
    code: str
    title: str
    operation: str
    phase: str
    method: str
    uri: str
    request_headers: dict[str, list[str]]
    request_body: bytes | None
    status: int | None
    response_body: str
    message: str
    # The operations of the stateful steps that led to the failing request (parent first).
    ancestry: list[str] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.uri) + len(self.request_body or b"")


@dataclass
class Group:
    check: str
    code: str
    title: str
    operation: str
    status: int | None
    count: int = 0
    phases: set[str] = field(default_factory=set)
    example: Failure | None = None


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def operations_of(entry: dict[str, Any], key: str, where: str) -> set[str] | None:
    """The `METHOD /path` operations a rule names under `key` (None when it names none)."""
    if key not in entry:
        return None
    operations = {str(op) for op in as_list(entry[key])}
    for op in operations:
        method, _, op_path = op.partition(" ")
        if method.lower() not in METHODS or not op_path.startswith("/"):
            raise Unusable(f"{where}: {key} {op!r} is not `METHOD /path` as schemathesis names it")
    return operations


def load_baseline(path: Path) -> list[Rule]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise Unusable(f"cannot read the baseline {path}: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("accepted"), list):
        raise Unusable(f"{path}: expected a mapping with an `accepted` list")
    rules: list[Rule] = []
    seen: set[str] = set()
    for index, entry in enumerate(data["accepted"]):
        where = f"{path}: accepted[{index}]"
        if not isinstance(entry, dict):
            raise Unusable(f"{where}: expected a mapping")
        unknown = set(entry) - RULE_KEYS
        if unknown:
            raise Unusable(f"{where}: unknown keys {sorted(unknown)} (allowed: {sorted(RULE_KEYS)})")
        for key in ("id", "check", "reason"):
            if not entry.get(key):
                raise Unusable(f"{where}: `{key}` is required")
        if not isinstance(entry["reason"], str) or len(entry["reason"].strip()) < 20:
            raise Unusable(f"{where}: `reason` must say why the deviation is accepted")
        if entry["id"] in seen:
            raise Unusable(f"{where}: duplicate id {entry['id']}")
        seen.add(entry["id"])
        operations = operations_of(entry, "operation", where)
        follows = operations_of(entry, "follows", where)
        statuses = None
        if "status" in entry:
            try:
                statuses = {int(s) for s in as_list(entry["status"])}
            except (TypeError, ValueError):
                raise Unusable(f"{where}: `status` must be an integer or a list of integers") from None
        patterns: dict[str, re.Pattern[str] | None] = {}
        for key in ("response_matches", "message_matches"):
            try:
                patterns[key] = re.compile(entry[key]) if entry.get(key) else None
            except re.error as error:
                raise Unusable(f"{where}: bad `{key}` regex: {error}") from None
        if operations is None and statuses is None and not any(patterns.values()):
            raise Unusable(f"{where}: give at least one of operation, status, response_matches, message_matches")
        rules.append(
            Rule(
                id=str(entry["id"]),
                reason=" ".join(entry["reason"].split()),
                checks={str(c) for c in as_list(entry["check"])},
                operations=operations,
                statuses=statuses,
                documented=bool(entry.get("documented", False)),
                response_matches=patterns["response_matches"],
                message_matches=patterns["message_matches"],
                follows=follows,
            )
        )
    return rules


def documented_statuses(openapi: dict[str, Any]) -> dict[str, set[str]]:
    """`METHOD /path` -> the response keys the document lists ("200", "4XX", "default")."""
    out: dict[str, set[str]] = {}
    for path, item in (openapi.get("paths") or {}).items():
        for method, operation in item.items():
            if method in METHODS and isinstance(operation, dict):
                out[f"{method.upper()} {path}"] = set((operation.get("responses") or {}).keys())
    return out


def is_documented(status: int | None, keys: set[str]) -> bool:
    return status is not None and (str(status) in keys or f"{str(status)[0]}XX" in keys)


def matches(rule: Rule, failure: Failure, docs: dict[str, set[str]]) -> bool:
    if failure.check not in rule.checks and failure.code not in rule.checks:
        return False
    if rule.operations is not None and failure.operation not in rule.operations:
        return False
    if rule.statuses is not None and failure.status not in rule.statuses:
        return False
    if rule.documented and not is_documented(failure.status, docs.get(failure.operation, set())):
        return False
    if rule.response_matches is not None and not rule.response_matches.search(failure.response_body):
        return False
    if rule.message_matches is not None and not rule.message_matches.search(failure.message):
        return False
    if rule.follows is not None and not rule.follows.intersection(failure.ancestry):
        return False
    return True


def decode(payload: Any) -> bytes | None:
    if payload is None:
        return None
    if isinstance(payload, dict) and "$base64" in payload:
        return base64.b64decode(payload["$base64"])
    if isinstance(payload, str):
        return payload.encode("utf-8")
    return json.dumps(payload).encode("utf-8")


def ancestry(cases: dict[str, Any], case_id: str) -> list[str]:
    """`METHOD /path` of each stateful step before a case, its parent first."""
    out: list[str] = []
    seen = {case_id}
    parent = (cases.get(case_id) or {}).get("parent_id")
    while parent and parent not in seen:
        seen.add(parent)
        step = cases.get(parent) or {}
        value = step.get("value") or {}
        out.append(f"{value.get('method', '?')} {value.get('path', '?')}")
        parent = step.get("parent_id")
    return out


def failures_in(ndjson: Path):
    """Every failed check of every scenario, with the interaction that failed it."""
    with ndjson.open("r", encoding="utf-8") as stream:
        for line in stream:
            if '"ScenarioFinished"' not in line[:40]:
                continue
            scenario = json.loads(line)["ScenarioFinished"]
            recorder = scenario.get("recorder") or {}
            interactions = recorder.get("interactions") or {}
            cases = recorder.get("cases") or {}
            for case_id, checks in (recorder.get("checks") or {}).items():
                for check in checks:
                    if check.get("status") != "failure":
                        continue
                    info = (check.get("failure_info") or {}).get("failure") or {}
                    interaction = interactions.get(case_id) or {}
                    request = interaction.get("request") or {}
                    response = interaction.get("response") or {}
                    body = decode(response.get("content"))
                    yield Failure(
                        check=check.get("name", "?"),
                        code=info.get("code", "?"),
                        title=info.get("title", ""),
                        operation=info.get("operation") or recorder.get("label", "?"),
                        phase=scenario.get("phase", "?"),
                        method=request.get("method", "?"),
                        uri=request.get("uri", "?"),
                        request_headers=request.get("headers") or {},
                        request_body=decode(request.get("body")),
                        status=response.get("status_code"),
                        response_body=body.decode("utf-8", "replace") if body else "",
                        message=info.get("message", ""),
                        ancestry=ancestry(cases, case_id),
                    )


def curl(failure: Failure, spill: Path) -> str:
    """A curl line that sends the same request; the credential is left to $AUTH, and a body
    over MAX_INLINE_BODY bytes is written to `spill` and sent from there."""
    parts = ["curl", "-sS", "-i", "-X", failure.method]
    for name, values in failure.request_headers.items():
        if name.lower() in {"user-agent", "content-length", "accept-encoding", "connection", "accept"}:
            continue
        for value in as_list(values):
            # schemathesis records credentials as [Filtered]: set AUTH='Bearer <token>' to replay.
            parts += ["-H", f'"{name}: $AUTH"' if value == "[Filtered]" else shlex.quote(f"{name}: {value}")]
    body = failure.request_body
    prefix = ""
    if body is not None and len(body) > MAX_INLINE_BODY:
        spill.parent.mkdir(parents=True, exist_ok=True)
        spill.write_bytes(body)
        parts += ["--data-binary", shlex.quote(f"@{spill}")]
    elif body is not None:
        text = body.decode("utf-8", "replace") if body else ""
        if text.encode("utf-8") == body and text.isprintable():
            parts += ["--data-binary", shlex.quote(text)]
        else:
            prefix = f"printf %s {shlex.quote(base64.b64encode(body).decode())} | base64 -d | "
            parts += ["--data-binary", "@-"]
    parts.append(shlex.quote(failure.uri))
    return prefix + " ".join(parts)


def shorten(text: str, limit: int = MAX_SHOWN) -> str:
    return text if len(text) <= limit else f"{text[:limit]} … [{len(text) - limit} more characters]"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", type=Path, required=True)
    parser.add_argument("--check-baseline", action="store_true", help="only validate the baseline file")
    parser.add_argument("--ndjson", type=Path)
    parser.add_argument("--report", type=Path)
    parser.add_argument("--openapi", type=Path)
    parser.add_argument("--out-dir", type=Path)
    args = parser.parse_args()
    if not args.check_baseline and None in (args.ndjson, args.report, args.openapi, args.out_dir):
        parser.error("--ndjson, --report, --openapi and --out-dir are required")

    try:
        rules = load_baseline(args.baseline)
        if args.check_baseline:
            print(f"fuzz-triage: {args.baseline.name}: {len(rules)} accepted deviations, each with its reason")
            return 0
        report = json.loads(args.report.read_text(encoding="utf-8"))
        docs = documented_statuses(json.loads(args.openapi.read_text(encoding="utf-8")))
        if not args.ndjson.is_file():
            raise Unusable(f"no event stream at {args.ndjson}")
    except (OSError, ValueError) as error:
        print(f"fuzz-triage: {error}", file=sys.stderr)
        return 2
    except Unusable as error:
        print(f"fuzz-triage: {error}", file=sys.stderr)
        return 2

    groups: dict[tuple[str, str, int | None], Group] = {}
    accepted = 0
    for failure in failures_in(args.ndjson):
        rule = next((r for r in rules if matches(r, failure, docs)), None)
        if rule is not None:
            rule.hits += 1
            rule.operations_hit[failure.operation] += 1
            accepted += 1
            continue
        key = (failure.check, failure.operation, failure.status)
        group = groups.setdefault(
            key, Group(failure.check, failure.code, failure.title, failure.operation, failure.status)
        )
        group.count += 1
        group.phases.add(failure.phase)
        if group.example is None or failure.size < group.example.size:
            group.example = failure

    cases = report.get("test_cases") or {}
    errors = report.get("errors") or []
    ops = report.get("operations") or {}
    real = sorted(groups.values(), key=lambda g: (g.code, g.operation, g.status or 0))
    args.out_dir.mkdir(parents=True, exist_ok=True)
    curls = [curl(g.example, args.out_dir / "bodies" / f"{n}.bin") if g.example else "" for n, g in enumerate(real, 1)]

    lines = [
        f"schemathesis {report.get('schemathesis_version', '?')}, seed {report.get('seed')}, "
        f"{report.get('running_time', 0):.0f} s, stopped by {report.get('stop_reason', '?')}",
        f"operations: {ops.get('tested', '?')} tested of {ops.get('total', '?')}, {ops.get('errored', 0)} errored",
        f"generated requests (test cases): {cases.get('generated', '?')}",
        f"failed checks: {accepted} accepted by the baseline, "
        f"{sum(g.count for g in real)} not accepted in {len(real)} distinct failures",
    ]
    for rule in rules:
        where = ", ".join(f"{op} {n}" for op, n in sorted(rule.operations_hit.items()))
        lines.append(f"  baseline {rule.id}: {rule.hits} matched" + (f" ({where})" if rule.hits else " (unused in this run)"))
    if errors:
        lines.append(f"errors ({len(errors)}): the run could not test everything")
        for error in errors:
            lines.append(f"  - {shorten(json.dumps(error, ensure_ascii=False), 400)}")
    if real:
        lines.append("")
        lines.append("NOT ACCEPTED (fix the code, or add a baseline entry with the reason the spec accepts it):")
    for n, group in enumerate(real, 1):
        example = group.example
        assert example is not None
        lines.append(
            f"{n}. {group.code} {group.check} | {group.operation} | status {group.status} | "
            f"{group.count}x in {', '.join(sorted(group.phases))}"
        )
        if example.message:
            lines.append("   " + shorten(example.message.replace("\n", " / "), 400))
        if example.response_body:
            lines.append("   response: " + shorten(example.response_body.replace("\n", " "), 300))
        lines.append("   " + shorten(curls[n - 1]))

    text = "\n".join(lines)
    print(text)
    (args.out_dir / "summary.txt").write_text(text + "\n", encoding="utf-8")
    (args.out_dir / "failures.json").write_text(
        json.dumps(
            {
                "generated": cases.get("generated"),
                "accepted": {rule.id: dict(rule.operations_hit) for rule in rules},
                "errors": errors,
                "failures": [
                    {
                        "code": g.code,
                        "check": g.check,
                        "title": g.title,
                        "operation": g.operation,
                        "status": g.status,
                        "count": g.count,
                        "phases": sorted(g.phases),
                        "message": g.example.message if g.example else "",
                        "response": g.example.response_body if g.example else "",
                        "curl": command,
                    }
                    for g, command in zip(real, curls)
                ],
            },
            indent=2,
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )
    return 1 if real or errors or ops.get("errored") else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Regenerates 2026-07-28.subset.json from a checkout of the MCP specification repository
(github.com/modelcontextprotocol/modelcontextprotocol):

    python3 tests/mcp_spec/generate.py SPEC_CHECKOUT [REVISION]

It keeps the $defs of schema/REVISION/schema.json (generated upstream from schema.ts) that
tests/era_2026_07_28.rs relies on, with everything they reference, minus the prose
(`description`), and lists the members schema.ts marks @deprecated. Run it against a new
revision and run the tests: what changed fails there, instead of drifting silently.
"""
import hashlib, json, re, subprocess, sys

ROOTS = ["ClientRequest", "DiscoverRequest", "DiscoverResultResponse", "ListToolsRequest",
         "ListToolsResultResponse", "CallToolRequest", "CallToolResultResponse",
         "JSONRPCErrorResponse", "UnsupportedProtocolVersionError",
         "MissingRequiredClientCapabilityError", "ProgressNotification", "CancelledNotification",
         "SubscriptionsListenRequest", "SubscriptionsAcknowledgedNotification",
         "SubscriptionsListenResultResponse", "RequestMetaObject", "LoggingLevel",
         "ServerCapabilities", "Tool"]


def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k != "description"}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


def refs(v, out):
    if isinstance(v, dict):
        for k, x in v.items():
            if k == "$ref" and isinstance(x, str) and x.startswith("#/$defs/"):
                out.add(x[len("#/$defs/"):])
            else:
                refs(x, out)
    elif isinstance(v, list):
        for x in v:
            refs(x, out)


def deprecated(ts):
    """`Interface.member` for each member whose doc comment says @deprecated."""
    found, iface, pending = [], None, False
    for line in ts.split("\n"):
        m = re.match(r"export (?:interface|type) (\w+)", line)
        if m:
            iface, pending = m.group(1), False
        if "@deprecated" in line:
            pending = True
            continue
        if pending and not line.strip().startswith("*"):
            m = re.match(r'\s*"?([\w./-]+)"?\??:', line)
            if m:
                found.append(f"{iface}.{m.group(1)}")
                pending = False
    return sorted(found)


def main():
    checkout = sys.argv[1]
    revision = sys.argv[2] if len(sys.argv) > 2 else "2026-07-28"
    git = ["git", "-C", checkout]
    if subprocess.run(git + ["rev-parse", "--is-bare-repository"], capture_output=True,
                      text=True).stdout.strip() == "true":
        git = ["git", "--git-dir", checkout]
    commit = subprocess.check_output(git + ["rev-parse", "HEAD"], text=True).strip()
    show = lambda path: subprocess.check_output(git + ["show", f"HEAD:{path}"])
    schema_json = show(f"schema/{revision}/schema.json")
    schema_ts = show(f"schema/{revision}/schema.ts")
    defs = json.loads(schema_json)["$defs"]
    seen, todo = set(), list(ROOTS)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            found = set()
            refs(defs[name], found)
            todo.extend(found - seen)
    out = {
        "$schema": json.loads(schema_json)["$schema"],
        "x-source": {
            "repository": "github.com/modelcontextprotocol/modelcontextprotocol",
            "commit": commit,
            "schema.json": {"path": f"schema/{revision}/schema.json",
                            "sha256": hashlib.sha256(schema_json).hexdigest()},
            "schema.ts": {"path": f"schema/{revision}/schema.ts",
                          "sha256": hashlib.sha256(schema_ts).hexdigest()},
            "roots": ROOTS,
        },
        "x-deprecated": deprecated(schema_ts.decode()),
        "$defs": {k: strip(defs[k]) for k in sorted(seen)},
    }
    with open(f"tests/mcp_spec/{revision}.subset.json", "w") as f:
        f.write(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()

"""The official JSON-Schema-Test-Suite through the Python package: every dialect,
required and optional folders (formats and content asserting in the optional ones, as the
Rust runner does), remotes and meta-schemas registered as documents. On every case,
`is_valid`, `validate`, `iter_errors`, `evaluate("flag")` and `is_valid_json` agree with
the expected verdict, and the index the package reads Python objects through lists the
same errors as its slow twin, the direct reading of the objects (`_direct`). Skips only what suite/skip.txt lists (with its reason)."""

import json
from pathlib import Path

import pytest

import toolschema
from conftest import REPO, SHARED

SUITE = SHARED / "JSON-Schema-Test-Suite"
DIALECTS = {"draft2020-12": "2020-12", "draft2019-09": "2019-09", "draft7": "7", "draft6": "6", "draft4": "4"}


def documents():
    docs = {}
    remotes = SUITE / "remotes"
    for f in sorted(remotes.rglob("*.json")):
        docs["http://localhost:1234/" + f.relative_to(remotes).as_posix()] = json.loads(f.read_text())
    for f in sorted((SHARED / "metaschemas").rglob("*.json")):
        doc = json.loads(f.read_text())
        uri = doc.get("$id") or doc.get("id")
        if isinstance(uri, str):
            docs[uri.rstrip("#")] = doc
    return docs


def skips():
    out = set()
    for line in (REPO / "suite" / "skip.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            file, group, test, reason = line.split(" | ")
            assert reason.strip()
            out.add((file, group, test))
    return out


DOCS = documents() if SUITE.exists() else {}
SKIPS = skips()


def run_folder(folder, optional):
    root = SUITE / "tests"
    files = sorted((root / folder).glob("*.json")) if not optional else sorted((root / folder / "optional").rglob("*.json"))
    assert files, folder
    draft = DIALECTS[folder]
    cases = failures = 0
    bad = []
    for f in files:
        name = f.relative_to(root).as_posix()
        for group in json.loads(f.read_text()):
            try:
                v = toolschema.Validator(
                    group["schema"], draft=draft, assert_formats=optional, assert_content=optional, documents=DOCS
                )
            except toolschema.SchemaError as e:
                v = e
            for test in group["tests"]:
                if (name, group["description"], test["description"]) in SKIPS:
                    continue
                cases += 1
                expected = test["valid"]
                data = test["data"]
                if isinstance(v, Exception):
                    bad.append(f"{name} :: {group['description']}: does not compile: {v}")
                    continue
                verdicts = {
                    "is_valid": v.is_valid(data),
                    "is_valid_json": v.is_valid_json(json.dumps(data)),
                    "is_valid_json(bytes)": v.is_valid_json(json.dumps(data).encode()),
                    "iter_errors": not list(v.iter_errors(data)),
                    "evaluate": v.evaluate(data, output="flag")["valid"],
                }
                direct_valid, direct_errors = v._direct(data)
                verdicts["direct reading"] = direct_valid
                errors = [(e.instance_location, e.keyword_location) for e in v.iter_errors(data)]
                if errors != direct_errors:
                    bad.append(f"{name} :: {group['description']} :: {test['description']}: the index and the direct reading list different errors")
                try:
                    v.validate(data)
                    verdicts["validate"] = True
                except toolschema.ValidationError as e:
                    verdicts["validate"] = False
                    assert isinstance(e.instance_location, str) and isinstance(e.kind, str)
                wrong = {k: got for k, got in verdicts.items() if got != expected}
                if wrong:
                    bad.append(f"{name} :: {group['description']} :: {test['description']}: {wrong}")
    return cases, bad


@pytest.mark.skipif(not SUITE.exists(), reason="../shared/JSON-Schema-Test-Suite is not beside the repository")
@pytest.mark.parametrize("optional", [False, True], ids=["required", "optional"])
@pytest.mark.parametrize("folder", list(DIALECTS))
def test_suite(folder, optional):
    cases, bad = run_folder(folder, optional)
    assert cases > 0
    print(f"{folder} {'optional' if optional else 'required'}: {cases} cases")
    assert not bad, "\n".join(bad[:30]) + f"\n({len(bad)} failures of {cases})"

"""Fails unless every Schemathesis failure in the given JUnit reports is listed, with its
reason, in the allowed-failures file.

usage: schemathesis_gate.py ALLOWED.toml REPORT.xml [REPORT.xml ...]
"""

import re
import sys
import tomllib
import xml.etree.ElementTree as ElementTree

CASE = re.compile(r"(?m)^\d+\. Test Case ID: ")
CODE = re.compile(r"(?m)^- (ST\d+) (.*)$")


def failures(report):
    """(operation, code, title, text of the failing case) for every failure of a report."""
    for case in ElementTree.parse(report).iter("testcase"):
        operation = case.get("name", "")
        for failure in list(case.iter("failure")) + list(case.iter("error")):
            text = failure.text or failure.get("message", "")
            found = False
            for block in CASE.split(text):
                for code, title in CODE.findall(block):
                    found = True
                    yield operation, code, title.strip(), block
            if not found:
                # An error with no check code (a crash, a connection error) is never allowed.
                yield operation, failure.tag, failure.get("message", "").strip(), text


def allowed_by(entry, operation, code, block):
    return (
        entry["operation"] == operation
        and entry["check"] == code
        and entry.get("contains", "") in block
    )


def main(allowed_path, reports):
    with open(allowed_path, "rb") as f:
        allowed = tomllib.load(f)["allowed"]
    for entry in allowed:
        if not entry.get("reason", "").strip():
            sys.exit(f"{allowed_path}: every allowed failure needs a reason: {entry}")
    used, unexpected = set(), []
    for report in reports:
        for operation, code, title, block in failures(report):
            match = next(
                (i for i, e in enumerate(allowed) if allowed_by(e, operation, code, block)),
                None,
            )
            if match is None:
                unexpected.append((operation, code, title, block))
            else:
                used.add(match)
    for i, entry in enumerate(allowed):
        state = "seen" if i in used else "not seen this run"
        print(f"allowed ({state}): {entry['operation']} {entry['check']}: {entry['reason']}")
    for operation, code, title, block in unexpected:
        print(f"\nUNEXPECTED: {operation} {code} {title}\n{block.strip()}\n")
    print(f"schemathesis: {len(unexpected)} unexpected failures, {len(used)} allowed kinds seen")
    return 1 if unexpected else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2:]))

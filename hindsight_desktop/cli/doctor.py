"""The troubleshooting commands of the CLI: `doctor` and `why`. Argument parsing and printing only;
the checks live in doctor.py and core/maintenance/diagnose.py."""

from __future__ import annotations

import argparse
import json
from typing import Any

from hindsight_desktop.config import default_data_dir, load_settings

COMMANDS = ("doctor", "why")


def add_parsers(sub: Any) -> None:
    """Add `doctor` and `why` to the CLI's subparsers."""
    sub.add_parser("doctor", help="check everything between install and recall; prints a fix per failure")
    why = sub.add_parser("why", help="why a memory was (not) recalled for a query")
    why.add_argument("query")
    why.add_argument("memory_id")


def run(args: argparse.Namespace) -> int:
    return _doctor(args) if args.command == "doctor" else _why(args)


def _doctor(args: argparse.Namespace) -> int:
    from hindsight_desktop.doctor import run_doctor

    report = run_doctor(default_data_dir(), load_settings())
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        for check in report["checks"]:
            state = "SKIP" if check["skipped"] else "PASS" if check["ok"] else "FAIL"
            print(f"{state}  {check['name']}: {check['detail']}")
            if check["fix"] and (check["skipped"] or not check["ok"]):
                print(f"      fix: {check['fix']}")
        failed = sum(not c["ok"] for c in report["checks"])
        print("All checks passed." if not failed else f"{failed} check(s) failed.")
    return 0 if report["ok"] else 1


def _why(args: argparse.Namespace) -> int:
    from hindsight_desktop.core.engine import MemoryEngine
    from hindsight_desktop.core.maintenance.diagnose import why_not_recalled

    with MemoryEngine(default_data_dir(), settings=load_settings()) as engine:
        result = why_not_recalled(engine, args.query, args.memory_id).to_dict()
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        _print_why(result)
    return 0


def _yes(value: object) -> str:
    return "yes" if value else "no"


def _print_why(r: dict[str, Any]) -> None:
    print(f"query: {r['query']!r} (keyword terms: {', '.join(r['terms']) or 'none'})")
    print(f"1. exists: {_yes(r['exists'])}" + (f": {r['content']!r}" if r["exists"] else f" ({r['memory_id']})"))
    if r["exists"]:
        extra = f", superseded by {r['superseded_by']}" if r["superseded_by"] else ""
        print(f"2. status: {r['status']}, layer {r['layer']}{extra}")
        print(f"3. vector from the current model: {_yes(r['vector_models'])}"
              + (f" ({', '.join(r['vector_models'])})" if r["vector_models"] else ""))
        missed = [t for t in r["terms"] if t not in r["matched_terms"]]
        print(f"4. keyword index: {'indexed' if r['keyword_indexed'] else 'not indexed'}; matched: "
              f"{', '.join(r['matched_terms']) or 'nothing'}" + (f" (not: {', '.join(missed)})" if missed else ""))
        similarity = "n/a" if r["similarity"] is None else f"{r['similarity']:.3f}"
        where = (f"rank {r['rank']} of {r['results']}" if r["rank"] else "not searched: working memory is never "
                 "a candidate" if r["layer"] == "working" else f"not among the {r['results']} results")
        print(f"5. similarity {similarity}; {where}" + (" (deep search)" if r["deep"] else ""))
        if r["scores"]:
            print("   scores: " + ", ".join(f"{k} {v:.3f}" for k, v in r["scores"].items()))
    print(f"verdict: {r['verdict']}")
    if r["fix"]:
        print(f"fix: {r['fix']}")

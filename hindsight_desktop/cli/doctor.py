"""The troubleshooting commands: `doctor` (every check between install and recall, each with its fix) and
`why` (why a memory was or was not recalled). The checks are in doctor_checks.py and core/diagnose/."""

from __future__ import annotations

import argparse
from typing import Any

from hindsight_desktop.cli.command import Command
from hindsight_desktop.cli.output import data_dir, emit, person_call
from hindsight_desktop.cli.words import SCORES_WORDS, SIMILARITY_WORDS
from hindsight_desktop.config import load_settings


def _doctor(args: argparse.Namespace) -> int:
    from hindsight_desktop.cli.doctor_checks import run_doctor

    report = run_doctor(data_dir(args), load_settings())
    emit(args, report, human=_print_doctor)
    return 0 if report["ok"] else 1  # the verdict, not an error: exit 1 when a check failed


def _print_doctor(report: dict[str, Any]) -> None:
    for check in report["checks"]:
        state = "SKIP" if check["skipped"] else "PASS" if check["ok"] else "FAIL"
        print(f"{state}  {check['name']}: {check['detail']}")
        if check["fix"] and (check["skipped"] or not check["ok"]):
            print(f"      fix: {check['fix']}")
    failed = sum(not c["ok"] for c in report["checks"])
    print("All checks passed." if not failed else f"{failed} check(s) failed.")


def _why_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("query", help="the search that should have found it")
    p.add_argument("memory_id", help="the memory it should have found")


def _why(args: argparse.Namespace) -> None:
    person_call(args, "why", {"query": args.query, "memory_id": args.memory_id}, human=_print_why)


def _yes(value: object) -> str:
    return "yes" if value else "no"


def _print_why(r: dict[str, Any]) -> None:
    print(f"query: {r['query']!r} (keyword terms: {', '.join(r['terms']) or 'none'})")
    print(f"1. exists: {_yes(r['exists'])}" + (f": {r['content']!r}" if r["exists"] else f" ({r['memory_id']})"))
    if r["exists"]:
        extra = f", superseded by {r['superseded_by']}" if r["superseded_by"] else ""
        print(f"2. status: {r['status']}, layer {r['layer']}{extra}")
        print(
            f"3. vector from the current model: {_yes(r['vector_models'])}"
            + (f" ({', '.join(r['vector_models'])})" if r["vector_models"] else "")
        )
        missed = [t for t in r["terms"] if t not in r["matched_terms"]]
        print(
            f"4. keyword index: {'indexed' if r['keyword_indexed'] else 'not indexed'}; matched: "
            f"{', '.join(r['matched_terms']) or 'nothing'}" + (f" (not: {', '.join(missed)})" if missed else "")
        )
        similarity = "n/a" if r["similarity"] is None else f"{r['similarity']:.3f}"
        where = (
            f"rank {r['rank']} of {r['results']}"
            if r["rank"]
            else "not searched: working memory is never a candidate"
            if r["layer"] == "working"
            else f"not among the {r['results']} results"
        )
        print(f"5. similarity {similarity} ({SIMILARITY_WORDS}); {where}" + (" (deep search)" if r["deep"] else ""))
        if r["scores"]:
            print(f"   {SCORES_WORDS}: " + ", ".join(f"{k} {v:.3f}" for k, v in r["scores"].items()))
    print(f"verdict: {r['verdict']}")
    if r["fix"]:
        print(f"fix: {r['fix']}")


COMMANDS = (
    Command("doctor", "check everything between install and recall; prints a fix per failure", _doctor),
    Command("why", "why a memory was (not) recalled for a query", _why, _why_arguments),
)

"""Hybrid recall: candidates, fusion, dates in questions, confidence and the natural-sentence rendering."""

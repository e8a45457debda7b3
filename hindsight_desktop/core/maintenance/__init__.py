"""Maintenance (the `memory_reflect` tool): fading, merging, consolidation, contradictions, repair,
forgetting and purge."""

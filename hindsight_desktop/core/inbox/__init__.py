"""The inbox: what assistants propose waits here for the person (issue 22). directives.py tells a
standing instruction to assistants from a fact; policy.py decides whether a write waits; pending.py
stores, approves, rejects and expires what waits."""

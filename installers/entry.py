"""The frozen app's entry point: the same `hindsight-desktop` command line as the pip install."""

import multiprocessing
import sys

from hindsight_desktop.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()  # nothing spawns today; a frozen child would re-run the CLI otherwise
    sys.exit(main())

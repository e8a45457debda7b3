import sys

from hindsight_desktop.cli import main

sys.exit(main())

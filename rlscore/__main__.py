import sys

from rlscore.cli import main

sys.exit(main())

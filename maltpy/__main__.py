import sys

from maltpy.cli.main import main

sys.exit(main())

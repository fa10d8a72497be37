import sys

from companion.cli import main

if __name__ == "__main__":  # not when a spawned process (the vision process) imports it
    sys.exit(main())

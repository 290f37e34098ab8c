"""python -m _phiml_rewrite_verify (--replay SPEC OUT | SCRIPT ARGS): see `entry.install_from_env`."""
import sys

from .entry import replay, run_main

if sys.argv[1:2] == ["--replay"]:
    replay(sys.argv[2], sys.argv[3])
else:
    run_main(sys.argv[1], sys.argv[2:])

"""`python -m serving --workers N --port P` (what `make serve` runs): N Head Spaces
processes behind nginx on one port, health-checked every few seconds; Ctrl-C (or SIGTERM)
stops nginx and every worker."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

from serving.cluster import Cluster
from serving.launch import ROOT
from serving.nginx import NginxMissingError

CHECK_SECONDS = 5.0


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m serving", description=__doc__)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--port", type=int, default=8501)
    parser.add_argument("--host", default="127.0.0.1", help="address nginx listens on")
    parser.add_argument("--run-dir", type=Path, default=ROOT / "artifacts" / "serve")
    return parser.parse_args(argv)


def _stop_on_sigterm(signum, frame) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    cluster = Cluster(args.workers, args.port, args.run_dir, host=args.host)
    try:
        print(f"Starting {args.workers} workers behind nginx (run directory {cluster.run_dir})…")
        url = cluster.start()
        ports = ", ".join(str(w.port) for w in cluster.workers)
        print(f"Head Spaces for a class: {url}  (workers on 127.0.0.1:{ports}); Ctrl-C stops.")
        sys.stdout.flush()
        while True:
            time.sleep(CHECK_SECONDS)
            for event in cluster.check():
                print(event, flush=True)
    except NginxMissingError as error:
        print(error, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("Stopping nginx and the workers…")
    finally:
        cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

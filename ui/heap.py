"""Keeping Python's cyclic garbage collector off the long-lived heap of a class's worker.

A full collection walks every tracked object: with the model, the caches and a class's
screens made (~290,000 objects) it took 0.26-0.41 s, and a Next to 160 students set one
off in a worker in 3 of 4 Nexts (bench_live_class, 6 Dec 2026), stopping that worker's
80 screens meanwhile. Objects that live as long as the process need not be walked."""

from __future__ import annotations

import gc


def freeze_long_lived() -> None:
    """Collect what is garbage now, then freeze what is left (gc.freeze: later collections
    skip it). Called once a class's screens are made, which is when the heap holds what
    the class will keep. What was frozen and dies later is still freed by reference
    counting; only its cycles wait for the next call, which unfreezes and collects first,
    so they are kept for one class at most."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()

"""The cyclic garbage collector paused around work that makes many objects and no cycles: a command's
start-up (:func:`start_up`, :func:`started`), an application's loading and a report's rendering
(:func:`collector_paused`)."""

from __future__ import annotations

import contextlib
import gc
from typing import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector (reference counting still frees everything) while one
    application loads, or while a report is rendered, and restore it after.

    Loading makes millions of long-lived objects (the parsed values) and no reference cycles, so
    every collection in the meantime scans a growing heap and frees nothing: a quarter of the time
    of parsing one file of 40,000 documents (bench case (f): 5.0 s with the collector, 3.8 s
    paused, CPU time of parse_text). Cycles made meanwhile (by a renderer, say) are collected by
    one young-generation collection when it resumes (one pass over what loading made: 0.3 s of the
    1.2 s saved there). Rendering a report is the same (the SARIF of 120,000 findings: 8 s of
    building with the collector, 2.4 s without). The collector is never switched off for the run:
    only around loading and rendering."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
            gc.collect(0)  # now, so that gc.freeze() after loading never keeps a garbage cycle


#: Whether :func:`start_up` paused the collector and :func:`started` has not resumed it yet.
_starting = False


def start_up() -> None:
    """Pause the collector while a command loads hooklint's modules (the console script's first
    step): importing the rules, the pipeline and the reporters makes some 100,000 long-lived
    objects (classes, functions, compiled expressions) and no garbage, and each collection in the
    meantime scans them all for nothing: 10 ms of the 150 ms of CPU of a one-file lint (measured
    with and without, 15 runs each). :func:`started` resumes it."""
    global _starting
    if gc.isenabled():
        gc.disable()
        _starting = True


def started() -> None:
    """Resume the collector :func:`start_up` paused, if it did, with what start-up made frozen
    (``gc.freeze``: moved out of every later collection's scan, for good): called when the run's
    code is loaded (:func:`hooklint.pipeline.lint_paths`, once its rules are), and when the command
    ends. Does nothing otherwise."""
    global _starting
    if _starting:
        _starting = False
        gc.freeze()
        gc.enable()

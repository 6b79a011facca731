"""Evaluation releases the GIL: Python runs while a character evaluates, and two threads
evaluate two characters at the same time."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import sinew
from conftest import MIKU, WAVEFILE

FRAMES = range(600)


def work(model, motion):
    character = sinew.Character(model, motion, physics=True)
    return character.evaluate(FRAMES)["world"]


def test_python_runs_while_a_character_evaluates(asset):
    model = sinew.Model(asset(MIKU))
    motion = model.load_motion(asset(WAVEFILE))
    result = {}
    worker = threading.Thread(target=lambda: result.update(world=work(model, motion)))
    ticks = 0
    worker.start()
    # Had the call held the GIL, this loop could not run until it returned.
    while worker.is_alive():
        ticks += 1
        time.sleep(0)
    worker.join()
    assert result["world"].shape == (600, 140, 4, 4)
    print(f"main thread ran {ticks} times during the call")
    assert ticks > 100


def test_two_threads_evaluate_at_once(asset):
    """Two threads are inside an evaluation at the same moment (neither waits for the other's
    call to return), and each gets the answer it would get alone. No timing is asserted."""
    model = sinew.Model(asset(MIKU))
    motion = model.load_motion(asset(WAVEFILE))
    alone = work(model, motion)
    entered = [threading.Event(), threading.Event()]
    returned = [threading.Event(), threading.Event()]
    overlapped = [False, False]
    results = [None, None]

    def run(k):
        character = sinew.Character(model, motion, physics=True)
        # Had a call held the GIL, no thread could get here while the other is inside one.
        overlapped[k] = entered[1 - k].is_set() and not returned[1 - k].is_set()
        entered[k].set()
        results[k] = character.evaluate(FRAMES)["world"]
        returned[k].set()

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert any(overlapped), "the two calls never ran at the same time"
    assert np.array_equal(results[0], alone) and np.array_equal(results[1], alone)

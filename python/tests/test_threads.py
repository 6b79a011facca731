"""Evaluation releases the GIL: Python runs while a character evaluates, and two threads are
inside two evaluations at the same moment. No timing is asserted: the evidence is that another
thread finds the character *inside* its call.

While a ``Character`` method that changes it (``evaluate``) runs, the object is borrowed: any
other access raises ``RuntimeError("Already mutably borrowed")``. Another thread can only see
that if it runs Python while the call is in progress, which it cannot unless the call released
the GIL (the borrow ends, with the GIL still held, before the caller runs another bytecode)."""

from __future__ import annotations

import threading

import numpy as np

import sinew
from conftest import MIKU, WAVEFILE

FRAMES = 600


def inside(character) -> bool:
    """Whether ``character`` is inside a call that changes it, seen from this thread."""
    try:
        character.duration
    except RuntimeError as e:
        assert "borrowed" in str(e), e
        return True
    return False


def evaluate_in_thread(character, frames):
    result = {}
    thread = threading.Thread(target=lambda: result.update(world=character.evaluate(range(frames))["world"]))
    thread.start()
    return thread, result


def test_python_runs_while_a_character_evaluates(asset):
    model = sinew.Model(asset(MIKU))
    motion = model.load_motion(asset(WAVEFILE))
    alone = sinew.Character(model, motion, physics=True).evaluate(range(FRAMES))["world"]
    character = sinew.Character(model, motion, physics=True)
    worker, result = evaluate_in_thread(character, FRAMES)
    seen = 0
    while worker.is_alive():
        seen += inside(character)
    worker.join()
    # Had the call held the GIL, this thread could never have found the character inside it.
    assert seen > 0, "the main thread never ran while the character evaluated"
    assert np.array_equal(result["world"], alone)
    print(f"the main thread found the character inside evaluate {seen} times")


def test_two_threads_evaluate_at_once(asset):
    """The main thread finds character A inside its call, then B inside its call, then A still
    inside: at that moment both threads were inside an evaluation. Each gets the answer it gets
    alone. Should one call end before the other starts (a busy machine), the round is run again
    with more frames; a GIL held by either call fails every round."""
    model = sinew.Model(asset(MIKU))
    motion = model.load_motion(asset(WAVEFILE))
    frames = FRAMES
    for _ in range(3):  # 600, 2,400, 9,600 frames: under the frame cap
        alone = sinew.Character(model, motion, physics=True).evaluate(range(frames))["world"]
        a = sinew.Character(model, motion, physics=True)
        b = sinew.Character(model, motion, physics=True)
        (ta, ra), (tb, rb) = evaluate_in_thread(a, frames), evaluate_in_thread(b, frames)
        both = 0
        while ta.is_alive() or tb.is_alive():
            if inside(a) and inside(b) and inside(a):
                both += 1
        ta.join()
        tb.join()
        assert np.array_equal(ra["world"], alone) and np.array_equal(rb["world"], alone)
        if both:
            break
        frames *= 4
    assert both > 0, "the two evaluations were never in progress at the same moment"
    print(f"both characters found inside evaluate {both} times ({frames} frames each)")

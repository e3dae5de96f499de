"""memcore's kernel scratch buffers against the requests TFLM's kernels made, for the
truth files that record them (tools/tflm_oracle/add_scratch_requests.py: every
RequestScratchBufferInArena of AllocateTensors(), with the operator that asked).

The head already sums these buffers with the activations; this checks each request on
its own, so that a wrong scratch size cannot hide behind an activation that dominates
the plan.  Today this is tests/corpus/truth/esp32-esp-nn.json: ESP-NN's kernels of the
plain ESP32, where only int8 SOFTMAX asks (4 bytes per element of the input's dims[1]).
"""
import json
import pathlib

import pytest

import memcore
from test_conformance import NOT_MODELLED, TRUTH_FILES, load_truth, model_path

WITH_REQUESTS = [p for p in TRUTH_FILES
                 if any("scratch_requests" in e for e in json.loads(p.read_text())["models"].values())]


def test_some_truth_records_scratch_requests():
    assert any(p.name == "esp32-esp-nn.json" for p in WITH_REQUESTS)


@pytest.mark.parametrize("truth_path", WITH_REQUESTS, ids=lambda p: p.name)
def test_scratch_buffers_are_the_requests_tflm_made(truth_path):
    target, kernels, models = load_truth(truth_path)
    differ, asked = [], 0
    for key, t in sorted(models.items()):
        if t["error"] is not None or "scratch_requests" not in t:
            continue
        try:
            arena = memcore.tflm_arena(memcore.load(model_path(key)), target=target, kernels=kernels)
        except memcore.MemcoreError as e:
            # What memcore documents it does not model (test_conformance checks the text).
            assert any(s in str(e) for s in NOT_MODELLED), f"{key}: {e}"
            continue
        mine = sorted((-1 - b[3], b[0]) for b in arena.buffers if b[3] < 0)
        theirs = sorted(tuple(r) for r in t["scratch_requests"])
        asked += len(theirs)
        if mine != theirs:
            differ.append(f"{key}: memcore {mine}, TFLM {theirs}")
    assert asked > 0, "the file records no request: nothing was checked"
    assert not differ, "\n".join(differ)

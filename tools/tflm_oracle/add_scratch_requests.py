"""Copies the kernels' scratch-buffer requests from per-allocation logs into a truth file.

    python tools/tflm_oracle/add_scratch_requests.py TRUTH.json LOG_DIR

LOG_DIR is what measure_alloclog.py wrote for the same build and models (one JSON per
model).  Each model entry of TRUTH gains "scratch_requests": [[op, bytes], ...] in request
order: every RequestScratchBufferInArena of AllocateTensors(), with the index of the
operator that asked (models TFLM refused get none).  A log whose head, tail, total or categories differ from the truth
file's entry (matches_unpatched false), or a model without a log, stops the script.
"""
import json
import os
import sys


def main(truth_path, log_dir):
    with open(truth_path) as f:
        truth = json.load(f)
    for key, entry in truth["models"].items():
        if entry["error"] is not None:
            continue  # TFLM refused the model: nothing was planned
        log_path = os.path.join(log_dir, os.path.basename(key)[:-len(".tflite")] + ".json")
        with open(log_path) as f:
            log = json.load(f)
        if log["model"] != key or not log["matches_unpatched"]:
            sys.exit(f"{log_path}: not the log of {key} from the same build")
        entry["scratch_requests"] = [[r["op"], r["bytes"]] for r in log["scratch_requests"]]
    truth["header"]["fields"]["scratch_requests"] = (
        "every RequestScratchBufferInArena during AllocateTensors(), in order: [operator "
        "index, bytes] (from the alloclog-patched build of the same source, whose head, "
        "tail, total and categories equal this file's)")
    truth["header"]["command"] += (" && python tools/tflm_oracle/measure_alloclog.py "
                                   "--build-dir $ALLOCLOG_BUILD_DIR --truth THIS_FILE ... "
                                   "--out-dir $LOG_DIR && python "
                                   "tools/tflm_oracle/add_scratch_requests.py THIS_FILE $LOG_DIR")
    with open(truth_path, "w") as f:
        f.write(json.dumps(truth, indent=1) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:])

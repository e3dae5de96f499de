"""Makes a patched copy of a TFLM source tree that logs every arena allocation.

    python tools/tflm_oracle/alloclog_patch.py TFLM_SRC PATCHED_SRC

The copy keeps every file's time stamp, and only four library sources change, so a
build of the copy can reuse an unpatched build's objects (measure_alloclog.py does).
Each edit inserts a call to the hooks of alloclog/oracle_alloclog.h next to a line of
TFLM's that must occur exactly once; when TFLM changes and an anchor is gone, this
script stops and names it instead of producing a silently incomplete log.  The hooks
only print, so the patched build's head, tail and total equal the unpatched build's.
The patched tree is for measurement in a scratch folder; never commit it.
"""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = '#include "tensorflow/lite/micro/oracle_alloclog.h"\n'


def ev(name, fmt="", *args):
    """A hook call: event name, printf fields, arguments."""
    joined = "".join(", " + a for a in args)
    return f'oracle_alloclog_event("{name}", "{fmt}"{joined});'


def ph(name, subgraph="-1", op="-1", op_name="nullptr"):
    return f'oracle_alloclog_phase("{name}", {subgraph}, {op}, {op_name});'


UL = "static_cast<unsigned long>"
L = "static_cast<long>"

# (file, anchor, where, code): code goes on its own line before or after the anchor.
EDITS = [
    # --- the one arena allocator: every head, temp and tail movement ---
    ("tensorflow/lite/micro/arena_allocator/single_arena_buffer_allocator.cc",
     '#include "tensorflow/lite/micro/micro_log.h"\n', "after", INCLUDE),
    ("tensorflow/lite/micro/arena_allocator/single_arena_buffer_allocator.cc",
     "  head_ = aligned_result + size;\n  temp_ = head_;\n", "after",
     "  " + ev("head_resize", r"\"bytes\": %lu, \"align\": %lu, \"head\": %ld",
               f"{UL}(size)", f"{UL}(alignment)", f"{L}(head_ - buffer_head_)")),
    ("tensorflow/lite/micro/arena_allocator/single_arena_buffer_allocator.cc",
     '        "Failed to resize buffer. Requested: %u, available %u, missing: %u",\n'
     "        size, available_memory, size - available_memory);\n", "after",
     "    " + ev("head_resize_failed", r"\"bytes\": %lu, \"align\": %lu, \"available\": %lu",
                 f"{UL}(size)", f"{UL}(alignment)", f"{UL}(available_memory)")),
    ("tensorflow/lite/micro/arena_allocator/single_arena_buffer_allocator.cc",
     "  tail_ = aligned_result;\n  return aligned_result;\n", "before-last-line",
     "  " + ev("persistent", r"\"bytes\": %lu, \"align\": %lu, \"offset\": %ld, \"tail_used\": %ld",
               f"{UL}(size)", f"{UL}(alignment)", f"{L}(aligned_result - buffer_head_)",
               f"{L}(buffer_tail_ - tail_)")),
    ("tensorflow/lite/micro/arena_allocator/single_arena_buffer_allocator.cc",
     "  if (aligned_result < head_) {\n", "after",
     "    " + ev("persistent_failed", r"\"bytes\": %lu, \"align\": %lu, \"head\": %ld, \"tail_used\": %ld",
                 f"{UL}(size)", f"{UL}(alignment)", f"{L}(head_ - buffer_head_)",
                 f"{L}(buffer_tail_ - tail_)")),
    ("tensorflow/lite/micro/arena_allocator/single_arena_buffer_allocator.cc",
     "  temp_buffer_count_++;\n  return aligned_result;\n", "before-last-line",
     "  " + ev("temp", r"\"bytes\": %lu, \"align\": %lu, \"offset\": %ld, \"temp_end\": %ld",
               f"{UL}(size)", f"{UL}(alignment)", f"{L}(aligned_result - buffer_head_)",
               f"{L}(temp_ - buffer_head_)")),
    ("tensorflow/lite/micro/arena_allocator/single_arena_buffer_allocator.cc",
     '        "Failed to allocate temp memory. Requested: %u, "\n'
     '        "available %u, missing: %u",\n'
     "        size, available_memory, size - available_memory);\n", "after",
     "    " + ev("temp_failed", r"\"bytes\": %lu, \"align\": %lu, \"available\": %lu",
                 f"{UL}(size)", f"{UL}(alignment)", f"{UL}(available_memory)")),
    ("tensorflow/lite/micro/arena_allocator/single_arena_buffer_allocator.cc",
     "  temp_buffer_ptr_check_sum_ ^= (reinterpret_cast<intptr_t>(temp_buf));\n"
     "  temp_buffer_count_--;\n", "after",
     "  " + ev("temp_free", r"\"offset\": %ld", f"{L}(temp_buf - buffer_head_)")),
    ("tensorflow/lite/micro/arena_allocator/single_arena_buffer_allocator.cc",
     "  temp_ = head_;\n  return kTfLiteOk;\n", "before-last-line",
     "  " + ev("temp_reset", r"\"head\": %ld", f"{L}(head_ - buffer_head_)")),

    # --- the model allocator: what each allocation is for, scratch, the plan ---
    ("tensorflow/lite/micro/micro_allocator.cc",
     '#include "tensorflow/lite/micro/micro_allocator.h"\n', "after", INCLUDE),
    ("tensorflow/lite/micro/micro_allocator.cc",
     "  uint8_t* data_allocator_buffer =\n", "before",
     "  " + ph("start_model_allocation:builtin_data_allocator")),
    ("tensorflow/lite/micro/micro_allocator.cc",
     "  if (InitScratchBufferData() != kTfLiteOk) {\n    return nullptr;\n  }\n", "before",
     "  " + ph("start_model_allocation:scratch_request_list")),
    ("tensorflow/lite/micro/micro_allocator.cc",
     "  SubgraphAllocations* output = reinterpret_cast<SubgraphAllocations*>(\n", "before",
     "  " + ph("start_model_allocation:subgraph_allocations")),
    ("tensorflow/lite/micro/micro_allocator.cc",
     "TfLiteStatus MicroAllocator::AllocateCompressedTensorsList(\n"
     "    const Model* model, SubgraphAllocations* subgraph_allocations) {\n", "after",
     "  " + ph("start_model_allocation:compressed_tensors_list")),
    ("tensorflow/lite/micro/micro_allocator.cc",
     "TfLiteStatus MicroAllocator::AllocateTfLiteEvalTensors(\n"
     "    const Model* model, SubgraphAllocations* subgraph_allocations) {\n", "after",
     "  " + ph("start_model_allocation:eval_tensors")),
    ("tensorflow/lite/micro/micro_allocator.cc",
     "TfLiteStatus MicroAllocator::AllocateNodeAndRegistrations(\n"
     "    const Model* model, SubgraphAllocations* subgraph_allocations) {\n", "after",
     "  " + ph("start_model_allocation:node_and_registrations")),
    ("tensorflow/lite/micro/micro_allocator.cc",
     "  *buffer_idx = scratch_buffer_request_count_;\n", "after",
     "  " + ev("scratch_request", r"\"bytes\": %lu, \"request_subgraph\": %d, \"buffer_index\": %lu",
               f"{UL}(bytes)", "subgraph_idx", f"{UL}(scratch_buffer_request_count_)")),
    ("tensorflow/lite/micro/micro_allocator.cc",
     "  TfLiteTensor* tensor = AllocatePersistentTfLiteTensorInternal();\n", "before",
     "  " + ev("tensor_struct", r"\"kind\": \"persistent\", \"tensor\": %d, \"tensor_subgraph\": %d",
               "tensor_index", "subgraph_index")),
    ("tensorflow/lite/micro/micro_allocator.cc",
     "  TfLiteTensor* tensor = reinterpret_cast<TfLiteTensor*>(\n"
     "      non_persistent_buffer_allocator_->AllocateTemp(sizeof(TfLiteTensor),\n", "before",
     "  " + ev("tensor_struct", r"\"kind\": \"temp\", \"tensor\": %d, \"tensor_subgraph\": %d",
               "tensor_index", "subgraph_index")),
    ("tensorflow/lite/micro/micro_allocator.cc",
     "  TF_LITE_ENSURE_STATUS(AllocateScratchBufferHandles(\n", "before",
     "  " + ph("finish_model_allocation:scratch_buffer_handles")),
    ("tensorflow/lite/micro/micro_allocator.cc",
     "  TF_LITE_ENSURE_STATUS(CommitStaticMemoryPlan(model, subgraph_allocations,\n", "before",
     "  " + ph("finish_model_allocation:memory_planning")),
    ("tensorflow/lite/micro/micro_allocator.cc",
     "  // We allocate buffers for variable tensors here since the offline planner\n", "before",
     "  " + ph("finish_model_allocation:variables")),
    ("tensorflow/lite/micro/micro_allocator.cc",
     "  AllocationInfo* allocation_info = builder.Finish();\n", "after",
     "  " + ph("finish_model_allocation:memory_planning") + "\n"
     "  for (size_t s = 0; s < model->subgraphs()->size(); s++) {\n"
     "    const auto* t = model->subgraphs()->Get(s)->tensors();\n"
     "    " + ev("subgraph_tensors", r"\"subgraph_index\": %lu, \"tensors\": %lu",
                 f"{UL}(s)", f"{UL}(t ? t->size() : 0)") + "\n"
     "  }\n"
     "  " + ev("allocation_info", r"\"count\": %d, \"scratch_requests\": %lu, "
               r"\"offline_planned\": %d, \"greedy_per_buffer_bytes\": %lu",
               "allocation_info_count", f"{UL}(scratch_buffer_request_count_)",
               "offline_planner_offsets != nullptr ? 1 : 0",
               f"{UL}(GreedyMemoryPlanner::per_buffer_size())")),
    ("tensorflow/lite/micro/micro_allocator.cc",
     "  memory_planner_->Init(planner_arena, remaining_arena_size);\n", "after",
     "  " + ev("planner_arena", r"\"bytes\": %lu", f"{UL}(remaining_arena_size)")),
    ("tensorflow/lite/micro/micro_allocator.cc",
     "  TF_LITE_ENSURE_STATUS(\n"
     "      CreatePlan(memory_planner_, allocation_info, allocation_info_count));\n", "replace",
     "  if (CreatePlan(memory_planner_, allocation_info, allocation_info_count) != kTfLiteOk) {\n"
     "    " + ev("plan_failed", r"\"planner_arena_bytes\": %lu, \"allocation_info_count\": %d",
                 f"{UL}(remaining_arena_size)", "allocation_info_count") + "\n"
     "    return kTfLiteError;\n  }\n"),
    ("tensorflow/lite/micro/micro_allocator.cc",
     "  head_usage = memory_planner_->GetMaximumMemorySize();\n", "after",
     "  " + ev("plan_size", r"\"bytes\": %lu, \"previous_max_head_bytes\": %lu",
               f"{UL}(head_usage)", f"{UL}(max_head_buffer_usage_)")),
    ("tensorflow/lite/micro/micro_allocator.cc",
     "      *current->output_ptr = reinterpret_cast<void*>(starting_point + offset);\n", "after",
     "      " + ev("planned", r"\"info_index\": %lu, \"bytes\": %lu, \"first_created\": %d, "
                   r"\"last_used\": %d, \"offline_offset\": %ld, \"offset\": %d",
                   f"{UL}(i)", f"{UL}(current->bytes)", "current->first_created",
                   "current->last_used", f"{L}(current->offline_offset)", "offset")),
    ("tensorflow/lite/micro/micro_allocator.cc",
     "      ++planner_index;\n    }\n", "replace",
     "      ++planner_index;\n    } else {\n"
     "      " + ev("not_planned", r"\"info_index\": %lu, \"bytes\": %lu, \"first_created\": %d, "
                   r"\"last_used\": %d", f"{UL}(i)", f"{UL}(current->bytes)",
                   "current->first_created", "current->last_used") + "\n    }\n"),

    # --- the interpreter: which step of AllocateTensors() is running ---
    ("tensorflow/lite/micro/micro_interpreter.cc",
     '#include "tensorflow/lite/micro/micro_interpreter.h"\n', "after", INCLUDE),
    ("tensorflow/lite/micro/micro_interpreter.cc",
     "  SubgraphAllocations* allocations = allocator_.StartModelAllocation(model_);\n", "before",
     "  " + ph("start_model_allocation")),
    ("tensorflow/lite/micro/micro_interpreter.cc",
     "      const auto* op = subgraph->operators()->Get(i);\n", "after",
     "      " + ph("parse_op_data", "subgraph_idx", "static_cast<int>(i)")),
    ("tensorflow/lite/micro/micro_interpreter.cc",
     "  micro_context_.SetInterpreterState(\n"
     "      MicroInterpreterContext::InterpreterState::kMemoryPlanning);\n", "after",
     "  " + ph("finish_model_allocation")),
    ("tensorflow/lite/micro/micro_interpreter.cc", "  input_tensors_ =\n", "before",
     "  " + ph("input_tensors")),
    ("tensorflow/lite/micro/micro_interpreter.cc", "  output_tensors_ =\n", "before",
     "  " + ph("output_tensors")),
    ("tensorflow/lite/micro/micro_interpreter.cc", "  TF_LITE_ENSURE_STATUS(Reset());\n",
     "before", "  " + ph("reset")),

    ("tensorflow/lite/micro/micro_interpreter_graph.cc",
     '#include "tensorflow/lite/micro/micro_interpreter_graph.h"\n', "after", INCLUDE),
    ("tensorflow/lite/micro/micro_interpreter_graph.cc", "      if (registration->init) {\n",
     "before", "      " + ph("init", "static_cast<int>(subgraph_idx)",
                             "static_cast<int>(current_operator_index_)",
                             "OpNameFromRegistration(registration)")),
    ("tensorflow/lite/micro/micro_interpreter_graph.cc",
     "      if (registration->prepare != nullptr) {\n", "before",
     "      " + ph("prepare", "static_cast<int>(subgraph_idx)",
                   "static_cast<int>(current_operator_index_)",
                   "OpNameFromRegistration(registration)")),
    ("tensorflow/lite/micro/micro_interpreter_graph.cc",
     "      allocator_->FinishPrepareNodeAllocations(\n", "before",
     "      " + ph("finish_prepare", "static_cast<int>(subgraph_idx)",
                   "static_cast<int>(current_operator_index_)",
                   "OpNameFromRegistration(registration)")),
]


def apply(text, anchor, where, code, path):
    count = text.count(anchor)
    if count != 1:
        raise SystemExit(f"alloclog_patch: {path}: anchor found {count} times, expected once:\n"
                         f"{anchor}")
    code = code if code.endswith("\n") else code + "\n"
    if where == "after":
        return text.replace(anchor, anchor + code)
    if where == "before":
        return text.replace(anchor, code + anchor)
    if where == "before-last-line":
        head, last = anchor.rstrip("\n").rsplit("\n", 1)
        return text.replace(anchor, head + "\n" + code + last + "\n")
    if where == "replace":
        return text.replace(anchor, code)
    raise ValueError(where)


def main(src, dest):
    if os.path.exists(dest):
        shutil.rmtree(dest)
    shutil.copytree(src, dest, copy_function=shutil.copy2)  # keeps time stamps
    shutil.copy(os.path.join(HERE, "alloclog", "oracle_alloclog.h"),
                os.path.join(dest, "tensorflow/lite/micro/oracle_alloclog.h"))
    texts = {}
    for path, anchor, where, code in EDITS:
        full = os.path.join(dest, path)
        text = texts.get(path) or open(full).read()
        texts[path] = apply(text, anchor, where, code, path)
    for path, text in texts.items():
        with open(os.path.join(dest, path), "w") as f:
            f.write(text)
    print(f"patched {len(texts)} files with {len(EDITS)} hooks in {dest}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2])

/*
 * The graph's structural check, shared by every function that walks a graph without
 * scratch of its own (TFLM's model, operation counts): indices in range, tensor lists
 * inside the index array, shapes and byte sizes consistent.  Internal to the core;
 * mc_graph_validate adds the dataflow rules on top.
 */
#ifndef MEMCORE_GRAPH_H
#define MEMCORE_GRAPH_H

#include <stdbool.h>

#include "memcore.h"
#include "out_of_line.h"

mc_status_t mc_graph_structure(const mc_graph_t *graph, mc_problem_t *problem);

/* mc_op_counts for a graph that passed mc_graph_structure (the check's, once). */
mc_status_t mc_op_counts_of(const mc_graph_t *graph, int64_t op, int64_t *macs, int64_t *other_ops);

/* The byte size of a tensor of a graph that passed mc_graph_structure (its shape and
 * type give one: mc_tensor_bytes). */
int64_t mc__tensor_bytes(const mc_tensor_t *t);

/* start x dims[from] x ... x dims[end - 1] of tensor t (start when from >= end), by
 * mc_mul_or_flag (checked.h): a tensor's elements or bytes, or a filter's window. */
int64_t mc__dims_product(int64_t start, const mc_tensor_t *t, int32_t from, int32_t end, bool *overflow);

/* The scratch mc_tflite_read would ask to read a file with the counts of `graph` (a
 * graph mc_graph_structure passed): its arrays as the reader lays them out, the
 * operand lists and shapes among them unless they are read in place (in_place:
 * MC_GRAPH_IN_FILE), and the reader's own state (tflite_reader.c).  The check's memory
 * counts it (check.c). */
int64_t mc__tflite_read_bytes(const mc_graph_t *graph, bool in_place);

#endif /* MEMCORE_GRAPH_H */

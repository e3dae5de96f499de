/*
 * What check.c, check_inputs.c and check_resources.c share: the check's steps after
 * the arena (memory per region, time, energy, the verdict), its inputs' validation and
 * two helpers.
 */
#ifndef MEMCORE_CHECK_INTERNAL_H
#define MEMCORE_CHECK_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "memcore.h"

#define SECONDS_PER_HOUR 3600

/* x > 0, for any double: above +0 and at most +infinity (neither -0, a negative
 * number nor a NaN). */
bool mc__positive(double x);

/* MC_OK when the board's and the configuration's fields are within their ranges
 * (check_inputs.c), else MC_E_RANGE or MC_E_NEGATIVE. */
mc_status_t mc__check_inputs(const mc_board_t *b, const mc_check_config_t *c);

/* *sum += bytes, the overflow sticky in *overflow. */
void mc__accumulate(int64_t *sum, int64_t bytes, bool *overflow);
/* The same with a tensor's byte size (mc__tensor_bytes: a validated graph's tensor). */
void mc__accumulate_tensor(int64_t *sum, const mc_tensor_t *t, bool *overflow);

/* Step 5's per-operator part (check_resources.c): each operator's operations, fetch and
 * compute time into r (and its row, when rows is not NULL); `read` is a byte per tensor
 * of scratch. */
mc_status_t mc__check_operators(const mc_graph_t *g, const mc_board_t *b, const mc_check_config_t *c, mc_check_t *r,
                                uint8_t *read, mc_check_op_t *rows, mc_problem_t *problem);

/* Steps 4 to 7 of the check (check.c): memory per region, time, energy and the
 * verdict, from the arena and the model's totals already in r. */
mc_status_t mc__check_resources(const mc_board_t *b, const mc_check_config_t *c, mc_check_t *r);

#endif

/*
 * memcore — will this model fit on this board, and will it be quick enough?
 *
 * The one public header of the C core.  Every number memcore reports is computed
 * here, by the same code on a host (through cffi), inside MicroPython firmware and
 * on bare-metal targets.
 *
 * Conventions (see DESIGN.md):
 *   - every fallible function returns mc_status_t (MC_OK == 0, errors negative)
 *     and writes its results through out-pointers, which are left untouched on error;
 *   - no heap, no globals, no I/O: work that needs scratch takes a caller buffer whose
 *     size a matching mc_*_scratch_bytes() reports;
 *   - counts and byte sizes are int64_t; negative inputs are rejected and every
 *     multiply/add on sizes is overflow-checked (MC_E_OVERFLOW, never a wrapped value);
 *   - times and rates are double, in seconds and per-second units.
 */
#ifndef MEMCORE_H
#define MEMCORE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a result can change for the same input; the HIL harness refuses
 * to diff a board whose API version differs from the host's. */
#define MC_API_VERSION 7
#define MC_VERSION_STRING "0.1.0"

/* A batch bound meaning "no limit": activations per example are zero. */
#define MC_UNBOUNDED INT64_MAX

typedef enum {
    MC_OK = 0,
    MC_E_NULL = -1,          /* a required pointer argument is NULL */
    MC_E_NEGATIVE = -2,      /* a count or size is negative */
    MC_E_RANGE = -3,         /* a value is outside its domain (zero where positive is required, unknown enum, ...) */
    MC_E_NOT_FINITE = -4,    /* a float input is NaN or infinite */
    MC_E_OVERFLOW = -5,      /* a byte or value count does not fit in 64 bits */
    MC_E_SCRATCH = -6,       /* the caller's scratch buffer is too small or misaligned */
    MC_E_LIFETIME = -7,      /* a buffer's first use is after its last use, or negative */
    MC_E_MODEL = -8,         /* the model file is malformed (the mc_problem_t says where) */
    MC_E_GRAPH = -9,         /* the graph is not a valid dataflow graph (mc_problem_t) */
    MC_E_READ = -10,         /* the read callback failed */
    MC_E_UNSUPPORTED = -11,  /* a valid model memcore does not model (mc_problem_t) */
    MC_E_LIMIT = -12,        /* past a documented limit on the work or the model's size */
    MC_E_LAST = -12          /* the lowest status code */
} mc_status_t;

/* Human-readable text for a status; never NULL. */
const char *mc_strerror(mc_status_t status);
/* MC_VERSION_STRING and MC_API_VERSION, for bindings that cannot see macros. */
const char *mc_version(void);
int32_t mc_api_version(void);

/* ---- 1. The deployment budget ------------------------------------------------ */

typedef enum {
    MC_TERM_PARAMETERS = 0,
    MC_TERM_ACTIVATIONS = 1,
    MC_TERM_RUNTIME = 2
} mc_term_t;

typedef struct {
    int64_t parameter_bytes;  /* ceil(parameters * bits_per_parameter / 8) */
    int64_t activation_bytes; /* batch * activation_bytes_per_example */
    int64_t runtime_bytes;    /* fixed runtime overhead, as given */
    int64_t required_bytes;   /* the sum of the three */
    int64_t headroom_bytes;   /* limit - required; negative means it does not fit */
    mc_term_t dominant;       /* largest term; ties go to the earlier term */
    bool fits;                /* headroom_bytes >= 0 */
    bool fits_at_batch_zero;  /* parameters + runtime alone fit the limit */
    int64_t max_batch;        /* largest batch that fits; MC_UNBOUNDED when activations are
                                 zero; -1 when not even batch 0 fits */
} mc_budget_t;

/*
 * [in] parameters                   number of parameters (>= 0)
 * [in] bits_per_parameter           storage width in bits (> 0): 32 float32, 16 float16,
 *                                   8 int8, 4 int4 (bytes rounded up for the whole tensor)
 * [in] batch                        examples per request (>= 0)
 * [in] activation_bytes_per_example bytes (>= 0)
 * [in] runtime_bytes                fixed runtime overhead, bytes (>= 0)
 * [in] limit_bytes                  memory available, bytes (>= 0)
 * [out] out
 */
mc_status_t mc_budget(int64_t parameters, int64_t bits_per_parameter, int64_t batch,
                      int64_t activation_bytes_per_example, int64_t runtime_bytes,
                      int64_t limit_bytes, mc_budget_t *out);

/* ---- 2. Training memory of a multilayer perceptron (values, not bytes) ------- */

typedef struct {
    int64_t parameters;
    int64_t gradients;
    int64_t optimizer_state;
    int64_t activations;
    int64_t total;            /* values */
    int64_t total_bytes;      /* total * bits_per_value / 8, rounded up */
    double activation_share;  /* activations / total (0 when total is 0) */
} mc_mlp_training_t;

/*
 * [in] inputs          g, input features (>= 1)
 * [in] hidden          h, width of each hidden layer (>= 1)
 * [in] layers          L, hidden layers (>= 1)
 * [in] batch           examples per update (>= 0)
 * [in] state_per_param optimizer values per parameter: SGD 0, momentum 1, Adam 2 (>= 0)
 * [in] bits_per_value  storage width of one value in bits (> 0)
 * [out] out
 */
mc_status_t mc_mlp_training(int64_t inputs, int64_t hidden, int64_t layers, int64_t batch,
                            int64_t state_per_param, int64_t bits_per_value,
                            mc_mlp_training_t *out);

/*
 * Largest batch whose training values fit budget_values; -1 when not even batch 0
 * fits.  Give a budget in bytes by passing bits_per_value > 0 (the budget is then
 * bytes and converted through the width); bits_per_value == 0 means values.
 * [out] max_batch
 */
mc_status_t mc_mlp_max_batch(int64_t inputs, int64_t hidden, int64_t layers,
                             int64_t budget, int64_t state_per_param,
                             int64_t bits_per_value, int64_t *max_batch);

/* ---- 3. Per-layer memory reports (DeepLearning4J's convention) --------------- */

typedef enum {
    MC_LAYER_DENSE = 0,
    MC_LAYER_OUTPUT,
    MC_LAYER_ACTIVATION,
    MC_LAYER_DROPOUT,
    MC_LAYER_BATCHNORM,
    MC_LAYER_CONV2D,
    MC_LAYER_DEPTHWISE_CONV2D,
    MC_LAYER_POOL2D,
    MC_LAYER_GLOBAL_POOL,
    MC_LAYER_EMBEDDING,
    MC_LAYER_AUTOENCODER,
    MC_LAYER_L2_DISTANCE,
    MC_LAYER_L2_NORMALIZE,
    MC_LAYER_ADD,
    MC_LAYER_CONCAT,
    MC_LAYER_RESHAPE,
    MC_LAYER_LSTM,
    MC_LAYER_KIND_COUNT
} mc_layer_kind_t;

/* Shapes are per example, channels last.  Layers without spatial extent use
 * h = w = 1 and put their features in c.  For LSTM, h is the sequence length. */
typedef struct {
    mc_layer_kind_t kind;
    int64_t in_h, in_w, in_c;
    int64_t out_h, out_w, out_c;
    int64_t kernel_h, kernel_w; /* convolution and pooling windows */
    int64_t inputs;             /* tensors merged by add / concat (>= 1); else ignored */
    bool bias;                  /* dense, output, conv, depthwise, embedding, autoencoder */
    bool dropout;               /* dropout applied to this layer's input during training */
    bool pnorm;                 /* global p-norm pooling keeps its input */
    int64_t state_per_param;    /* updater values per parameter (SGD 0, momentum 1, Adam 2) */
} mc_layer_t;

typedef struct {
    int64_t input_elements;       /* per example */
    int64_t output_elements;      /* per example */
    int64_t parameters;           /* trainable values */
    int64_t non_trainable;        /* e.g. batch-norm running mean and variance */
    int64_t updater_state;        /* parameters * state_per_param */
    int64_t inference_fixed;      /* working memory, values */
    int64_t inference_per_example;
    int64_t training_fixed;
    int64_t training_per_example;
    int64_t cache_inference;
    int64_t cache_training;
} mc_layer_report_t;

/* [in] layer  [out] out */
mc_status_t mc_layer_report(const mc_layer_t *layer, mc_layer_report_t *out);

typedef enum { MC_MODE_INFERENCE = 0, MC_MODE_TRAINING = 1 } mc_mode_t;

typedef struct {
    int64_t parameters;            /* sum over layers (trainable + non-trainable) */
    int64_t updater_state;         /* training only */
    int64_t parameter_gradients;   /* training only */
    int64_t activations;           /* sum of batch * output elements: no reuse */
    int64_t activation_gradients;  /* training only: sum of batch * input elements */
    int64_t working_memory;        /* the largest single layer's fixed + batch * per-example */
    int64_t working_layer;         /* index of that layer */
    int64_t cache;
    int64_t total;                 /* upper bound, values */
    int64_t total_bytes;           /* total * bits_per_value / 8, rounded up */
    /* Realistic figure from lifetimes of a chain: a layer's input and output are live
     * together, everything older is released (inference) or kept for backward (training). */
    int64_t lifetime_activations;  /* peak live activation values */
    int64_t lifetime_total;        /* values */
    int64_t lifetime_total_bytes;
} mc_network_report_t;

/*
 * [in] layers          n layers in execution order (a chain)
 * [in] n_layers        (>= 1)
 * [in] batch           M (>= 0)
 * [in] mode            inference or training
 * [in] bits_per_value  storage width in bits (> 0)
 * [out] out
 */
mc_status_t mc_network_report(const mc_layer_t *layers, int64_t n_layers, int64_t batch,
                              mc_mode_t mode, int64_t bits_per_value,
                              mc_network_report_t *out);

/* ---- 4. Devices and verdicts ------------------------------------------------- */

typedef struct {
    int64_t memory_bytes;            /* memory available to the model */
    double read_bytes_per_second;    /* memory read bandwidth */
    double ops_per_second;           /* achieved arithmetic rate: peak * efficiency */
    double overhead_seconds;         /* fixed per-request overhead */
    double latency_budget_seconds;   /* must answer within */
} mc_device_t;

typedef enum {
    MC_VERDICT_RUNS = 0,
    MC_VERDICT_WILL_NOT_FIT = 1,
    MC_VERDICT_TOO_SLOW = 2
} mc_verdict_status_t;

typedef struct {
    mc_verdict_status_t status;
    double read_seconds;   /* model_bytes / read bandwidth */
    double times_too_big;  /* model_bytes / memory_bytes (> 1 when it does not fit) */
} mc_verdict_t;

/* [in] model_bytes (>= 0)  [in] device  [out] out */
mc_status_t mc_verdict(int64_t model_bytes, const mc_device_t *device, mc_verdict_t *out);

/* ---- 5. Latency: fetch + compute + setup ------------------------------------- */

typedef enum { MC_PART_FETCH = 0, MC_PART_COMPUTE = 1, MC_PART_SETUP = 2 } mc_part_t;

typedef struct {
    double fetch_seconds;
    double compute_seconds;
    double setup_seconds;
    double total_seconds;
    mc_part_t dominant;                        /* ties go to the earlier part */
    double saving_seconds_if_compute_doubled;
    double saving_seconds_if_bandwidth_doubled;
    double saving_if_compute_doubled;          /* fraction of total_seconds */
    double saving_if_bandwidth_doubled;        /* fraction of total_seconds */
} mc_latency_t;

/*
 * [in] bytes_moved                 bytes (>= 0)
 * [in] operations                  operations (>= 0)
 * [in] bandwidth_bytes_per_second  (> 0, finite)
 * [in] operations_per_second       (> 0, finite)
 * [in] overhead_seconds            (>= 0, finite)
 * [out] out
 */
mc_status_t mc_latency(int64_t bytes_moved, int64_t operations,
                       double bandwidth_bytes_per_second, double operations_per_second,
                       double overhead_seconds, mc_latency_t *out);

/* The same from parts already in seconds (each >= 0, finite): the check's compute time
 * is a sum over operator classes, its fetch time a sum over memory regions.
 * [out] out */
mc_status_t mc_latency_of_parts(double fetch_seconds, double compute_seconds, double setup_seconds,
                                mc_latency_t *out);

/* ---- 6. Batching and the roofline -------------------------------------------- */

typedef enum { MC_BOUND_MEMORY = 0, MC_BOUND_COMPUTE = 1 } mc_bound_t;

typedef struct {
    double intensity;         /* ops per byte fetched at this batch */
    mc_bound_t bound;         /* memory while intensity < machine balance */
    int64_t crossover_batch;  /* smallest batch >= 1 that is compute-bound; -1 if none */
    double ceiling;           /* ops_per_example / activation_bytes_per_example; +inf if 0 */
} mc_roofline_t;

/*
 * [in] weight_bytes                  fetched once per batch (>= 0)
 * [in] activation_bytes_per_example  (>= 0)
 * [in] operations_per_example        (>= 0)
 * [in] machine_ops_per_byte          machine balance (> 0, finite)
 * [in] batch                         (>= 1)
 * [out] out
 */
mc_status_t mc_roofline(int64_t weight_bytes, int64_t activation_bytes_per_example,
                        int64_t operations_per_example, double machine_ops_per_byte,
                        int64_t batch, mc_roofline_t *out);

/* ---- 7. Activation-arena planning from lifetimes ------------------------------ */

/*
 * Work is counted in steps, not time, so every machine gives the same answer.  A step is
 * one buffer placed, or one placed buffer it is checked against: a greedy pass over n
 * buffers costs n + P steps, P the number of pairs of buffers with a size that are live
 * at the same time (about n for a chain of operators, n * w for a graph w tensors wide).
 * The exact search (csrc/src/plan_exact.c) charges one step per section (distinct first
 * use) or buffer it looks at.
 * (Buffers next to each other in first-use order that end together and that every
 * other buffer meets all or none of, e.g. tensors no operator touches or graph outputs,
 * cost the planner about one step each whatever their number: the limit below does not
 * count their pairs.)
 *
 * Limits, checked before any work (MC_E_LIMIT past them, so no call runs for minutes):
 *   MC_PLAN_MAX_BUFFERS  buffers in one call (mc_plan_scratch_bytes refuses more);
 *   MC_PLAN_MAX_PAIRS    P, less those pairs: what the TFLM plan costs;
 *   MC_PLAN_MAX_STEPS    the largest budget_steps.
 * Measured on a 2020s x86-64 server core (docs/planner.md): a step of the exact search
 * about 1 ns, a step of a greedy pass 100-200 ns (it sorts the live neighbours), so
 * the TFLM plan at the limits is under a minute there; a 240 MHz ESP32 is estimated
 * 30-60x slower per step.
 */
#define MC_PLAN_MAX_BUFFERS 1000000
#define MC_PLAN_MAX_PAIRS 200000000
#define MC_PLAN_MAX_STEPS 1000000000
/* budget_steps that bindings use when the caller gives none: three greedy passes while
 * each costs at most a third of it, then the exact search (about 1-5 ms here, an
 * estimated 0.05-0.3 s on an ESP32; docs/planner.md).  The exact search runs on any
 * number of buffers whose sizes, stacked, are at most 2^30 units of the alignment (16 GiB
 * at TFLM's 16 bytes: it counts in 32 bits on a board). */
#define MC_PLAN_DEFAULT_STEPS 1000000

typedef enum {
    MC_PLAN_TFLM = 0, /* TensorFlow Lite Micro's GreedyMemoryPlanner, reproduced */
    MC_PLAN_BEST = 1  /* memcore's own: greedy by size and by breadth, then an exact
                         search, within a budget; never worse than TFLM */
} mc_strategy_t;

typedef struct {
    int64_t arena_bytes;       /* highest offset + aligned size over all buffers */
    int64_t lower_bound_bytes; /* most aligned bytes simultaneously live */
    int64_t steps;             /* work done, TFLM plan included (n + P for MC_PLAN_TFLM) */
    bool proven_optimal;       /* no placement needs fewer bytes: the arena is the lower
                                  bound, or the exact search finished */
} mc_plan_t;

/* Scratch the planner needs for n_buffers, in bytes: 64 per buffer plus 384 (its state;
 * the exact search reuses the greedy passes' arrays); give it 8-byte aligned.
 * [in] n_buffers (0 .. MC_PLAN_MAX_BUFFERS)  [out] scratch_bytes */
mc_status_t mc_plan_scratch_bytes(int64_t n_buffers, int64_t *scratch_bytes);

/*
 * Places n buffers so that buffers alive at the same time never overlap.
 * Buffer i is live from first_use[i] to last_use[i] inclusive (operator indices).
 * Its size is rounded up to `alignment`; zero-sized buffers get offset 0 and take
 * no space.
 * [in] strategy
 * [in] sizes          bytes (>= 0), n entries
 * [in] first_use      n entries (>= 0)
 * [in] last_use       n entries (>= first_use)
 * [in] n_buffers      (0 .. MC_PLAN_MAX_BUFFERS)
 * [in] alignment      bytes (>= 1); TFLM uses 16
 * [in] budget_steps   (0 .. MC_PLAN_MAX_STEPS) work MC_PLAN_BEST may spend beyond the
 *                     TFLM plan; MC_PLAN_DEFAULT_STEPS when in doubt; ignored by TFLM
 * [in] scratch        8-byte aligned, at least mc_plan_scratch_bytes(n_buffers)
 * [in] scratch_bytes
 * [out] offsets       n entries, bytes from the arena start; NULL: the arena only (the
 *                     check, which keeps no offsets)
 * [out] out           arena, lower bound, steps, proven_optimal
 * MC_E_LIMIT when P > MC_PLAN_MAX_PAIRS or budget_steps > MC_PLAN_MAX_STEPS.
 */
mc_status_t mc_plan(mc_strategy_t strategy, const int64_t *sizes, const int32_t *first_use,
                    const int32_t *last_use, int64_t n_buffers, int64_t alignment,
                    int64_t budget_steps, void *scratch, int64_t scratch_bytes, int64_t *offsets,
                    mc_plan_t *out);

/*
 * MC_PLAN_TFLM with some buffers at offsets fixed in advance, as TFLM's
 * GreedyMemoryPlanner places a model's offline plan (OfflineMemoryAllocation): the
 * fixed buffers first, at their offsets, then the others largest first, each at the
 * lowest offset free of every buffer live with it, the fixed ones included.  TFLM does
 * not check a fixed plan; this does: two fixed buffers live at the same time that overlap
 * are MC_E_RANGE with their indices in clash[0] and clash[1] (both -1 on success).  A
 * fixed buffer of no size takes no place (TFLM would count its offset in the arena:
 * TFLM plans no empty tensor but an empty variable, which no converter writes).
 * [in] fixed_offsets  n entries: bytes from the arena start (>= 0), or -1 where the
 *                     planner places the buffer; an offset plus its buffer's aligned
 *                     size must fit in 64 bits (MC_E_RANGE); NULL: none fixed, which
 *                     is mc_plan(MC_PLAN_TFLM)
 * [out] clash         two entries, or NULL
 * Other arguments as mc_plan's (the same scratch).
 */
mc_status_t mc_plan_fixed(const int64_t *sizes, const int32_t *first_use, const int32_t *last_use,
                          const int64_t *fixed_offsets, int64_t n_buffers, int64_t alignment,
                          void *scratch, int64_t scratch_bytes, int64_t *offsets, mc_plan_t *out,
                          int64_t *clash);

/* ---- 7b. Bytes live at each step and the peak ---------------------------------- */

typedef struct {
    int64_t peak_step;     /* the first step with the most live bytes; -1 when n_steps is 0 */
    int64_t peak_bytes;    /* aligned bytes live then: mc_plan's lower_bound_bytes */
    int64_t peak_buffers;  /* buffers of non-zero size live then */
} mc_live_t;

/*
 * How many aligned bytes, and how many buffers, are live at each step: the "bytes live
 * while it runs" column of a per-operator table, and the step where the arena peaks.
 * Lifetimes are those mc_plan takes (steps 0 .. n_steps - 1; with mc_tflm_buffers'
 * shifted scopes, operator k is step k + 2).  Zero-sized buffers count nowhere.
 * Needs no scratch: the outputs hold the running sums.
 * [in] sizes          bytes (>= 0), n_buffers entries
 * [in] first_use      n_buffers entries (>= 0)
 * [in] last_use       n_buffers entries (>= first_use, < n_steps)
 * [in] n_buffers      (>= 0)
 * [in] alignment      bytes (>= 1); TFLM uses 16
 * [in] n_steps        steps to report (>= 0)
 * [out] live_bytes    n_steps entries: aligned bytes live at each step
 * [out] live_buffers  n_steps entries: buffers live at each step
 * [out] out           the peak
 */
mc_status_t mc_live_bytes(const int64_t *sizes, const int32_t *first_use, const int32_t *last_use,
                          int64_t n_buffers, int64_t alignment, int64_t n_steps,
                          int64_t *live_bytes, int64_t *live_buffers, mc_live_t *out);

/* ---- 8. The neutral graph: what every importer produces ---------------------- */

/*
 * One flat graph, in TFLite's terms whatever the file format: tensors with their
 * shapes, types and quantization; operators in execution order with TFLite builtin
 * operator codes and builtin options.  The TFLite reader (section 10) fills it from a
 * .tflite file; the host's ONNX importer fills it from an ONNX model.  Everything
 * after that (validation, lifetimes, TFLM's arena, the check) reads only this.
 */

#define MC_MAX_DIMS 8     /* tensors of higher rank are refused (TFLM kernels stop at 6) */
#define MC_OP_OPTIONS 8   /* builtin-option scalars kept per operator */

/* Element types: TFLite's TensorType codes (schema.fbs). */
typedef enum {
    MC_DTYPE_FLOAT32 = 0,
    MC_DTYPE_FLOAT16 = 1,
    MC_DTYPE_INT32 = 2,
    MC_DTYPE_UINT8 = 3,
    MC_DTYPE_INT64 = 4,
    MC_DTYPE_STRING = 5,
    MC_DTYPE_BOOL = 6,
    MC_DTYPE_INT16 = 7,
    MC_DTYPE_COMPLEX64 = 8,
    MC_DTYPE_INT8 = 9,
    MC_DTYPE_FLOAT64 = 10,
    MC_DTYPE_COMPLEX128 = 11,
    MC_DTYPE_UINT64 = 12,
    MC_DTYPE_RESOURCE = 13,
    MC_DTYPE_VARIANT = 14,
    MC_DTYPE_UINT32 = 15,
    MC_DTYPE_UINT16 = 16,
    MC_DTYPE_INT4 = 17,
    MC_DTYPE_BFLOAT16 = 18,
    MC_DTYPE_COUNT = 19
} mc_dtype_t;

/* mc_tensor_t.flags */
#define MC_TENSOR_CONSTANT 1u    /* has data in the model file: flash, not the arena */
#define MC_TENSOR_VARIABLE 2u    /* state kept between invocations (TFLM allocates it apart) */
#define MC_TENSOR_ZERO_POINT 4u  /* its quantization carries zero points */

/* A tensor and an operator are small (24 and 40 bytes on a 64-bit host, at most 20 and
 * 36 on a 32-bit board) because a board's check holds every one of them: their shapes and
 * options sit in arrays beside them, each read only within its count, the fields only
 * shown to a user are 16-bit, a file's larger value saturated, and a tensor's byte size
 * is computed from its shape and type when needed (mc_tensor_bytes) rather than kept.
 * The reader stores a shape whose dimensions all lie in 0..255 a byte each, in 0..65,535
 * two bytes each (dim_bytes): TFLM reads shapes in place in the model, so a rank-6
 * tensor costs its arena no more than a scalar, and the check must not either. */
typedef struct {
    const void *dims;            /* static shape: `rank` entries of dim_bytes each, read
                                    with mc_tensor_dim (none past them) */
    int32_t name_offset;         /* where its name's bytes start in the model file; -1: none
                                    (a flatbuffer's offsets are 32-bit: under 2 GB) */
    int32_t quant_channels;      /* scales in its quantization parameters; 0: not quantized */
    uint16_t name_bytes;         /* length of the name (not NUL-terminated in the file), at
                                    most 65,535: a longer name is cut there */
    int16_t quant_dimension;     /* the axis per-channel scales run along (a file's
                                    quantized_dimension, saturated to 16 bits) */
    uint8_t rank;                /* 0..MC_MAX_DIMS */
    uint8_t dtype;               /* mc_dtype_t (TFLite's TensorType is a byte) */
    uint8_t flags;               /* MC_TENSOR_* */
    uint8_t dim_bytes;           /* 1: dims are uint8_t, 2: uint16_t, anything else (0, as
                                    a caller filling the struct leaves it): int32_t */
} mc_tensor_t;

/* Dimension i (0 <= i < rank) of a tensor's shape, whatever its width. */
int32_t mc_tensor_dim(const mc_tensor_t *tensor, int32_t i);

typedef struct {
    /* The operator's builtin options, MC_OP_OPTIONS of them: scalar field i of its
     * options table in schema order (field i has vtable slot 4 + 2i), with the schema's
     * default where the file omits it; enums and bools as integers, floats as their
     * IEEE-754 bits, vector fields 0.  E.g. CONV_2D: padding, stride_w, stride_h,
     * activation, dilation_w, dilation_h, quantized_bias_type.  VAR_HANDLE (whose fields
     * are strings): [0] the graph index of the first VAR_HANDLE with its shared name
     * (its resource variable), [1] where the name starts in the file (-1: none), [2] its
     * length.  CUSTOM: [1] and [2] are its custom code's name, the same way.  Operators
     * without options share one array of zeros. */
    const int32_t *options;
    int32_t kind;                /* TFLite BuiltinOperator code (CONV_2D = 3, ...) */
    /* its inputs are graph->op_tensors[first_input ..); int32: the lists hold at most
     * MC_MAX_OP_TENSORS entries (mc_graph_structure) */
    int32_t first_input;
    int32_t first_output;
    int32_t first_intermediate;
    int32_t n_inputs;            /* an absent optional input is -1 */
    int32_t n_outputs;
    int32_t n_intermediates;
    int16_t version;             /* the operator code's version (>= 1; a file's, saturated
                                    to 16 bits) */
    uint16_t options_type;       /* TFLite BuiltinOptions code of `options` (a byte in the
                                    file); 0: none */
} mc_op_t;

/* One subgraph of a model with several (control flow: IF, WHILE, CALL_ONCE).  The
 * graph's tensors and operators are every subgraph's in file order, subgraph s holding
 * tensors [first_tensor, first_tensor + n_tensors) and operators [first_op, first_op +
 * n_ops); every tensor index (operators' lists, inputs, outputs) is the graph's, not
 * the subgraph's. */
typedef struct {
    const int32_t *io;           /* its n_inputs input tensors, then its n_outputs outputs */
    int32_t first_tensor;        /* counts within MC_MAX_TENSORS and MC_MAX_OPS */
    int32_t n_tensors;
    int32_t first_op;
    int32_t n_ops;
    int32_t n_inputs;
    int32_t n_outputs;
    int32_t reserved;            /* 0: the size is a multiple of 8 on every ABI */
} mc_subgraph_t;

/* mc_graph_t.flags */
#define MC_GRAPH_OFFLINE_PLAN 1u  /* the file carries an offline memory plan (TFLite's
                                     "OfflineMemoryAllocation" metadata) */
#define MC_GRAPH_MAPPABLE 2u      /* the file has one subgraph and each operand list and
                                     shape of it starts 4-byte aligned: in memory at an
                                     aligned address (a flash mapping, as TFLM needs a model),
                                     mc_tflite_read reads them in place */
#define MC_GRAPH_IN_FILE 4u       /* so read: op_tensors and every tensor's dims point into
                                     the source's data, as TFLM reads them, and the graph
                                     holds no copy (set by mc_tflite_read only, which
                                     found each list within the file) */

typedef struct {
    const mc_tensor_t *tensors;
    const mc_op_t *ops;          /* execution order */
    const int32_t *op_tensors;   /* every operator's inputs, outputs and intermediates */
    const int32_t *inputs;       /* graph input tensor indices */
    const int32_t *outputs;      /* graph output tensor indices */
    int64_t n_tensors;
    int64_t n_ops;
    int64_t n_op_tensors;
    int64_t n_inputs;
    int64_t n_outputs;
    int64_t n_subgraphs;         /* subgraphs in the file (1 when subgraphs is NULL) */
    uint32_t flags;              /* MC_GRAPH_* */
    /* The file's offline memory plan (MC_GRAPH_OFFLINE_PLAN): n_tensors offsets in
     * bytes from the arena's start, -1 where TFLM plans the tensor itself; NULL when
     * the model has none.  TFLM places a tensor it allocates at its offset, and a
     * variable tensor with an offset in the head instead of the tail. */
    const int32_t *offline_offsets;
    /* n_subgraphs entries when the model has several; NULL: one subgraph, the whole
     * graph.  inputs and outputs above are the first subgraph's (the interpreter's). */
    const mc_subgraph_t *subgraphs;
} mc_graph_t;

/* What is wrong with a model or a graph, precisely enough for a binding to say it in
 * one line ("model.tflite: operator 3 (ADD) reads tensor 7 'x' before any operator
 * writes it").  Functions that read or validate a model fill one when they fail. */
typedef enum {
    MC_PROBLEM_NONE = 0,
    /* The file (MC_E_MODEL); `at` is the offending byte offset where there is one. */
    MC_PROBLEM_NOT_TFLITE,        /* no "TFL3" identifier, or too short to hold one */
    MC_PROBLEM_SCHEMA_VERSION,    /* the model's schema version is not 3 (value) */
    MC_PROBLEM_PAST_END,          /* an offset or a length points past the end of the file */
    MC_PROBLEM_BAD_TABLE,         /* a flatbuffer table or vtable is malformed */
    MC_PROBLEM_NO_SUBGRAPH,       /* the model has no subgraph */
    MC_PROBLEM_BAD_OPCODE,        /* an operator's opcode index is out of range (op, value) */
    MC_PROBLEM_BAD_BUFFER,        /* a tensor's buffer index is out of range (tensor, value) */
    MC_PROBLEM_BUFFER_PAST_END,   /* a buffer's data lies past the end of the file (tensor) */
    /* The graph (MC_E_GRAPH). */
    MC_PROBLEM_BAD_TENSOR_INDEX,  /* an operator (op) or the graph's inputs/outputs (op -1)
                                     name tensor `value`, which does not exist */
    MC_PROBLEM_BAD_RANK,          /* a tensor's rank is negative or above MC_MAX_DIMS (value) */
    MC_PROBLEM_DYNAMIC_SHAPE,     /* a tensor's shape has a negative (unknown) dimension */
    MC_PROBLEM_BAD_DTYPE,         /* a tensor's type has no fixed element size TFLM can
                                     allocate (value: the type code) */
    MC_PROBLEM_SIZE_OVERFLOW,     /* a tensor's byte size does not fit in 64 bits */
    MC_PROBLEM_BAD_BYTES,         /* no longer given: a tensor's bytes are computed, never
                                     kept (API version 4); the number stays taken */
    MC_PROBLEM_NO_OUTPUTS,        /* an operator has no outputs */
    MC_PROBLEM_WRITTEN_TWICE,     /* a tensor is written by operator `op` and by `other` */
    MC_PROBLEM_WRITES_CONSTANT,   /* an operator writes a constant tensor */
    MC_PROBLEM_WRITES_INPUT,      /* an operator writes a graph input */
    MC_PROBLEM_CYCLE,             /* an operator reads a tensor that it (other == op) or a
                                     later operator (other) writes: a cycle */
    MC_PROBLEM_READ_UNWRITTEN,    /* an operator reads a tensor that no operator writes and
                                     that is neither a graph input, a constant nor a variable */
    MC_PROBLEM_OUTPUT_UNWRITTEN,  /* a graph output that no operator writes */
    MC_PROBLEM_BAD_OPERATOR,      /* an operator's tensor list lies outside op_tensors */
    /* Valid, but not modelled (MC_E_UNSUPPORTED). */
    MC_PROBLEM_SUBGRAPHS,         /* a control-flow operator calls a subgraph the model does not
                                     have, or nests deeper than MC_MAX_NESTING (op; value: the
                                     subgraph) */
    /* An offline memory plan (OfflineMemoryAllocation metadata: version 1, subgraph 0,
     * one offset per tensor of every subgraph) that TFLM cannot use, or that would
     * corrupt activations (MC_E_MODEL): */
    MC_PROBLEM_OFFLINE_PLAN,      /* a plan TFLM cannot read: `at` is the header word that is
                                     wrong (0 the version, 1 the subgraph, 2 the offset count,
                                     with the model's tensor count in `other`) and `value` its
                                     value; at -1: the plan's buffer (`value`) is missing or
                                     shorter than its header and offsets */
    MC_PROBLEM_EXTERNAL_DATA,     /* tensor data outside the flatbuffer (tensor) */
    MC_PROBLEM_SPARSE,            /* a sparse tensor, which TFLM does not run (tensor) */
    MC_PROBLEM_TOO_LARGE,         /* more tensors or operators than the documented limits
                                     (MC_E_LIMIT; value: the count) */
    MC_PROBLEM_UNKNOWN_OP,        /* an operator TFLM does not run (op; value: its code) */
    MC_PROBLEM_KERNEL_REFUSES,    /* TFLM's kernel refuses the operator in Prepare (op; value:
                                     the mc_tflm_prepare_check index, or -1 for a RESHAPE
                                     whose input and output hold different numbers of elements,
                                     a per-channel int16 FULLY_CONNECTED with CMSIS-NN) (op) */
    MC_PROBLEM_MISSING_INPUT,     /* the operator lacks an input its TFLM kernel reads in
                                     Prepare (op) */
    MC_PROBLEM_PLAN_OFFSET,       /* a tensor's offset (value) is below -1, not a multiple of
                                     16, or ends past 2^31 - 1 bytes, the most TFLM's planner
                                     addresses (tensor) */
    MC_PROBLEM_PLAN_OVERLAP,      /* two tensors live at the same time overlap in the arena:
                                     `tensor` and `value` (the other tensor), both live while
                                     operator `op` runs (-1: before the first) */
    MC_PROBLEM_ARENA_TOO_LARGE,   /* TFLM's arena would pass 2^50 bytes: its largest buffer,
                                     a tensor (tensor) or a kernel's scratch (op); value: its
                                     bytes (MC_E_OVERFLOW) */
    MC_PROBLEM_RESOURCE_VARIABLES,/* a VAR_HANDLE names one resource variable more than the
                                     interpreter has: its Prepare fails (op; value: the
                                     variables the interpreter has, other: the model's) */
    MC_PROBLEM_INTERMEDIATE_SIZE, /* an operator lists an intermediate tensor (tensor) of
                                     `value` bytes; TFLM's allocator runs only intermediates
                                     of 0 bytes (op) */
    MC_PROBLEM_COUNT
} mc_problem_kind_t;

typedef struct {
    int32_t kind;    /* mc_problem_kind_t */
    int64_t op;      /* the operator concerned, or -1 */
    int64_t tensor;  /* the tensor concerned, or -1 */
    int64_t other;   /* a second operator, or -1 */
    int64_t value;   /* the offending value (an index, a count, a type code), or -1 */
    int64_t at;      /* the byte offset in the file, or -1 */
} mc_problem_t;

/* A short text for a problem kind ("reads a tensor before any operator writes it");
 * never NULL.  Bindings put the operator, tensor and names around it. */
const char *mc_problem_text(int32_t kind);

/* TFLite's name of a builtin operator code ("CONV_2D" for 3), or NULL for a code this
 * memcore does not know (newer schemas, StableHLO operators). */
const char *mc_op_name(int32_t kind);

/* The size in bytes of one element of `dtype` as TFLM allocates it (int4 is one byte),
 * or 0 for a type TFLM cannot allocate (string, variant) or an unknown code. */
int64_t mc_dtype_bytes(int32_t dtype);

/* A tensor's byte size from its shape and type (rank within 0..MC_MAX_DIMS), as TFLM
 * computes it: element count (a scalar has one) x mc_dtype_bytes.  MC_PROBLEM_NONE with
 * *bytes, or the problem that prevents one with the value mc_graph_validate reports in
 * *bytes: MC_PROBLEM_DYNAMIC_SHAPE (the first negative dimension), MC_PROBLEM_BAD_DTYPE
 * (the type code), MC_PROBLEM_SIZE_OVERFLOW (-1). */
int32_t mc_tensor_bytes(const mc_tensor_t *tensor, int64_t *bytes);

/* Limits on what memcore reads and checks, so work stays bounded on a board and a
 * hostile file cannot make it run for minutes: MC_E_LIMIT past them. */
#define MC_MAX_TENSORS 1000000
#define MC_MAX_OPS 1000000
#define MC_MAX_OP_TENSORS 16000000
#define MC_MAX_SUBGRAPHS 10000       /* subgraphs in one file */
#define MC_MAX_NESTING 8             /* control flow inside control flow, levels deep */

/* Scratch mc_graph_validate needs for a graph with n_tensors tensors, in bytes. */
mc_status_t mc_graph_validate_scratch_bytes(int64_t n_tensors, int64_t *scratch_bytes);

/*
 * Checks that `graph` is a dataflow graph TFLM could run, in execution order: every
 * index in range; every shape and type gives a byte size (mc_tensor_bytes); every
 * operator writes at least one tensor, none writes a constant or a graph input, no tensor
 * is written twice; every tensor an operator reads is a constant, a variable, a graph
 * input, or written by an earlier operator (reading a tensor the operator itself or a
 * later one writes is a cycle); every graph output is written.  Returns MC_OK, or
 * MC_E_GRAPH (MC_E_LIMIT past the limits above) with *problem saying where.
 * Multi-subgraph graphs are valid here; the check refuses them.
 * An offline plan's offsets are checked where TFLM's head is planned (mc_tflm_plan).
 * [in] graph  [in] scratch 8-byte aligned  [in] scratch_bytes
 * [out] problem  may be NULL
 */
mc_status_t mc_graph_validate(const mc_graph_t *graph, void *scratch, int64_t scratch_bytes,
                              mc_problem_t *problem);

/* ---- 9. Targets and kernel libraries ------------------------------------------ */

/* TFLM's persistent structures depend on the target's ABI (pointer size, alignment of
 * 8-byte members, enum size), on its TFLM version and build, and on the kernels it
 * links; a target names all of these. */
typedef enum {
    MC_TARGET_HOST64 = 0,    /* 64-bit Linux host (LP64): the PyPI tflite-micro interpreter */
    MC_TARGET_ARMHF = 1,     /* 32-bit Arm Linux (ILP32, AAPCS, 4-byte enums) */
    MC_TARGET_CORTEX_M = 2,  /* Arm Cortex-M bare metal (arm-none-eabi: 1-byte enums) */
    MC_TARGET_RISCV32 = 3,   /* RV32 ILP32 (the ESP32-C3/C6 core family) */
    MC_TARGET_ESP32 = 4,     /* Xtensa ESP32 / ESP32-S3 with esp-tflite-micro */
    MC_TARGET_COUNT = 5
} mc_target_t;

typedef enum {
    MC_KERNELS_REFERENCE = 0,  /* TFLM's portable reference kernels */
    MC_KERNELS_OPTIMISED = 1   /* the target's vendor kernels: CMSIS-NN on Cortex-M,
                                  ESP-NN on ESP32; the reference kernels elsewhere */
} mc_kernels_t;

/* What memcore knows about a target's TFLM build, for reports: which TFLM the tables
 * hold and, for a target that cannot be measured here, what they are derived from.  The
 * target's name is mc_target_name(target); the words that describe it and say how it was
 * measured, or why it is derived, are the host package's (memcore.target_info). */
typedef struct {
    const char *tflm_version;      /* the TFLM source the tables hold (a commit or a wheel) */
    const char *optimised_kernels; /* what MC_KERNELS_OPTIMISED selects ("CMSIS-NN ..."), or "" */
    int32_t pointer_bytes;         /* sizeof(void *) and sizeof(size_t) */
    int32_t enum_bytes;            /* sizeof of a C enum (1 with -fshort-enums) */
    int32_t int64_alignment;       /* alignof(int64_t) and alignof(double) */
    bool compression;              /* TFLM built with USE_TFLM_COMPRESSION */
    bool measured;                 /* tables measured with TFLM built for this target */
    int32_t derived_from;          /* mc_target_t the tables are taken from; -1 if measured */
} mc_target_info_t;

/* [in] target  [out] out */
mc_status_t mc_target_info(mc_target_t target, mc_target_info_t *out);

/* ---- 10. Reading a .tflite file ---------------------------------------------- */

/*
 * The reader turns the bytes of a TFLite flatbuffer into the neutral graph without
 * allocating: the caller gives scratch sized by mc_tflite_size(), and the bytes come
 * through a read callback, so a board reads a model from its filesystem a few hundred
 * bytes at a time instead of holding it in RAM.  Every offset and length is checked
 * against the file's size before it is followed; nothing is trusted.  The graph's
 * arrays live in the scratch; names stay in the file (mc_tensor_t.name_offset).  A
 * file already in memory (`data`: a board's flash mapping, a host's buffer) keeps its
 * operand lists and shapes there too where it can (MC_GRAPH_IN_FILE), as TFLM reads
 * them: the scratch is smaller by them, and `data` must outlive the graph.
 */

/* Copies `bytes` bytes of the file starting at `offset` into `buffer`; returns MC_OK,
 * or any other status (MC_E_READ) when it cannot.  Never asked for bytes past the end. */
typedef mc_status_t (*mc_read_fn)(void *context, int64_t offset, uint8_t *buffer, int32_t bytes);

typedef struct {
    mc_read_fn read;       /* the callback; NULL when `data` holds the whole file */
    void *context;         /* passed to read */
    const uint8_t *data;   /* the file in memory (when read is NULL) */
    int64_t file_bytes;    /* the file's size */
} mc_source_t;

typedef struct {
    int64_t n_tensors;
    int64_t n_ops;
    int64_t n_op_tensors;
    int64_t n_inputs;
    int64_t n_outputs;
    int64_t n_subgraphs;
    int64_t scratch_bytes;  /* what mc_tflite_read needs for this file */
    int64_t n_io;           /* every subgraph's inputs and outputs together */
    int64_t n_values;       /* int32 entries of the tensors' shapes and operators' options */
} mc_tflite_size_t;

/* Counts what the file holds, every subgraph together (n_inputs and n_outputs: the
 * first subgraph's), and the scratch needed to read it.
 * [in] source  [out] out  [out] problem  may be NULL */
mc_status_t mc_tflite_size(const mc_source_t *source, mc_tflite_size_t *out, mc_problem_t *problem);

/*
 * Reads the file's first subgraph into *graph, whose arrays point into `scratch`
 * (8-byte aligned, at least mc_tflite_size()'s scratch_bytes; keep it alive while the
 * graph is used) or, with MC_GRAPH_IN_FILE, into the source's data.  Checks the file's
 * structure, not the graph's dataflow: run mc_graph_validate on the result.
 * [in] source  [in] scratch  [in] scratch_bytes  [out] graph  [out] problem  may be NULL
 */
mc_status_t mc_tflite_read(const mc_source_t *source, void *scratch, int64_t scratch_bytes,
                           mc_graph_t *graph, mc_problem_t *problem);

/* ---- 11. TensorFlow Lite Micro's arena for a graph ---------------------------- */

/*
 * What TFLM does with a graph's memory on a target, from the op table: the buffers
 * its planner places in the head (activation tensors, then the kernels' scratch
 * buffers), and the persistent tail and transient peaks around it.  Three calls, so
 * that the check can place the same buffers with memcore's own planner too:
 *   mc_tflm_buffer_count  how many buffers the head holds;
 *   mc_tflm_buffers       their sizes and lifetimes (TFLM's scopes + 1, so 0 is the
 *                         first valid scope) and who owns each;
 *   mc_tflm_model         given the planned head, the tail, the minimum arena and
 *                         the recommended one.
 */

/* mc_tflm_* flags */
#define MC_TFLM_ALLOW_UNKNOWN 1u  /* cost unknown operators with an upper bound instead of
                                     failing with MC_E_UNSUPPORTED (MC_PROBLEM_UNKNOWN_OP) */
/* The resource variables the firmware builds its interpreter with
 * (MicroResourceVariables::Create(allocator, n)), in flags as MC_TFLM_RESOURCE_VARIABLES(n),
 * n from 0 (none: a MicroInterpreter constructed without them, as in TFLM's C++ default)
 * to MC_TFLM_MAX_RESOURCE_VARIABLES.  Without it: one per distinct VAR_HANDLE shared
 * name, as TFLM's Python interpreter builds it, and none for a model without VAR_HANDLE. */
#define MC_TFLM_RESOURCE_SHIFT 8
#define MC_TFLM_MAX_RESOURCE_VARIABLES 65534
#define MC_TFLM_RESOURCE_VARIABLES(n) (((uint32_t)(n) + 1u) << MC_TFLM_RESOURCE_SHIFT)

/*
 * Unknown operators are kinds TFLM does not register on the target, and kernels whose
 * allocations the op table does not hold (e.g. CMSIS-NN's SVDF); mc_tflm_unknown_ops
 * lists them.  With MC_TFLM_ALLOW_UNKNOWN each is costed as the most demanding of
 * TFLM's kernels could cost it: the largest options struct and OpData of the target,
 * every input and output as a temporary TfLiteTensor twice, a persistent buffer and a
 * scratch buffer of 8 bytes per element of its inputs and outputs plus 8 KB each, and
 * twelve scratch requests (the most TFLM allows per operator).  TFLM's greedy
 * placement is not monotone in buffer sizes, so the head is then bounded by the sum of
 * every aligned buffer (a placement never puts a buffer past the buffers placed before
 * it), and mc_tflm_t.head_bytes says so.  Every result is then an upper bound for any
 * kernel that allocates like TFLM's own; a custom kernel can allocate anything.
 */

/* RecordingMicroAllocator's categories of the tail. */
typedef enum {
    MC_TFLM_EVAL_TENSORS = 0,        /* "TfLiteEvalTensor data" */
    MC_TFLM_NODES = 1,               /* "NodeAndRegistration struct" */
    MC_TFLM_PERSISTENT_BUFFERS = 2,  /* "Persistent buffer data" (kernels' data, io arrays) */
    MC_TFLM_PERSISTENT_TENSORS = 3,  /* "Persistent TfLiteTensor data" */
    MC_TFLM_QUANTIZATION = 4,        /* "Persistent TfLiteTensor quantization data" */
    MC_TFLM_VARIABLES = 5,           /* "TfLiteTensor variable buffer data" */
    MC_TFLM_CATEGORY_COUNT = 6
} mc_tflm_category_t;

typedef struct {
    int64_t used_bytes;       /* padding included */
    int64_t requested_bytes;
    int64_t count;            /* allocations; structs for the eval tensors and nodes */
} mc_tflm_usage_t;

typedef struct {
    int64_t head_bytes;              /* the planned head, as given; with unknown operators the
                                        sum of every aligned buffer when that is larger */
    int64_t tail_bytes;              /* persistent allocations */
    int64_t total_bytes;             /* head + tail: what TFLM reports after AllocateTensors */
    int64_t minimum_arena_bytes;     /* the smallest arena AllocateTensors accepts */
    int64_t recommended_arena_bytes; /* the arena to give TFLM: >= minimum_arena_bytes */
    mc_tflm_usage_t categories[MC_TFLM_CATEGORY_COUNT];
    int64_t unknown_ops;             /* operators costed as upper bounds (MC_TFLM_ALLOW_UNKNOWN) */
    bool upper_bound;                /* true when unknown_ops > 0: not TFLM's exact figure */
} mc_tflm_t;

/* Number of buffers TFLM plans in the head for `graph` with `kernels` on `target`, and
 * the scratch mc_tflm_buffers needs to list them.
 * [out] n_buffers  [out] scratch_bytes  [out] problem may be NULL */
mc_status_t mc_tflm_buffer_count(const mc_graph_t *graph, mc_target_t target, mc_kernels_t kernels,
                                 uint32_t flags, int64_t *n_buffers, int64_t *scratch_bytes,
                                 mc_problem_t *problem);

/*
 * The head's buffers, n_buffers of each array: activation tensors that need
 * allocating, in tensor order, then scratch buffers in the order TFLM requests them.
 * owner[i] is the tensor index, or -1 - k for a scratch buffer of operator k.
 * Lifetimes are TFLM's allocation scopes shifted by one, so that TFLM's "never touched"
 * (-1) is the valid scope 0: 1 is before the first operator, k + 2 while operator k
 * runs, n_ops + 1 the last.
 */
mc_status_t mc_tflm_buffers(const mc_graph_t *graph, mc_target_t target, mc_kernels_t kernels, uint32_t flags,
                            void *scratch, int64_t scratch_bytes, int64_t *sizes, int32_t *first_use,
                            int32_t *last_use, int32_t *owner, int64_t n_buffers, mc_problem_t *problem);

/*
 * TFLM's plan of mc_tflm_buffers' buffers (alignment 16): mc_plan(MC_PLAN_TFLM), or for
 * a graph with an offline plan mc_plan_fixed with the file's offsets, which are first
 * checked (see csrc/src/tflm_offline.c).  MC_E_MODEL for a plan that TFLM would
 * misplace, with *problem naming the tensors (MC_PROBLEM_PLAN_OFFSET, _OVERLAP).
 * [in] sizes, first_use, last_use, owner, n_buffers  as mc_tflm_buffers gave them
 * [in] scratch  mc_plan_scratch_bytes(n_buffers), 8-byte aligned
 * [out] fixed_offsets  n_buffers: each buffer's offset from the file, or -1
 * [out] offsets  n_buffers  [out] out  [out] problem may be NULL
 */
mc_status_t mc_tflm_plan(const mc_graph_t *graph, const int64_t *sizes, const int32_t *first_use,
                         const int32_t *last_use, const int32_t *owner, int64_t n_buffers, void *scratch,
                         int64_t scratch_bytes, int64_t *fixed_offsets, int64_t *offsets, mc_plan_t *out,
                         mc_problem_t *problem);

/* TFLM's tail, minimum and recommended arena around a head planned as head_bytes
 * (mc_tflm_plan of mc_tflm_buffers), by replaying
 * MicroInterpreter::AllocateTensors() on a model of TFLM's arena allocator (see
 * csrc/src/tflm_model.c): the minimum is the smallest arena in which every step fits,
 * the temporaries kernels hold in Prepare and the planner's working memory included;
 * the recommended arena is the minimum rounded up to 16.
 * [in] n_buffers  what mc_tflm_buffer_count gave
 * [in] scratch  8-byte aligned, mc_tflm_buffer_count's scratch_bytes (the work area of
 *               mc_tflm_buffers can be reused)
 * [out] out  [out] problem may be NULL */
mc_status_t mc_tflm_model(const mc_graph_t *graph, mc_target_t target, mc_kernels_t kernels, uint32_t flags,
                          int64_t head_bytes, int64_t n_buffers, void *scratch, int64_t scratch_bytes,
                          mc_tflm_t *out, mc_problem_t *problem);

/* Whether TFLM registers a kernel for builtin operator `kind` (MicroMutableOpResolver). */
bool mc_tflm_supports(int32_t kind);

/* What one operator kind costs TFLM on a target, from the op table (csrc/src/tflm_ops.c). */
typedef struct {
    int32_t code;              /* TFLite BuiltinOperator code */
    const char *name;          /* TFLite's name for it (mc_op_name), or NULL */
    bool registered;           /* TFLM has a kernel for it (MicroMutableOpResolver::Add*) */
    bool modelled;             /* the op table holds that kernel's allocations */
    bool vendor_kernel;        /* with these kernels the target runs a vendor kernel for it */
    int32_t options_bytes;     /* builtin-options struct kept in the tail; 0 when none */
    int32_t options_alignment;
    int32_t opdata_bytes;      /* persistent data its kernel's Init() allocates; 0 when none */
} mc_tflm_op_info_t;

/* [in] code  [in] target  [in] kernels  [out] out.  MC_E_RANGE for a negative code. */
/*
 * The checks TFLM's reference kernels make in Prepare on element types, ranks and
 * input counts (csrc/src/tflm_prepare.c): a graph that fails one is refused with
 * MC_E_UNSUPPORTED, MC_PROBLEM_KERNEL_REFUSES, the operator, the offending tensor (-1
 * for an input count) and the check's index in `value`, which mc_tflm_prepare_check
 * describes: "when the tensor in when_role has one of when_dtypes, the tensor in role
 * must have one of `allowed`" (or a rank in it, or at most `allowed` inputs).
 */
enum { MC_CHECK_ALWAYS = 0, MC_CHECK_INPUT0 = 1, MC_CHECK_INPUT1 = 2, MC_CHECK_INPUT2 = 3,
       MC_CHECK_OUTPUT0 = 4 };                        /* roles: the tensor a check reads */
enum { MC_CHECK_TYPE = 0, MC_CHECK_RANK = 1, MC_CHECK_INPUTS = 2 };  /* what it tests */

typedef struct {
    int32_t code;          /* the operator's builtin code */
    int32_t when_role;     /* MC_CHECK_ALWAYS, or the tensor whose type the condition reads */
    uint32_t when_dtypes;  /* bit MC_DTYPE_x: the condition holds for that type */
    int32_t role;          /* the tensor checked (none for MC_CHECK_INPUTS) */
    int32_t kind;          /* MC_CHECK_TYPE, _RANK or _INPUTS */
    uint32_t allowed;      /* TYPE: bit MC_DTYPE_x accepted; RANK: bit r, rank r accepted;
                              INPUTS: the most inputs accepted */
} mc_tflm_prepare_check_t;

/* [in] index  a problem's value for MC_PROBLEM_KERNEL_REFUSES (>= 0)  [out] out
 * MC_E_RANGE for an index that names no check. */
mc_status_t mc_tflm_prepare_check(int32_t index, mc_tflm_prepare_check_t *out);

mc_status_t mc_tflm_op_info(int32_t code, mc_target_t target, mc_kernels_t kernels,
                            mc_tflm_op_info_t *out);

/* The distinct builtin codes of a graph's operators that TFLM does not run on this
 * target with these kernels, or whose kernel's allocations the op table does not hold,
 * in order of first appearance; *n_unknown is their number (codes beyond `capacity`
 * are counted, not written).
 * [in] graph  [in] target  [in] kernels  [out] codes  [in] capacity  [out] n_unknown */
mc_status_t mc_tflm_unknown_ops(const mc_graph_t *graph, mc_target_t target, mc_kernels_t kernels,
                                int32_t *codes, int64_t capacity, int64_t *n_unknown);


/* Every operator's arithmetic, with the counting conventions of the docs: multiply-
 * accumulates (conv, depthwise, fully connected, batch matmul, transpose conv) and the
 * other operations (one per element visited).  operations = 2 x macs + other_ops.
 * [out] macs  [out] other_ops  graph->n_ops entries each
 * [out] failed_op  the operator whose count failed (MC_E_OVERFLOW), else -1 */
mc_status_t mc_op_counts(const mc_graph_t *graph, int64_t *macs, int64_t *other_ops, int64_t *failed_op);

/* ---- 11b. Operator order: the topological order with the smallest head -------- */

/*
 * TFLM runs operators in the order the file lists them, and that order decides which
 * activations are live together.  mc_reorder looks for the order of a single-subgraph
 * graph whose head (TFLM's buffers of mc_tflm_buffers, placed by memcore's MC_PLAN_BEST
 * as an offline plan makes TFLM place them) is smallest:
 *   1. a search over downsets (the sets of operators already run), level by level, each
 *      downset keeping the least peak of live bytes over the orders that reach it
 *      (SERENITY, Ahn et al., MLSys 2020).  Each level keeps at most `width` downsets,
 *      the lowest peaks first (ties: fewer bytes live, then the order found, which
 *      prefers the file's order), from at most 4 * width distinct children; when no
 *      level was cut, its peak is the least any order reaches (exact);
 *   2. the order it found and the file's order, each planned with MC_PLAN_BEST over
 *      TFLM's buffers for that order: the smaller head wins, the file's on a tie, so a
 *      model already at its best keeps its order.
 * The work depends on the graph and `width` only, so host and board give the same
 * order for the same width.  Lifetimes are TFLM's (graph inputs live from the start,
 * outputs to the end, a kernel's scratch buffer while its operator runs).  Graphs with
 * several subgraphs (control flow) are refused with MC_E_UNSUPPORTED.
 */
#define MC_REORDER_DEFAULT_WIDTH 1024 /* exact on graphs whose levels hold at most 1,024
                                         downsets, e.g. three branches of 30 operators
                                         side by side (at most 721) */
#define MC_REORDER_MAX_WIDTH 65536

typedef struct {
    int64_t file_head_bytes;   /* MC_PLAN_BEST's arena of TFLM's buffers in the file's order */
    int64_t head_bytes;        /* the same in the chosen order: <= file_head_bytes */
    int64_t file_peak_bytes;   /* bytes live at the file order's peak (its lower bound) */
    int64_t peak_bytes;        /* the same for the chosen order */
    int64_t searched_peak_bytes; /* the least peak the search found (exact: of any order) */
    int64_t states;            /* downsets kept over all levels */
    int64_t steps;             /* work: downsets expanded plus operator inputs examined */
    bool exact;                /* no level was cut: searched_peak_bytes is the least peak */
    bool changed;              /* the chosen order is not the file's */
} mc_reorder_t;

/* Scratch mc_reorder needs for `graph` and `width`, in bytes (8-byte aligned).
 * [in] graph, target, kernels, flags  as mc_tflm_buffer_count's
 * [in] width  downsets kept per level (1 .. MC_REORDER_MAX_WIDTH)
 * [out] scratch_bytes  [out] problem may be NULL */
mc_status_t mc_reorder_scratch_bytes(const mc_graph_t *graph, mc_target_t target, mc_kernels_t kernels,
                                     uint32_t flags, int64_t width, int64_t *scratch_bytes,
                                     mc_problem_t *problem);

/*
 * The order to run graph's operators in: order[k] is the file index of the operator to
 * run k-th (the file's order when no order found has a smaller head).
 * [in] graph, target, kernels, flags  as mc_tflm_buffer_count's
 * [in] width         downsets kept per level (1 .. MC_REORDER_MAX_WIDTH)
 * [in] budget_steps  MC_PLAN_BEST's budget for each order planned (mc_plan's)
 * [in] scratch       8-byte aligned, mc_reorder_scratch_bytes
 * [out] order        graph->n_ops entries
 * [out] out  [out] problem may be NULL
 */
mc_status_t mc_reorder(const mc_graph_t *graph, mc_target_t target, mc_kernels_t kernels, uint32_t flags,
                       int64_t width, int64_t budget_steps, void *scratch, int64_t scratch_bytes,
                       int32_t *order, mc_reorder_t *out, mc_problem_t *problem);

/* ---- 12. The check: will this model fit this board, and be quick enough? ------- */

/*
 * Everything `memcore check` reports, computed here once, for the host and the board
 * alike: from a graph (or a .tflite file through the reader), a board's memory and
 * speed figures and a configuration, the arena plans, TFLM's overhead, memory per
 * region, latency, energy, and the verdict with the resource that runs out first.
 */

typedef enum {
    MC_REGION_RAM = 0,    /* internal SRAM */
    MC_REGION_PSRAM = 1,  /* external RAM */
    MC_REGION_FLASH = 2,  /* memory-mapped flash: read-only, holds the model file */
    MC_REGION_COUNT = 3
} mc_region_t;

/* Operator classes with rates of their own. */
typedef enum {
    MC_OPCLASS_CONV = 0,       /* CONV_2D, TRANSPOSE_CONV */
    MC_OPCLASS_DEPTHWISE = 1,  /* DEPTHWISE_CONV_2D */
    MC_OPCLASS_MATMUL = 2,     /* FULLY_CONNECTED, BATCH_MATMUL */
    MC_OPCLASS_OTHER = 3,      /* everything else: element-wise, pooling, data movement */
    MC_OPCLASS_COUNT = 4
} mc_opclass_t;

typedef enum { MC_NUMERIC_INT8 = 0, MC_NUMERIC_FLOAT32 = 1, MC_NUMERIC_COUNT = 2 } mc_numeric_t;

typedef struct {
    int64_t bytes;                  /* what a model may use in the region; 0: no such region */
    double read_bytes_per_second;   /* 0: not known (the check is then untimed) */
} mc_region_spec_t;

/* A board, as numbers (a device profile's; see docs/device-profiles.md for sources). */
typedef struct {
    mc_target_t target;                    /* its ABI and TFLM build */
    mc_region_spec_t regions[MC_REGION_COUNT];
    int64_t ram_bytes_at_boot;             /* RAM free before the runtime grows its heap (<= RAM) */
    /* The flash partition the model file lives in (a filesystem, or the partition the
     * firmware reads it from): the flash budget.  0: the whole flash region. */
    int64_t model_partition_bytes;
    /* Achieved operations per second, per operator class, numeric type and kernel
     * library; 0 where unknown (the class then uses MC_OPCLASS_OTHER's rate; when that is
     * 0 too, the check is untimed). */
    double ops_per_second[MC_OPCLASS_COUNT][MC_NUMERIC_COUNT][2];
    /* Bit r set: traffic to region r is already inside the measured rates (they were
     * fitted on benchmarks run that way), so it is not charged again as fetch time. */
    uint32_t rates_include_region;
    double overhead_seconds;               /* fixed per request */
    double active_watts;                   /* while inferring; 0: unknown (no energy figures) */
    double sleep_watts;                    /* between inferences */
    /* The radio, to compare computing on the board with sending the input away:
     * transmit power and the rate it sends at (0: no radio). */
    double radio_tx_watts;
    double radio_bytes_per_second;
} mc_board_t;

/* mc_check_config_t.flags */
#define MC_CHECK_ALLOW_UNKNOWN_OPS 1u  /* upper-bound numbers for operators TFLM does not know */
#define MC_CHECK_MEMCORE_PLAN 2u       /* the arena as memcore plans it (given to TFLM as an offline
                                          plan) instead of TFLM's own placement */

typedef struct {
    mc_kernels_t kernels;
    int32_t arena_region;            /* MC_REGION_RAM or MC_REGION_PSRAM */
    int32_t weights_region;          /* MC_REGION_FLASH (read in place), RAM or PSRAM (loaded) */
    int64_t batch;                   /* >= 1: the arena scales with it, TFLM's overhead does not */
    int64_t model_file_bytes;        /* the model file's bytes, kept in flash and, with the weights
                                        loaded, in their region whole (0: not known; the weights
                                        stand for it) */
    int64_t available_bytes;         /* >= 0: pins the arena region's available bytes (what a
                                        board measured); -1: the board's figure */
    double latency_budget_seconds;   /* > 0: a budget per request; 0: none */
    double inferences_per_hour;      /* duty cycle for energy and battery; 0: back to back */
    double battery_joules;           /* > 0: a battery of this capacity ... */
    double battery_life_seconds;     /* ... that must last this long (needs a battery and the
                                        board's power figures) */
    int64_t plan_steps;              /* work budget of memcore's planner; 0: its default */
    uint32_t flags;                  /* MC_CHECK_* */
} mc_check_config_t;

typedef enum {
    MC_RESOURCE_RAM = 0,
    MC_RESOURCE_PSRAM = 1,
    MC_RESOURCE_FLASH = 2,
    MC_RESOURCE_LATENCY = 3,   /* seconds per request against the budget (and the duty cycle) */
    MC_RESOURCE_BATTERY = 4,   /* joules over the battery's required life against its capacity */
    MC_RESOURCE_COUNT = 5
} mc_resource_t;

typedef struct {
    bool checked;        /* used or budgeted in this configuration */
    bool fits;           /* need <= limit (true when not checked) */
    double need;         /* bytes, seconds or joules */
    double limit;
    double margin;       /* limit - need */
    double usage;        /* need / limit: which runs out first */
    int64_t need_bytes;  /* memory resources, exactly */
    int64_t limit_bytes;
    int64_t margin_bytes;
} mc_resource_check_t;

/* Verdicts, numbered as the command line's exit statuses. */
typedef enum {
    MC_CHECK_FITS = 0,            /* every resource within its limit */
    MC_CHECK_DOES_NOT_FIT = 1,    /* RAM, PSRAM or flash is short */
    MC_CHECK_MISSES_BUDGET = 3    /* fits, but misses the latency or battery budget */
} mc_check_verdict_t;

typedef struct {
    /* the model */
    int64_t tensors;
    int64_t ops;
    int64_t parameters;               /* values in constant tensors */
    int64_t weights_bytes;            /* bytes of constant tensors */
    int64_t activation_bytes;         /* every activation tensor, no reuse */
    int64_t input_bytes;              /* graph inputs, per request */
    int64_t macs;                     /* per request (batch included) */
    int64_t operations;               /* 2 x macs + other operations, per request */
    int32_t numeric;                  /* mc_numeric_t: float32 when any weight is float32 */
    int32_t kernels;                  /* mc_kernels_t the rates assume (reference for float32) */
    /* the arena, per example */
    int64_t arena_tflm_bytes;         /* TFLM's planner over its buffers: its head */
    int64_t arena_best_bytes;         /* memcore's planner over the same buffers */
    int64_t arena_lower_bound_bytes;  /* most bytes live at once: no plan needs less */
    bool best_is_optimal;             /* memcore's plan is proven optimal */
    int64_t scratch_buffer_bytes;     /* kernels' scratch buffers among the head's buffers */
    int64_t buffers;                  /* buffers in the head */
    int64_t check_scratch_bytes;      /* what this check itself needs of a board's memory when
                                         it reads the model file itself: mc_check_file's
                                         scratch (mc_check_file_scratch_bytes), the graph
                                         included.  sizeof-based: a 64-bit host's figure is
                                         a 32-bit board's need or a little more (the core's
                                         own state holds pointers) */
    mc_tflm_t tflm;                   /* TFLM's tail, minimum and recommended arena */
    /* memory, in the arena's region */
    int64_t runtime_overhead_bytes;   /* TFLM's persistent tail (tflm.tail_bytes) */
    int64_t runtime_bytes;            /* what TFLM needs beyond its planned head, once per
                                         interpreter: its tail, or its planning peak's excess */
    int64_t recommended_arena_bytes;  /* the arena to give TFLM at this batch: batch x head +
                                         runtime_bytes */
    int64_t loaded_model_bytes;       /* what loading the weights puts in their region: the whole
                                         model file, for TFLM reads the model's tables, shapes and
                                         operand lists in place beside the weights (the weights
                                         when the file is not known; 0 when read in place from
                                         flash) */
    int64_t required_bytes;           /* arena + the loaded model when in the same region */
    int64_t available_bytes;
    int64_t headroom_bytes;           /* available - required */
    bool needs_heap_growth;           /* fits only once the heap grows past its size at boot */
    /* time */
    bool timed;                       /* the board gave every speed the model needs; when not,
                                         the times below are 0 and no time budget can be checked */
    mc_latency_t latency;             /* fetch + compute + setup, per request */
    mc_roofline_t roofline;           /* at the effective rate against the arena's bandwidth */
    double ops_per_second;            /* effective: operations / compute time, the model's mix */
    double arena_bytes_per_second;    /* the arena region's read speed */
    double compute_seconds_by_class[MC_OPCLASS_COUNT];
    int64_t operations_by_class[MC_OPCLASS_COUNT];
    double max_inferences_per_hour;   /* the most per hour the budgets allow: back to back, and
                                         within the battery budget when there is one */
    bool latency_limit_is_period;     /* the latency's limit is the duty cycle's period
                                         (3600 s / inferences per hour), tighter than the
                                         budget per request */
    /* energy (0 when the board's power is unknown) */
    double energy_joules;             /* per request: active power x latency */
    double radio_joules;              /* sending the inputs over the radio instead: their bytes x
                                         the radio's joules per byte (transmit power / rate) */
    double radio_seconds;             /* the time that sending takes */
    double duty_cycle;                /* fraction of the time spent inferring (1: back to back) */
    double average_watts;             /* over the duty cycle */
    double battery_life_seconds;      /* capacity / average power; 0 without a battery */
    bool cheaper_to_send;             /* sending the input costs less energy than inferring */
    /* the verdict */
    int32_t verdict;                  /* mc_check_verdict_t */
    int32_t limiting;                 /* mc_resource_t that runs out first (the tightest when
                                         everything fits) */
    mc_resource_check_t resources[MC_RESOURCE_COUNT];
} mc_check_t;

/* One row per operator of the per-layer table; the rows' fetch and compute add up to the
 * request's (the setup is per request, not per operator). */
typedef struct {
    int64_t macs;              /* per request */
    int64_t operations;        /* per request */
    int64_t weights_bytes;     /* its constant inputs */
    int64_t live_bytes;        /* bytes of the head's buffers alive while it runs (aligned) */
    int64_t live_buffers;      /* how many of them */
    int64_t scratch_bytes;     /* its kernel scratch buffers */
    int64_t fetch_bytes;       /* what it moves: constants it is the first to read, and per
                                  example its outputs and the graph inputs it reads first */
    double fetch_seconds;      /* those bytes at their regions' speeds (0 where the rates
                                  already include the traffic) */
    double compute_seconds;    /* its operations at its class's rate */
    double seconds;            /* fetch + compute */
    bool peak;                 /* the operator while which the most bytes are live */
} mc_check_op_t;

/* Scratch mc_check_graph needs for `graph` under `config`, in bytes.
 * [out] scratch_bytes  [out] problem may be NULL */
mc_status_t mc_check_scratch_bytes(const mc_graph_t *graph, const mc_board_t *board,
                                   const mc_check_config_t *config, int64_t *scratch_bytes,
                                   mc_problem_t *problem);

/*
 * The whole check of a validated graph (mc_graph_validate) on `board`.
 * [in] graph  [in] board  [in] config
 * [in] scratch  8-byte aligned, mc_check_scratch_bytes() of it
 * [out] out
 * [out] ops  graph->n_ops rows, or NULL
 * [out] problem  may be NULL
 */
mc_status_t mc_check_graph(const mc_graph_t *graph, const mc_board_t *board, const mc_check_config_t *config,
                           void *scratch, int64_t scratch_bytes, mc_check_t *out, mc_check_op_t *ops,
                           mc_problem_t *problem);

/* Scratch mc_check_file needs for the model file `graph` was read from (mc_tflite_read),
 * in bytes: the check's arrays, then the larger of the graph's phase (the graph as the
 * reader lays it out, with the work beside it) and the planners' work, which replaces
 * the graph.  The report's check_scratch_bytes.
 * [out] scratch_bytes  [out] problem may be NULL */
mc_status_t mc_check_file_scratch_bytes(const mc_graph_t *graph, const mc_board_t *board,
                                        const mc_check_config_t *config, int64_t *scratch_bytes,
                                        mc_problem_t *problem);

/*
 * The whole check of a model file, as mc_check_graph, in one piece of memory no larger
 * than mc_check_file_scratch_bytes() (a board's: the graph and the planners' work take
 * turns in it, the graph read from the file before and again after planning).  The
 * caller sizes the scratch from the graph read once (mc_tflite_size, mc_tflite_read).
 * [in] source  [in] board  [in] config
 * [in] scratch  8-byte aligned, mc_check_file_scratch_bytes() of it
 * [out] out
 * [out] graph  the file's graph, in scratch, whatever the result (empty when the file
 *              could not be read): to name the operator a problem points at
 * [out] problem  may be NULL
 */
mc_status_t mc_check_file(const mc_source_t *source, const mc_board_t *board, const mc_check_config_t *config,
                          void *scratch, int64_t scratch_bytes, mc_check_t *out, mc_graph_t *graph,
                          mc_problem_t *problem);

/*
 * Another board of the same family, when the check on this one does not pass: the
 * board that answers the resource that runs out (now->limiting) best.  Two steps, so
 * the caller checks only the boards that can help:
 *
 * mc_board_may_help: whether `board`, with its arena in `arena_region` (mc_region_t), can
 * answer now's limiting resource at all: RAM, more bytes in its arena region than now
 * had available; PSRAM, a PSRAM; flash, a larger model partition (or flash, when no
 * partition is given) than now's flash limit; the battery, power figures; latency, any
 * board.  false for a NULL argument or a limiting resource out of range.
 *
 * mc_board_pick: of the n checks of the boards that may help, in the caller's order,
 * the index of the suggestion, or -1 when none does better.  Only checks that do better
 * on the limiting resource than now count (a lower usage, or the resource no longer
 * checked); of those, the ones that fit if any do.  Among them: the lowest latency for
 * latency, the lowest average power for the battery; for memory and flash, the
 * smallest available_bytes that fits, or else the most headroom (the least short).
 * The first of equals wins.
 */
bool mc_board_may_help(const mc_check_t *now, const mc_board_t *board, int32_t arena_region);
int32_t mc_board_pick(const mc_check_t *now, const mc_check_t *candidates, int32_t n);

/* ---- 13. Names that cross the host/board boundary ------------------------------- */

/*
 * Every name the host's report and the board's report line share comes from here, so
 * the two cannot drift: the check's fields (name, kind, value), the names of targets,
 * kernel libraries, regions, resources and verdicts, the report's schema and prefix.
 */

typedef enum {
    MC_FIELD_INTEGER = 0,  /* integer: exact, 64-bit */
    MC_FIELD_REAL = 1,     /* real: seconds, joules, watts, rates */
    MC_FIELD_BOOL = 2,     /* integer is 0 or 1 */
    MC_FIELD_NAME = 3      /* text: one of a fixed set of names */
} mc_field_kind_t;

typedef struct {
    const char *name;      /* the report's field name, e.g. "recommended_arena_bytes" */
    int32_t kind;          /* mc_field_kind_t */
    int64_t integer;
    double real;
    const char *text;
} mc_field_t;

/* Number of fields of a check's report. */
int32_t mc_check_field_count(void);

/* Field `index` (0 .. count - 1) of check result `check`, in report order.
 * [out] out */
mc_status_t mc_check_field(const mc_check_t *check, int32_t index, mc_field_t *out);

/*
 * A board and a configuration are set field by field, by name, with the same names the
 * host's device profile export and the board's JSON use ("ram_bytes",
 * "conv_int8_optimised_ops_per_second", "weights_region", ...): *_init gives the
 * defaults, *_set one field (a name-kind field takes the value's text), and the names
 * are listed by *_field_name, except the board's rates: one per operator class,
 * numeric type and kernel library, each named "<opclass>_<numeric>_<kernels>_ops_per_second"
 * from mc_opclass_name, mc_numeric_name and mc_kernels_name.  An unknown name, a wrong
 * kind or an unknown text is MC_E_RANGE.
 */
void mc_board_init(mc_board_t *board);
mc_status_t mc_board_set(mc_board_t *board, const char *name, const mc_field_t *value);
int32_t mc_board_field_count(void);
const char *mc_board_field_name(int32_t index);

void mc_check_config_init(mc_check_config_t *config);
mc_status_t mc_check_config_set(mc_check_config_t *config, const char *name, const mc_field_t *value);
int32_t mc_check_config_field_count(void);
const char *mc_check_config_field_name(int32_t index);

/* Names of enum values ("esp32", "optimised", "flash", "latency", "misses_budget",
 * "int8", "depthwise"), or NULL for a value out of range. */
const char *mc_target_name(int32_t target);
const char *mc_kernels_name(int32_t kernels);
const char *mc_region_name(int32_t region);
const char *mc_resource_name(int32_t resource);
const char *mc_verdict_name(int32_t verdict);
const char *mc_numeric_name(int32_t numeric);
const char *mc_opclass_name(int32_t opclass);

/* "memcore.report/1" and "@memcore ": what the board's report line carries. */
const char *mc_report_schema(void);
const char *mc_report_prefix(void);

#ifdef __cplusplus
}
#endif

#endif /* MEMCORE_H */

// Measures TensorFlow Lite Micro's tensor arena for one model at one arena size, the
// way TFLM's own Python interpreter (the PyPI `tflite-micro` wheel) sets it up: a
// RecordingMicroAllocator over the whole arena, every operator TFLM registers, one
// resource variable per distinct VAR_HANDLE shared name, then AllocateTensors().
//
//   tflm_oracle MODEL.tflite ARENA_BYTES   -> one JSON line on stdout
//   tflm_oracle --abi                      -> sizes of the structures the tail is made of
//
// The JSON line: {"ok", "stage", "arena_bytes", "head", "tail", "total", "categories",
// "error"}.  "stage" names the step that failed ("model", "allocator", "interpreter",
// "allocate") or is "done".  "ok" is true only when AllocateTensors() succeeded.
// Built for Linux targets (the model is read with stdio) and for bare-metal Arm
// (stdio goes through semihosting; see baremetal/).  The arena starts 16-byte aligned,
// as a user's `alignas(16) uint8_t tensor_arena[N]` does, so N is the usable size.
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tensorflow/compiler/mlir/lite/schema/schema_utils.h"
#include "tensorflow/lite/micro/micro_allocator.h"
#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/micro/micro_resource_variable.h"
#include "tensorflow/lite/micro/recording_micro_allocator.h"
#include "tensorflow/lite/schema/schema_generated.h"

#ifdef TFLM_ORACLE_ALLOCLOG
#include "alloclog/oracle_alloclog.h"
#define ORACLE_PHASE(name) oracle_alloclog_phase(name, -1, -1, nullptr)
#else
#define ORACLE_PHASE(name) ((void)0)
#endif

#ifndef TFLM_ORACLE_TARGET
#define TFLM_ORACLE_TARGET "unknown"
#endif

namespace {

// TFLM's log lines, kept so that a failure's JSON says why (the first few hundred
// characters are enough to name the missing op or the allocation that failed).
char g_log[1024];
size_t g_log_len = 0;

}  // namespace

extern "C" void DebugLog(const char* format, va_list args) {
  if (g_log_len + 2 >= sizeof(g_log)) return;
  int n = vsnprintf(g_log + g_log_len, sizeof(g_log) - g_log_len - 1, format, args);
  if (n < 0) return;
  g_log_len += static_cast<size_t>(n);
  if (g_log_len > sizeof(g_log) - 2) g_log_len = sizeof(g_log) - 2;
  g_log[g_log_len++] = ' ';
  g_log[g_log_len] = '\0';
}

extern "C" int DebugVsnprintf(char* buffer, size_t buf_size, const char* format,
                              va_list vlist) {
  return vsnprintf(buffer, buf_size, format, vlist);
}

namespace {

// The operator list of TFLM's Python interpreter (python/tflite_micro/
// python_ops_resolver.cc at the measured commit): every builtin and signal-library
// op TFLM registers.  200 slots, as there.
class AllOpsResolver : public tflite::MicroMutableOpResolver<200> {
 public:
  AllOpsResolver() {
    AddAbs(); AddAdd(); AddAddN(); AddArgMax(); AddArgMin(); AddAssignVariable();
    AddAveragePool2D(); AddBatchMatMul(); AddBatchToSpaceNd(); AddBroadcastArgs();
    AddBroadcastTo(); AddCallOnce(); AddCast(); AddCeil(); AddCircularBuffer();
    AddConcatenation(); AddConv2D(); AddCos(); AddCumSum(); AddDecode(); AddDelay();
    AddDepthToSpace(); AddDepthwiseConv2D(); AddDequantize(); AddDetectionPostprocess();
    AddDiv(); AddDynamicUpdateSlice(); AddElu(); AddEmbeddingLookup(); AddEnergy();
    AddEqual(); AddEthosU(); AddExp(); AddExpandDims(); AddFftAutoScale(); AddFill();
    AddFilterBank(); AddFilterBankLog(); AddFilterBankSpectralSubtraction();
    AddFilterBankSquareRoot(); AddFloor(); AddFloorDiv(); AddFloorMod(); AddFramer();
    AddFullyConnected(); AddGather(); AddGatherNd(); AddGreater(); AddGreaterEqual();
    AddHardSwish(); AddIf(); AddIrfft(); AddL2Normalization(); AddL2Pool2D();
    AddLeakyRelu(); AddLess(); AddLessEqual(); AddLog(); AddLogSoftmax();
    AddLogicalAnd(); AddLogicalNot(); AddLogicalOr(); AddLogistic(); AddMaxPool2D();
    AddMaximum(); AddMean(); AddMinimum(); AddMirrorPad(); AddMul(); AddNeg();
    AddNotEqual(); AddOverlapAdd(); AddPCAN(); AddPack(); AddPad(); AddPadV2();
    AddPrelu(); AddQuantize(); AddReadVariable(); AddReduceAll(); AddReduceMax();
    AddReduceMin(); AddRelu(); AddRelu6(); AddReshape(); AddResizeBilinear();
    AddResizeNearestNeighbor(); AddReverseV2(); AddRfft(); AddRound(); AddRsqrt();
    AddSelectV2(); AddShape(); AddSin(); AddSlice(); AddSoftmax(); AddSpaceToBatchNd();
    AddSpaceToDepth(); AddSplit(); AddSplitV(); AddSqrt(); AddSquare();
    AddSquaredDifference(); AddSqueeze(); AddStacker(); AddStridedSlice(); AddSub();
    AddSum(); AddSvdf(); AddTanh(); AddTranspose(); AddTransposeConv();
    AddUnidirectionalSequenceLSTM(); AddUnpack(); AddVarHandle(); AddWhile();
    AddWindow(); AddZerosLike();
  }
};

// Reads a whole file in chunks (semihosting has no reliable fseek/ftell on every
// host), into a 16-byte aligned buffer as a model placed in flash would be.
uint8_t* ReadFile(const char* path, size_t* size_out, void** raw_out) {
  FILE* f = fopen(path, "rb");
  if (f == nullptr) return nullptr;
  size_t cap = 1 << 16, len = 0;
  uint8_t* raw = static_cast<uint8_t*>(malloc(cap + 16));
  while (raw != nullptr) {
    size_t n = fread(raw + 16 + len, 1, cap - len, f);
    len += n;
    if (len < cap) break;
    cap *= 2;
    uint8_t* bigger = static_cast<uint8_t*>(realloc(raw, cap + 16));
    if (bigger == nullptr) free(raw);
    raw = bigger;
  }
  fclose(f);
  if (raw == nullptr) return nullptr;
  // Realloc may move the block: align only once the data stops moving.
  uint8_t* aligned = reinterpret_cast<uint8_t*>(
      (reinterpret_cast<uintptr_t>(raw) + 15) & ~static_cast<uintptr_t>(15));
  memmove(aligned, raw + 16, len);
  *size_out = len;
  *raw_out = raw;
  return aligned;
}

// As the Python interpreter's count_resource_variables(): one per distinct shared
// name among the VAR_HANDLE operators of all subgraphs (a missing name counts once).
int CountResourceVariables(const tflite::Model* model) {
  const char* names[256];
  int count = 0;
  bool unnamed = false;
  const auto* subgraphs = model->subgraphs();
  const auto* codes = model->operator_codes();
  if (subgraphs == nullptr || codes == nullptr) return 0;
  for (size_t s = 0; s < subgraphs->size(); s++) {
    const auto* ops = subgraphs->Get(s)->operators();
    if (ops == nullptr) continue;
    for (size_t i = 0; i < ops->size(); i++) {
      const tflite::Operator* op = ops->Get(i);
      if (op->opcode_index() >= codes->size()) continue;
      if (tflite::GetBuiltinCode(codes->Get(op->opcode_index())) !=
          tflite::BuiltinOperator_VAR_HANDLE)
        continue;
      const auto* options = op->builtin_options_as_VarHandleOptions();
      const char* name = (options && options->shared_name()) ? options->shared_name()->c_str()
                                                             : nullptr;
      if (name == nullptr) {
        if (!unnamed) count++;
        unnamed = true;
        continue;
      }
      bool seen = false;
      for (int k = 0; k < count && k < 256; k++) {
        if (names[k] != nullptr && strcmp(names[k], name) == 0) seen = true;
      }
      if (!seen && count < 256) names[count++] = name;
    }
  }
  return count;
}

void PrintJsonString(const char* s) {
  putchar('"');
  for (; *s; s++) {
    unsigned char c = static_cast<unsigned char>(*s);
    if (c == '"' || c == '\\') {
      putchar('\\');
      putchar(c);
    } else if (c < 0x20 || c >= 0x7f) {
      printf("\\u%04x", c);
    } else {
      putchar(c);
    }
  }
  putchar('"');
}

struct Category {
  tflite::RecordedAllocationType type;
  const char* name;  // as RecordingMicroAllocator::PrintAllocations() names it
  const char* unit;
};

const Category kCategories[] = {
    {tflite::RecordedAllocationType::kTfLiteEvalTensorData, "TfLiteEvalTensor data",
     "allocations"},
    {tflite::RecordedAllocationType::kPersistentTfLiteTensorData,
     "Persistent TfLiteTensor data", "tensors"},
    {tflite::RecordedAllocationType::kPersistentTfLiteTensorQuantizationData,
     "Persistent TfLiteTensor quantization data", "allocations"},
    {tflite::RecordedAllocationType::kPersistentBufferData, "Persistent buffer data",
     "allocations"},
    {tflite::RecordedAllocationType::kTfLiteTensorVariableBufferData,
     "TfLiteTensor variable buffer data", "allocations"},
    {tflite::RecordedAllocationType::kNodeAndRegistrationArray,
     "NodeAndRegistration struct", "NodeAndRegistration structs"},
    {tflite::RecordedAllocationType::kOpData, "Operator runtime data", "OpData structs"},
#ifdef USE_TFLM_COMPRESSION
    {tflite::RecordedAllocationType::kCompressionData, "Persistent compression data",
     "allocations"},
#endif
};

int Report(bool ok, const char* stage, size_t arena_bytes,
           const tflite::RecordingMicroAllocator* allocator) {
  printf("{\"ok\": %s, \"stage\": \"%s\", \"arena_bytes\": %lu", ok ? "true" : "false", stage,
         static_cast<unsigned long>(arena_bytes));
  if (ok && allocator != nullptr) {
    const auto* memory = allocator->GetSimpleMemoryAllocator();
    printf(", \"head\": %lu, \"tail\": %lu, \"total\": %lu, \"categories\": {",
           static_cast<unsigned long>(memory->GetNonPersistentUsedBytes()),
           static_cast<unsigned long>(memory->GetPersistentUsedBytes()),
           static_cast<unsigned long>(memory->GetUsedBytes()));
    bool first = true;
    for (const Category& c : kCategories) {
      tflite::RecordedAllocation a = allocator->GetRecordedAllocation(c.type);
      if (a.used_bytes == 0 && a.requested_bytes == 0) continue;
      printf("%s\"%s\": {\"used_bytes\": %lu, \"requested_bytes\": %lu, \"count\": %lu, "
             "\"unit\": \"%s\"}",
             first ? "" : ", ", c.name, static_cast<unsigned long>(a.used_bytes),
             static_cast<unsigned long>(a.requested_bytes),
             static_cast<unsigned long>(a.count), c.unit);
      first = false;
    }
    printf("}");
  }
  printf(", \"error\": ");
  if (ok) {
    printf("null");
  } else {
    PrintJsonString(g_log_len ? g_log : stage);
  }
  printf("}\n");
  fflush(stdout);
  return ok ? 0 : 3;
}

// What the running program sees of its ABI, to cross-check the compile-time probe
// (abi_probe.cc) against the binary that measured.
int PrintAbi() {
  printf("{\"target\": \"%s\", \"sizeof_pointer\": %u, \"sizeof_enum\": %u, "
         "\"alignof_int64\": %u, \"alignof_double\": %u, \"TfLiteTensor\": %u, "
         "\"TfLiteEvalTensor\": %u, \"TfLiteNode\": %u, \"NodeAndRegistration\": %u, "
         "\"RecordingMicroAllocator\": %u, \"default_tail_bytes\": %u}\n",
         TFLM_ORACLE_TARGET, static_cast<unsigned>(sizeof(void*)),
         static_cast<unsigned>(sizeof(TfLiteType)), static_cast<unsigned>(alignof(int64_t)),
         static_cast<unsigned>(alignof(double)), static_cast<unsigned>(sizeof(TfLiteTensor)),
         static_cast<unsigned>(sizeof(TfLiteEvalTensor)),
         static_cast<unsigned>(sizeof(TfLiteNode)),
         static_cast<unsigned>(sizeof(tflite::NodeAndRegistration)),
         static_cast<unsigned>(sizeof(tflite::RecordingMicroAllocator)),
         static_cast<unsigned>(tflite::RecordingMicroAllocator::GetDefaultTailUsage()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "--abi") == 0) return PrintAbi();
  if (argc != 3) {
    fprintf(stderr, "usage: %s MODEL.tflite ARENA_BYTES | --abi\n", argc ? argv[0] : "tflm_oracle");
    return 2;
  }
  char* end = nullptr;
  unsigned long arena_bytes = strtoul(argv[2], &end, 10);
  if (end == argv[2] || *end != '\0' || arena_bytes == 0) {
    fprintf(stderr, "tflm_oracle: ARENA_BYTES must be a positive integer, got '%s'\n", argv[2]);
    return 2;
  }
  size_t model_bytes = 0;
  void* model_raw = nullptr;
  const uint8_t* model_data = ReadFile(argv[1], &model_bytes, &model_raw);
  if (model_data == nullptr) {
    snprintf(g_log, sizeof(g_log), "cannot read %s", argv[1]);
    g_log_len = strlen(g_log);
    return Report(false, "model", arena_bytes, nullptr);
  }
  flatbuffers::Verifier verifier(model_data, model_bytes);
  if (!tflite::VerifyModelBuffer(verifier)) {
    snprintf(g_log, sizeof(g_log), "%s is not a valid TFLite flatbuffer", argv[1]);
    g_log_len = strlen(g_log);
    return Report(false, "model", arena_bytes, nullptr);
  }
  const tflite::Model* model = tflite::GetModel(model_data);

  void* arena_raw = malloc(arena_bytes + 16);
  if (arena_raw == nullptr) {
    snprintf(g_log, sizeof(g_log), "host cannot allocate an arena of %lu bytes", arena_bytes);
    g_log_len = strlen(g_log);
    return Report(false, "allocator", arena_bytes, nullptr);
  }
  uint8_t* arena = reinterpret_cast<uint8_t*>(
      (reinterpret_cast<uintptr_t>(arena_raw) + 15) & ~static_cast<uintptr_t>(15));

  static AllOpsResolver resolver;
  // Too small an arena makes Create() place the allocator at a null pointer: that
  // crashes on Linux and faults on the MPU-guarded bare-metal build, so each probe is
  // its own process and a missing JSON line counts as a failure.
  ORACLE_PHASE("create_allocator");
  tflite::RecordingMicroAllocator* allocator =
      tflite::RecordingMicroAllocator::Create(arena, arena_bytes);
  if (allocator == nullptr) return Report(false, "allocator", arena_bytes, nullptr);
  tflite::MicroResourceVariables* variables = nullptr;
  int num_variables = CountResourceVariables(model);
  if (num_variables > 0) {
    ORACLE_PHASE("resource_variables");
    variables = tflite::MicroResourceVariables::Create(allocator, num_variables);
    if (variables == nullptr) return Report(false, "allocator", arena_bytes, nullptr);
  }
  ORACLE_PHASE("interpreter_constructor");
  tflite::MicroInterpreter interpreter(model, resolver, allocator, variables);
  if (interpreter.initialization_status() != kTfLiteOk) {
    return Report(false, "interpreter", arena_bytes, nullptr);
  }
  ORACLE_PHASE("allocate_tensors");
  if (interpreter.AllocateTensors() != kTfLiteOk) {
    return Report(false, "allocate", arena_bytes, nullptr);
  }
  ORACLE_PHASE("done");
  return Report(true, "done", arena_bytes, allocator);
}

#ifdef TFLM_ORACLE_ALLOCLOG
// The allocation log's sink (see alloclog/oracle_alloclog.h): one line per event,
// "@alloc {...}", tagged with the phase the patched interpreter last announced.
namespace {
const char* g_phase = "setup";
int g_phase_subgraph = -1, g_phase_op = -1;
const char* g_phase_op_name = "";
unsigned long g_event_index = 0;
}  // namespace

extern "C" void oracle_alloclog_phase(const char* phase, int subgraph, int op,
                                      const char* op_name) {
  g_phase = phase;
  g_phase_subgraph = subgraph;
  g_phase_op = op;
  g_phase_op_name = op_name ? op_name : "";
}

extern "C" void oracle_alloclog_event(const char* event, const char* fields_format, ...) {
  printf("@alloc {\"i\": %lu, \"ev\": \"%s\", \"phase\": \"%s\", \"subgraph\": %d, \"op\": %d, "
         "\"op_name\": \"%s\"",
         g_event_index++, event, g_phase, g_phase_subgraph, g_phase_op, g_phase_op_name);
  if (fields_format != nullptr && fields_format[0] != '\0') {
    printf(", ");
    va_list args;
    va_start(args, fields_format);
    vprintf(fields_format, args);
    va_end(args);
  }
  printf("}\n");
}
#endif  // TFLM_ORACLE_ALLOCLOG

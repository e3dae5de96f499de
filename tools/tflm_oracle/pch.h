// Precompiled by build.sh and force-included into every C++ file of the library: the
// headers nearly every TFLM source includes (the flatbuffer schema alone is ~100k
// lines), parsed once instead of 200 times.  No library source defines a macro before
// its first #include, so this changes nothing but compile time (objects compare equal).
#include "tensorflow/lite/kernels/internal/common.h"
#include "tensorflow/lite/kernels/kernel_util.h"
#include "tensorflow/lite/micro/kernels/kernel_util.h"

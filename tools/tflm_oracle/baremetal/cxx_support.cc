// The C++ runtime hooks a program built without libstdc++/libsupc++ still needs (the
// riscv32 bare-metal build, where Debian ships no C++ library): the handler a pure
// virtual call jumps to, and the sized/unsized operator delete that virtual destructors
// reference.  Nothing in the measuring program or TFLM frees through them.
#include <cstddef>
#include <cstdlib>

extern "C" void __cxa_pure_virtual() { abort(); }
void operator delete(void*) noexcept {}
void operator delete(void*, std::size_t) noexcept {}

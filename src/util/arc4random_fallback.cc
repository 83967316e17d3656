// arc4random for the wheels' binaries, which link libstdc++ statically
// (TURBOZARR_STATIC_RUNTIME, CMakeLists.txt). GCC 12's libstdc++.a calls
// glibc 2.36's arc4random from std::random_device, and its exception classes
// pull that code in, so without this definition every wheel would need glibc
// 2.36 (manylinux_2_36) for a function turbozarr never calls. Linked as an
// object file into the extension module and the command-line tool, it
// satisfies that reference before libc does; getrandom (glibc 2.25) gives the
// same kernel randomness glibc's own arc4random uses.
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

extern "C" __attribute__((visibility("hidden"))) uint32_t arc4random(void) {
  uint32_t value;
  for (;;) {
    const ssize_t got = ::getrandom(&value, sizeof(value), 0);
    if (got == static_cast<ssize_t>(sizeof(value))) return value;
    if (got < 0 && errno != EINTR) std::abort();  // as glibc's: no randomness, no answer
  }
}

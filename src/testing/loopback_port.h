// Loopback ports for the test servers: one that is free to listen on, and
// whether something answers on one.
//
// Thread safety: pure functions (each opens and closes its own socket).
#pragma once

namespace turbozarr {

// A port on 127.0.0.1 that was free a moment ago (a server may still lose a
// race for it; callers retry with another), or 0 if none could be had.
int FreeLoopbackPort();

// True if a TCP connection to 127.0.0.1:`port` is accepted.
bool LoopbackPortAnswers(int port);

}  // namespace turbozarr

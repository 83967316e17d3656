// Process-wide settings: how many threads work on one read or write.
//
// Every Array::Read and Array::Write (and each block a BlockIterator reads)
// runs its chunks on one process-wide pool of threads, the calling thread
// included. Its size is TURBOZARR_NUM_THREADS when that variable holds a
// whole number from 1 to kMaxThreads, else the number of cores. The
// variable is read once, when the pool is first needed (and not at all if
// SetThreads comes first); a value that is set but unusable is ignored with
// one warning line on stderr naming the variable and its value.
//
// SetThreads puts a new pool in place of the old one. An operation takes
// the pool once, when it starts, and keeps it until it ends: operations
// running when SetThreads is called finish on the old pool (which stops
// when the last of them ends), and operations started afterwards use the
// new one. A BlockIterator's background reads are such operations, one per
// block, so a scan picks the new count up from its next block on.
//
// Thread safety: every function may be called from any thread at any time,
// also while reads, writes and scans run on other threads.
#pragma once

#include <memory>

#include "turbozarr/status.h"

namespace turbozarr {

// A pool of threads that reads and writes run their chunks on. Opaque here:
// made by MakeThreadPool and handed to an operation through its options
// (ReadOptions::pool, WriteOptions::pool), so that a caller can keep a
// workload on threads of its own; operations given none use the
// process-wide pool below.
class ThreadPool;

// The most threads SetThreads accepts (and TURBOZARR_NUM_THREADS may ask for).
inline constexpr int kMaxThreads = 1024;

// How many threads (the calling one included) work on one read or write
// started now.
int Threads();

// Sets how many threads (the calling one included) work on each read or
// write started from now on. InvalidArgument unless 1 <= threads <=
// kMaxThreads; IOError when the system cannot start that many threads. On
// failure the count stays as it was.
Status SetThreads(int threads);

// A pool of `threads` threads (the calling one included), apart from the
// process-wide one; its threads stop when the last holder lets go. Errors
// as SetThreads.
Result<std::shared_ptr<ThreadPool>> MakeThreadPool(int threads);

}  // namespace turbozarr

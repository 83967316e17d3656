// Test helpers that put a file's pages in or out of the page cache, for
// tests of how reads behave when their data must come from the disk.
//
// Thread safety: free functions; concurrent calls on one file are fine.
#pragma once

#include <string>

namespace turbozarr {

// Writes back and drops the cached pages of the file at `path`, trying a
// few times 20 ms apart when some pages stay. Answers whether none is left
// cached: a file system that keeps its files in memory (tmpfs) cannot drop
// them (answered at once), and a test should then skip what needs it.
bool EvictFromPageCache(const std::string& path);

// The fraction of the file's pages that are in the page cache (being read
// counts), or -1 if it cannot be told. An empty file is 1.
double CachedFraction(const std::string& path);

}  // namespace turbozarr

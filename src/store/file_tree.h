// The directory-tree operations LocalStore is built from: making directories,
// reading one directory's entries as keys, and walking a tree for every key
// below it.
//
// Files and directories may appear and vanish while these run (other writers
// and erasers); an entry that disappears midway is treated as never there.
//
// Thread safety: functions over the file system, safe from any thread;
// SweepDirectoryOnce keeps a process-wide record of the directories swept.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "turbozarr/status.h"

namespace turbozarr::internal {

// Files whose names start with this are writes in progress, never keys.
// The full name is ".tmp-<writer's pid, hex>-<counter>-<salt>".
inline constexpr std::string_view kTempFilePrefix = ".tmp-";

// Whether temporary file `name` was left by a writer that has ended: its
// name is a temporary file's and its process is not running (as this
// process sees processes: a writer in another PID namespace looks ended).
bool TempFileWriterEnded(std::string_view name);

// Removes the temporary files directly in `dir` whose writers have ended
// and that were last changed `min_age_seconds` or more ago; answers how many
// it removed (into *removed, the paths, if given).
int RemoveEndedTempFiles(const std::string& dir, int64_t min_age_seconds,
                         std::vector<std::string>* removed = nullptr);

// RemoveEndedTempFiles(dir, min_age_seconds) the first time this process
// asks for `dir`; later calls for it return at once (the writes into one
// directory, a chunk after another, see the same directory as their
// thread's last call and take no lock). Every store object of the process
// shares the record, so that stores opened afresh for each task of a
// parallel job do not list a large directory again.
void SweepDirectoryOnce(const std::string& dir, int64_t min_age_seconds);

// True for the errno values that mean "no such entry" along a path.
bool IsAbsent(int err);

// mkdir -p: makes `dir` and any missing ancestors. Returns 0 or the errno.
int MakeDirectories(const std::string& dir);

// The entries of `dir`: regular files (and links to them) that can be keys in
// `files`, directories in `subdirs`; links to directories are not followed
// and temporary files are skipped. Returns 0, or the errno of opening `dir`.
int ReadDirectory(const std::string& dir, std::vector<std::string>* files,
                  std::vector<std::string>* subdirs);

// Appends JoinKey(key, relative path) for every file below `dir`, unsorted.
// `key` names `dir` in the store ("" for the root).
Status ListFilesBelow(const std::string& dir, const std::string& key,
                      std::vector<std::string>* out);

// True if some file lies below `dir`; stops at the first one found.
bool HasAnyFile(const std::string& dir);

}  // namespace turbozarr::internal

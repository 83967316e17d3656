// The bgenix index of a BGEN file (FILE.bgen.bgi): an SQLite database with
// one row per variant (contig, position, rsid, alleles, and where its block
// lies in the file), with the schema bgenix and vcztools 0.2.0 write.
//
// Thread safety: one writer per file, used from one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "turbozarr/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace turbozarr::vcz::internal {

struct BgiRow {
  std::string_view chromosome;
  int64_t position = 0;
  std::string_view rsid, allele1, allele2;
  int64_t file_start_position = 0;
  int64_t size_in_bytes = 0;
};

class BgenIndexWriter {
 public:
  // Creates the index at `path` (replacing any file there) and starts the
  // one transaction that Commit() ends.
  static Result<BgenIndexWriter> Create(const std::string& path);
  BgenIndexWriter(BgenIndexWriter&& other) noexcept;
  BgenIndexWriter& operator=(BgenIndexWriter&&) = delete;
  ~BgenIndexWriter();

  Status Add(const BgiRow& row);
  // Ends the transaction and closes the database.
  Status Commit();

 private:
  BgenIndexWriter(std::string path) : path_(std::move(path)) {}
  Status Error(const std::string& what) const;

  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
};

}  // namespace turbozarr::vcz::internal

#include "vcz/bgen_index.h"

#include <sqlite3.h>

#include <cstdio>
#include <utility>

namespace turbozarr::vcz::internal {
namespace {

// Word for word as bgenix and vcztools create it (sqlite_master keeps it).
constexpr const char* kSchema = R"(
CREATE TABLE Variant (
  chromosome TEXT NOT NULL,
  position INTEGER NOT NULL,
  rsid TEXT NOT NULL,
  number_of_alleles INTEGER NOT NULL,
  allele1 TEXT NOT NULL,
  allele2 TEXT NULL,
  file_start_position INTEGER NOT NULL,
  size_in_bytes INTEGER NOT NULL,
  PRIMARY KEY (chromosome, position, rsid, allele1, allele2, file_start_position)
);
CREATE INDEX position_idx ON Variant (chromosome, position);
)";

constexpr const char* kInsert =
    "INSERT INTO Variant (chromosome, position, rsid, number_of_alleles, allele1, allele2, "
    "file_start_position, size_in_bytes) VALUES (?, ?, ?, 2, ?, ?, ?, ?)";

}  // namespace

Result<BgenIndexWriter> BgenIndexWriter::Create(const std::string& path) {
  std::remove(path.c_str());
  BgenIndexWriter writer(path);
  if (sqlite3_open(path.c_str(), &writer.db_) != SQLITE_OK) {
    return writer.Error("cannot create the BGEN index");
  }
  if (sqlite3_exec(writer.db_, kSchema, nullptr, nullptr, nullptr) != SQLITE_OK ||
      sqlite3_exec(writer.db_, "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK ||
      sqlite3_prepare_v2(writer.db_, kInsert, -1, &writer.insert_, nullptr) != SQLITE_OK) {
    return writer.Error("cannot create the BGEN index");
  }
  return writer;
}

BgenIndexWriter::BgenIndexWriter(BgenIndexWriter&& other) noexcept
    : path_(std::move(other.path_)),
      db_(std::exchange(other.db_, nullptr)),
      insert_(std::exchange(other.insert_, nullptr)) {}

BgenIndexWriter::~BgenIndexWriter() {
  sqlite3_finalize(insert_);
  sqlite3_close(db_);  // without Commit(), the transaction is rolled back
}

Status BgenIndexWriter::Error(const std::string& what) const {
  return Status::IOError(what + " " + path_ + ": " +
                         (db_ ? sqlite3_errmsg(db_) : "out of memory"));
}

Status BgenIndexWriter::Add(const BgiRow& row) {
  auto text = [&](int i, std::string_view s) {
    // A default string_view has no data; SQLite would store NULL for it.
    return sqlite3_bind_text(insert_, i, s.data() ? s.data() : "", static_cast<int>(s.size()), SQLITE_TRANSIENT);
  };
  if (text(1, row.chromosome) != SQLITE_OK ||
      sqlite3_bind_int64(insert_, 2, row.position) != SQLITE_OK || text(3, row.rsid) != SQLITE_OK ||
      text(4, row.allele1) != SQLITE_OK || text(5, row.allele2) != SQLITE_OK ||
      sqlite3_bind_int64(insert_, 6, row.file_start_position) != SQLITE_OK ||
      sqlite3_bind_int64(insert_, 7, row.size_in_bytes) != SQLITE_OK ||
      sqlite3_step(insert_) != SQLITE_DONE) {
    return Error("cannot add a variant to the BGEN index");
  }
  sqlite3_reset(insert_);
  return Status::OK();
}

Status BgenIndexWriter::Commit() {
  sqlite3_finalize(std::exchange(insert_, nullptr));
  if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    return Error("cannot write the BGEN index");
  }
  if (sqlite3_close(std::exchange(db_, nullptr)) != SQLITE_OK) {
    return Status::IOError("cannot close the BGEN index " + path_);
  }
  return Status::OK();
}

}  // namespace turbozarr::vcz::internal

#include "store/zip_format.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "testing/zip_test_archive.h"

namespace turbozarr::zip {
namespace {

using testing::BuildArchive;
using testing::TestArchiveOptions;
using testing::TestEntry;

constexpr uint64_t kGiB = uint64_t{1} << 30;

// A file of `size` bytes that is all zeros except for what is placed in it,
// so that archives past 4 GiB can be described without writing them.
class SparseFile {
 public:
  explicit SparseFile(uint64_t size) : size_(size) {}
  void Place(uint64_t offset, std::string bytes) { pieces_[offset] = std::move(bytes); }
  uint64_t size() const { return size_; }
  ReadAt Reader() const {
    return [this](uint64_t offset, size_t n) -> Result<Buffer> {
      uint64_t end = std::min(size_, offset + n);
      Buffer out(offset < end ? end - offset : 0);
      std::memset(out.data(), 0, out.size());
      for (const auto& [at, bytes] : pieces_) {
        for (size_t i = 0; i < bytes.size(); ++i) {
          if (at + i >= offset && at + i < end)
            out.data()[at + i - offset] = std::byte(bytes[i]);
        }
      }
      return out;
    };
  }

 private:
  uint64_t size_;
  std::map<uint64_t, std::string> pieces_;
};

ReadAt ReaderOf(const std::string& bytes) {
  return [&bytes](uint64_t offset, size_t n) -> Result<Buffer> {
    if (offset >= bytes.size()) return Buffer();
    return Buffer(AsBytes(std::string_view(bytes).substr(offset, n)));
  };
}

Entry MakeEntry(std::string name, uint64_t offset, uint64_t size) {
  Entry e;
  e.name = std::move(name);
  e.header_offset = offset;
  e.size = e.compressed_size = size;
  e.crc32 = 0x12345678;
  return e;
}

TEST(ZipFormatTest, CentralHeadersRoundTripWithAndWithoutZip64) {
  const std::vector<Entry> entries = {
      MakeEntry("small", 0, 10),
      MakeEntry("a/b/zarr.json", 100, 0xFFFFFFFEull),
      MakeEntry("past-4GiB-offset", 5 * kGiB, 7),
      MakeEntry("huge", 6 * kGiB, 5 * kGiB),
      MakeEntry("\xC3\xBCnicode", 12 * kGiB, 1),
  };
  for (bool force : {false, true}) {
    SCOPED_TRACE(force ? "forced zip64" : "zip64 where needed");
    Buffer directory;
    for (const Entry& e : entries) AppendCentralHeader(e, DosTime{}, force, &directory);
    auto parsed = ParseCentralDirectory(directory.view(), 20 * kGiB, "test.zip");
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    ASSERT_EQ(parsed->size(), entries.size());
    for (size_t i = 0; i < entries.size(); ++i) {
      EXPECT_EQ((*parsed)[i].name, entries[i].name);
      EXPECT_EQ((*parsed)[i].header_offset, entries[i].header_offset);
      EXPECT_EQ((*parsed)[i].size, entries[i].size);
      EXPECT_EQ((*parsed)[i].compressed_size, entries[i].compressed_size);
      EXPECT_EQ((*parsed)[i].crc32, entries[i].crc32);
    }
    // Non-ASCII names are flagged as UTF-8, the rest are not.
    EXPECT_EQ((*parsed)[4].flags & kFlagUtf8, kFlagUtf8);
    EXPECT_EQ((*parsed)[0].flags & kFlagUtf8, 0);
  }
  // Without force, only the entries that need it carry a zip64 field:
  // 46 + name bytes for the first, 46 + name + 4 + 8 for the one past 4 GiB.
  Buffer one;
  AppendCentralHeader(entries[0], DosTime{}, false, &one);
  EXPECT_EQ(one.size(), kCentralHeaderSize + 5);
  Buffer offset_only;
  AppendCentralHeader(entries[2], DosTime{}, false, &offset_only);
  EXPECT_EQ(offset_only.size(), kCentralHeaderSize + entries[2].name.size() + 12);
  Buffer forced;
  AppendCentralHeader(entries[0], DosTime{}, true, &forced);
  EXPECT_EQ(forced.size(), kCentralHeaderSize + 5 + 28);
}

TEST(ZipFormatTest, LocalHeadersCarryZip64SizesOnlyWhenNeededOrForced) {
  Entry e = MakeEntry("k", 0, 3);
  EXPECT_EQ(LocalHeaderSize(e, false), kLocalHeaderSize + 1);
  EXPECT_EQ(LocalHeaderSize(e, true), kLocalHeaderSize + 1 + 20);
  Buffer forced;
  AppendLocalHeader(e, DosTime{}, true, &forced);
  ASSERT_EQ(forced.size(), LocalHeaderSize(e, true));
  uint32_t saturated;
  std::memcpy(&saturated, forced.data() + 18, 4);
  EXPECT_EQ(saturated, 0xFFFFFFFFu) << "the 32-bit size fields point to the extra field";
  auto skip = ParseLocalHeader(forced.view(), e, "t.zip");
  ASSERT_TRUE(skip.ok()) << skip.status().ToString();
  EXPECT_EQ(*skip, forced.size());
  Entry big = MakeEntry("k", 0, 5 * kGiB);
  EXPECT_EQ(LocalHeaderSize(big, false), kLocalHeaderSize + 1 + 20);
}

TEST(ZipFormatTest, LocatesDirectoriesOfArchivesPast4GiBAndWith65536Entries) {
  struct Case {
    uint64_t entries, offset, size;
    bool force;
  };
  for (const Case& c :
       {Case{65536, 100, 65536 * 47, false}, Case{3, 5 * kGiB, 200, false},
        Case{1, 3 * kGiB, 5 * kGiB, false}, Case{2, 10, 100, true}}) {
    SCOPED_TRACE(std::to_string(c.entries) + " entries at " + std::to_string(c.offset));
    Buffer end;
    AppendEndRecords(c.entries, c.offset, c.size, c.force, &end);
    EXPECT_EQ(end.size(), kEndSize + kZip64EndSize + kZip64LocatorSize);
    SparseFile file(c.offset + c.size + end.size());
    file.Place(c.offset + c.size, std::string(end.chars()));
    auto loc = LocateDirectory(file.Reader(), file.size(), "big.zip");
    ASSERT_TRUE(loc.ok()) << loc.status().ToString();
    EXPECT_TRUE(loc->zip64);
    EXPECT_EQ(loc->entries, c.entries);
    EXPECT_EQ(loc->offset, c.offset);
    EXPECT_EQ(loc->size, c.size);
    EXPECT_EQ(loc->base, 0u);
  }
  // Below every limit there are no zip64 records.
  for (uint64_t entries : {0, 1, 65534}) {
    Buffer end;
    AppendEndRecords(entries, 1000, entries * 47, false, &end);
    EXPECT_EQ(end.size(), kEndSize) << entries;
  }
}

TEST(ZipFormatTest, FindsTheEndRecordBehindAComment) {
  std::vector<TestEntry> entries = {{"a", "alpha"}, {"b/c", "gamma"}};
  // A comment that contains what looks like an end record of its own.
  std::string fake(22, '\0');
  fake[0] = 0x50, fake[1] = 0x4b, fake[2] = 0x05, fake[3] = 0x06;
  for (const std::string& comment :
       {std::string("hello"), "x" + fake + "y", std::string(65535, 'c')}) {
    TestArchiveOptions options;
    options.comment = comment;
    std::string bytes = BuildArchive(entries, options);
    auto loc = LocateDirectory(ReaderOf(bytes), bytes.size(), "c.zip");
    ASSERT_TRUE(loc.ok()) << loc.status().ToString();
    EXPECT_EQ(loc->entries, 2u);
    EXPECT_EQ(loc->base, 0u);
    EXPECT_EQ(loc->comment, comment);
    EXPECT_EQ(loc->end, bytes.size());
    // Bytes after the archive are not its comment. (Not tried with the fake
    // record in the comment: with bytes after it, which record is the real
    // one cannot be told.)
    const std::string tailed = bytes + "tail";
    auto followed = LocateDirectory(ReaderOf(tailed), tailed.size(), "c.zip");
    if (comment == "hello") {
      ASSERT_TRUE(followed.ok()) << followed.status().ToString();
      EXPECT_EQ(followed->comment, comment);
      EXPECT_EQ(followed->end, bytes.size());
    }
    auto dir = ParseCentralDirectory(
        AsBytes(std::string_view(bytes).substr(loc->offset, loc->size)),
        loc->offset - loc->base, "c.zip");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    ASSERT_EQ(dir->size(), 2u);
    EXPECT_EQ((*dir)[1].name, "b/c");
  }
}

TEST(ZipFormatTest, EndRecordsCarryTheArchiveComment) {
  for (bool force : {false, true}) {
    Buffer end;
    AppendEndRecords(3, 100, 150, force, &end, "a comment");
    const std::string bytes = std::string(250, 'x') + std::string(end.chars());
    auto loc = LocateDirectory(ReaderOf(bytes), bytes.size(), "comment.zip");
    ASSERT_TRUE(loc.ok()) << loc.status().ToString();
    EXPECT_EQ(loc->comment, "a comment");
    EXPECT_EQ(loc->end, bytes.size());
    EXPECT_EQ(loc->offset, 100u);
    EXPECT_EQ(loc->size, 150u);
    EXPECT_EQ(loc->zip64, force);
    // A comment longer than the 16-bit length can say is cut there.
    Buffer longer;
    AppendEndRecords(0, 0, 0, force, &longer, std::string(70000, 'c'));
    EXPECT_EQ(longer.size(), (force ? kZip64EndSize + kZip64LocatorSize : 0) + kEndSize +
                                 kMaxCommentSize);
  }
}

TEST(ZipFormatTest, BytesInFrontShiftEveryOffset) {
  TestArchiveOptions options;
  options.prefix = std::string(1234, '#');
  for (bool force : {false, true}) {
    options.force_zip64 = force;
    std::string bytes = BuildArchive({{"a", "alpha"}}, options);
    auto loc = LocateDirectory(ReaderOf(bytes), bytes.size(), "sfx.zip");
    ASSERT_TRUE(loc.ok()) << loc.status().ToString();
    EXPECT_EQ(loc->base, 1234u);
    EXPECT_EQ(loc->zip64, force);
  }
}

TEST(ZipFormatTest, DamagedEndRecordsAreCorruptionOrUnsupported) {
  std::string good = BuildArchive({{"a", "alpha"}});
  auto locate = [](const std::string& bytes) {
    return LocateDirectory(ReaderOf(bytes), bytes.size(), "bad.zip").status();
  };
  Status s = locate("");
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_NE(s.message().find("bad.zip: not a zip archive"), std::string::npos)
      << s.message();
  EXPECT_EQ(locate(std::string(5000, 'x')).code(), StatusCode::kCorruption);
  // A directory larger than everything before the end record.
  std::string big_dir = good;
  big_dir[big_dir.size() - 10] = '\x7f';
  EXPECT_EQ(locate(big_dir).code(), StatusCode::kCorruption);
  // A directory offset past where the directory can start.
  std::string far = good;
  far[far.size() - 3] = '\x7f';
  s = locate(far);
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_NE(s.message().find("central directory offset"), std::string::npos)
      << s.message();
  // Another disk.
  std::string disk = good;
  disk[disk.size() - 18] = 1;
  EXPECT_EQ(locate(disk).code(), StatusCode::kUnsupported);
  // A zip64 locator pointing at nothing.
  TestArchiveOptions z;
  z.force_zip64 = true;
  std::string zip64 = BuildArchive({{"a", "alpha"}}, z);
  zip64[zip64.size() - kEndSize - kZip64LocatorSize - kZip64EndSize] = 'X';
  s = locate(zip64);
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_NE(s.message().find("zip64"), std::string::npos) << s.message();
}

TEST(ZipFormatTest, DamagedCentralHeadersAreCorruptionNamingTheEntry) {
  Buffer dir;
  AppendCentralHeader(MakeEntry("c/0/0", 0, 10), DosTime{}, false, &dir);
  std::string good(dir.chars());
  auto parse = [](const std::string& bytes, uint64_t limit = 1000) {
    return ParseCentralDirectory(AsBytes(bytes), limit, "d.zip").status();
  };
  EXPECT_TRUE(parse(good).ok());
  // Cut short anywhere.
  for (size_t n = 1; n < good.size(); ++n) {
    EXPECT_EQ(parse(good.substr(0, n)).code(), StatusCode::kCorruption) << n;
  }
  std::string sig = good;
  sig[0] = 'Q';
  EXPECT_EQ(parse(sig).code(), StatusCode::kCorruption);
  // Data that would run into the directory.
  Status s = parse(good, 40);
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_NE(s.message().find("d.zip: entry 'c/0/0'"), std::string::npos) << s.message();
  // A saturated size with no zip64 field to hold it is read as written, and
  // then cannot fit.
  std::string saturated = good;
  std::memset(saturated.data() + 20, 0xFF, 4);
  EXPECT_EQ(parse(saturated).code(), StatusCode::kCorruption);
  // A zip64 field too short for the values it must hold.
  Buffer z;
  AppendCentralHeader(MakeEntry("k", 0, 1), DosTime{}, true, &z);
  std::string short64(z.chars());
  short64[kCentralHeaderSize + 1 + 2] = 8;  // the field says 8 bytes, not 24
  s = parse(short64);
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_NE(s.message().find("entry 'k': zip64 extra field lacks"), std::string::npos)
      << s.message();
  // An extra field whose length runs past the header.
  std::string long_extra(z.chars());
  long_extra[kCentralHeaderSize + 1 + 2] = 100;
  EXPECT_EQ(parse(long_extra).code(), StatusCode::kCorruption);
}

TEST(ZipFormatTest, LocalHeaderMustMatchTheDirectory) {
  Entry e = MakeEntry("c/0", 0, 3);
  Buffer h;
  AppendLocalHeader(e, DosTime{}, false, &h);
  std::string good(h.chars());
  EXPECT_EQ(*ParseLocalHeader(AsBytes(good), e, "l.zip"), good.size());
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_EQ(ParseLocalHeader(AsBytes(good.substr(0, n)), e, "l.zip").status().code(),
              StatusCode::kCorruption)
        << n;
  }
  std::string other_name = good;
  other_name.back() = '1';
  Status s = ParseLocalHeader(AsBytes(other_name), e, "l.zip").status();
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_NE(
      s.message().find("l.zip: entry 'c/0': the local header at offset 0 has 'c/1'"),
      std::string::npos)
      << s.message();
  std::string long_name = good;
  long_name[26] = '\xff';
  long_name[27] = '\xff';
  EXPECT_EQ(ParseLocalHeader(AsBytes(long_name), e, "l.zip").status().code(),
            StatusCode::kCorruption);
}

TEST(ZipFormatTest, DosTimes) {
  std::tm tm{};
  tm.tm_year = 2024 - 1900;
  tm.tm_mon = 2;
  tm.tm_mday = 15;
  tm.tm_hour = 13;
  tm.tm_min = 45;
  tm.tm_sec = 31;
  tm.tm_isdst = -1;
  DosTime d = ToDosTime(std::mktime(&tm));
  EXPECT_EQ(d.date, (44 << 9) | (3 << 5) | 15);
  EXPECT_EQ(d.time, (13 << 11) | (45 << 5) | 15);
  // Before 1980 there is no DOS time: 1980-01-01.
  EXPECT_EQ(ToDosTime(0).date, (0 << 9) | (1 << 5) | 1);
}

}  // namespace
}  // namespace turbozarr::zip

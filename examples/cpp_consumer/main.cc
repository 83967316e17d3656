// Writes a small v3 array to a memory store (opened by URL), reads a strided
// selection back and checks it: the shortest useful turbozarr program.
#include <cstdio>
#include <vector>

#include "turbozarr/array.h"
#include "turbozarr/open_store.h"

int main() {
  using namespace turbozarr;
  ArrayMetadata m;
  m.shape = {6, 8};
  m.chunk_shape = {4, 4};
  m.dtype = DataType(DataTypeId::kFloat64);
  m.fill_value = DefaultFillValue(m.dtype);
  m.codecs = nlohmann::json::parse(
      R"([{"name":"bytes","configuration":{"endian":"little"}},
          {"name":"zstd","configuration":{"level":3,"checksum":false}}])");
  auto store = OpenStore("memory://");
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  auto array = Array::Create(*store, "example", m);
  if (!array.ok()) {
    std::fprintf(stderr, "%s\n", array.status().ToString().c_str());
    return 1;
  }
  std::vector<double> data(48);
  for (int i = 0; i < 48; ++i) data[i] = i * 0.5;
  Status s = (*array)->Write(Selection::All(m.shape), data.data());
  std::vector<double> column(3);
  if (s.ok()) s = (*array)->Read(Selection({{0, 6, 2}, {5, 6, 1}}), column);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  const std::vector<double> expected = {2.5, 10.5, 18.5};
  if (column != expected) {
    std::fprintf(stderr, "wrong values read back\n");
    return 1;
  }
  std::printf("consumer: wrote (6, 8) float64, read column 5 rows 0:6:2 = %g %g %g\n",
              column[0], column[1], column[2]);
  return 0;
}

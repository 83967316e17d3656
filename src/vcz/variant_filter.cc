#include "vcz/variant_filter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <type_traits>
#include <utility>

#include "vcz/filter_expression.h"
#include "vcz/genotype_counts.h"
#include "vcz/samples.h"
#include "vcz/vcz_arrays.h"

namespace turbozarr::vcz::internal {
namespace {

using Kind = FilterNode::Kind;

// numpy's number types, and the "weak" Python scalars of a literal, which
// take the type of the array they meet (NEP 50).
enum class Num : uint8_t { kWeakInt, kWeakFloat, kBool, kInt8, kInt16, kInt32, kInt64,
                           kFloat32, kFloat64 };

bool IsWeak(Num t) { return t == Num::kWeakInt || t == Num::kWeakFloat; }
bool IsInt(Num t) { return t >= Num::kBool && t <= Num::kInt64; }
bool IsFloat(Num t) { return t == Num::kFloat32 || t == Num::kFloat64; }

// The type numpy gives a binary operation on `a` and `b`.
Num Promote(Num a, Num b) {
  if (IsWeak(a) && IsWeak(b)) {
    return a == Num::kWeakFloat || b == Num::kWeakFloat ? Num::kWeakFloat : Num::kWeakInt;
  }
  if (IsWeak(a)) std::swap(a, b);
  if (IsWeak(b)) {
    if (b == Num::kWeakFloat && IsInt(a)) return Num::kFloat64;
    return a == Num::kBool ? Num::kInt64 : a;
  }
  if (IsInt(a) && IsInt(b)) return std::max(a, b);
  if (IsFloat(a) && IsFloat(b)) return std::max(a, b);
  const Num i = IsInt(a) ? a : b;
  const Num f = IsInt(a) ? b : a;
  if (f == Num::kFloat64) return Num::kFloat64;
  return i <= Num::kInt16 ? Num::kFloat32 : Num::kFloat64;
}

Num NumOf(DataTypeId id) {
  switch (id) {
    case DataTypeId::kBool: return Num::kBool;
    case DataTypeId::kInt8: case DataTypeId::kUInt8: return Num::kInt8;
    case DataTypeId::kInt16: case DataTypeId::kUInt16: return Num::kInt16;
    case DataTypeId::kInt32: case DataTypeId::kUInt32: return Num::kInt32;
    case DataTypeId::kFloat32: return Num::kFloat32;
    case DataTypeId::kFloat64: return Num::kFloat64;
    default: return Num::kInt64;
  }
}

// Values computed from the genotypes when the dataset stores no such field.
enum class Computed { kNone, kAC, kAN, kAF, kNS, kNAlt, kNMissing, kFMissing };

const std::map<std::string, Computed, std::less<>> kComputed = {
    {"variant_AC", Computed::kAC},         {"variant_AN", Computed::kAN},
    {"variant_AF", Computed::kAF},         {"variant_NS", Computed::kNS},
    {"variant_N_ALT", Computed::kNAlt},    {"variant_N_MISSING", Computed::kNMissing},
    {"variant_F_MISSING", Computed::kFMissing}};

// The fixed VCF columns and the arrays that hold them.
const std::map<std::string, std::string, std::less<>> kReserved = {
    {"CHROM", "variant_contig"}, {"POS", "variant_position"}, {"ID", "variant_id"},
    {"REF", "variant_allele"},   {"ALT", "variant_allele"},   {"QUAL", "variant_quality"},
    {"FILTER", "variant_filter"}};

// What a block's values of one node are: a scalar (a literal), a column
// (one per variant) or a matrix (rows x width: alleles, values or
// samples). Missing and fill marks run beside the values (empty: none).
struct Value {
  enum class Type { kNumber, kString, kBool } type = Type::kNumber;
  bool scalar = false;
  bool matrix = false;
  bool sample = false;  // the matrix's columns are samples
  int64_t rows = 0;
  int64_t width = 1;
  Num num = Num::kWeakInt;
  std::vector<double> numbers;
  std::vector<std::string> strings;
  std::vector<uint8_t> bools;
  std::vector<uint8_t> missing, fill;

  size_t At(int64_t r, int64_t k) const {
    if (scalar) return 0;
    return static_cast<size_t>(width == 1 ? r : r * width + k);
  }
  bool Missing(int64_t r, int64_t k) const { return !missing.empty() && missing[At(r, k)]; }
  bool Fill(int64_t r, int64_t k) const { return !fill.empty() && fill[At(r, k)]; }
  double Number(int64_t r, int64_t k) const {
    return type == Type::kBool ? bools[At(r, k)] : numbers[At(r, k)];
  }
  bool Truth(int64_t r, int64_t k) const {
    const size_t i = At(r, k);
    if (type == Type::kBool) return bools[i] != 0;
    if (type == Type::kNumber) return numbers[i] != 0;
    return !strings[i].empty();
  }
};

// The shape of an operation over `a` and `b`, one broadcast against the
// other as numpy's would be once a column is made a matrix of width 1.
struct Shape {
  bool scalar = true, matrix = false, sample = false;
  int64_t rows = 1, width = 1;
};
Shape Broadcast(const Value& a, const Value& b) {
  Shape s;
  s.scalar = a.scalar && b.scalar;
  s.matrix = a.matrix || b.matrix;
  s.sample = a.sample || b.sample;
  s.rows = a.scalar ? b.rows : a.rows;
  // numpy broadcasts (n, 0) against (n, 1) to (n, 0): no samples selected.
  s.width = (a.matrix && a.width == 0) || (b.matrix && b.width == 0)
                ? 0
                : std::max(a.matrix ? a.width : 1, b.matrix ? b.width : 1);
  if (s.scalar) s.rows = 1;
  return s;
}
// The shape of an element-by-element operation on `a` and `b`: two matrices
// of different widths (neither 1) have no common element.
Result<Shape> Combined(const Value& a, const Value& b) {
  if (a.matrix && b.matrix && a.width != b.width && a.width != 1 && b.width != 1) {
    return Status::InvalidArgument(
        "cannot combine fields with incompatible dimensions: operands with different "
        "value counts have no common element");
  }
  return Broadcast(a, b);
}

Value Empty(const Shape& s, Value::Type type) {
  Value v;
  v.type = type;
  v.scalar = s.scalar;
  v.matrix = s.matrix;
  v.sample = s.sample;
  v.rows = s.rows;
  v.width = s.matrix ? s.width : 1;
  const size_t n = static_cast<size_t>(s.scalar ? 1 : v.rows * v.width);
  if (type == Value::Type::kBool) v.bools.assign(n, 0);
  if (type == Value::Type::kNumber) v.numbers.assign(n, 0);
  return v;
}

// An empty column of `rows` decisions, to fill with push_back.
Value DecisionColumn(int64_t rows) {
  Value v;
  v.type = Value::Type::kBool;
  v.rows = rows;
  v.bools.reserve(static_cast<size_t>(rows));
  return v;
}

// A matrix over variant-level columns (alleles, values) made one column:
// whether any element holds.
Value AnyPerVariant(const Value& v) {
  if (!v.matrix || v.sample) return v;
  Value out;
  out.type = Value::Type::kBool;
  out.rows = v.rows;
  out.bools.assign(static_cast<size_t>(v.rows), 0);
  for (int64_t r = 0; r < v.rows; ++r) {
    for (int64_t k = 0; k < v.width; ++k) {
      if (v.Truth(r, k)) {
        out.bools[static_cast<size_t>(r)] = 1;
        break;
      }
    }
  }
  return out;
}

// Whether row `r` of `v` holds anywhere (any sample, for a matrix).
bool AnyInRow(const Value& v, int64_t r) {
  if (!v.matrix) return v.Truth(r, 0);
  for (int64_t k = 0; k < v.width; ++k) {
    if (v.Truth(r, k)) return true;
  }
  return false;
}

// The variant type vcztools computes for an allele against its REF: -1 a
// reference (no ALT, or ALT equal to REF, or <*>), 1 a SNP (one base, or
// equal lengths that differ at one base), 256 anything else.
int VariantType(const std::string& ref, const std::string& alt) {
  if (alt.empty()) return -1;
  if (ref.size() == 1 && alt.size() == 1 && alt != "*") return ref == alt ? -1 : 1;
  if (alt == "<*>" || alt == "<NON_REF>") return -1;
  if (ref.size() > 1 && ref.size() == alt.size()) {
    int differ = 0;
    for (size_t i = 0; i < ref.size(); ++i) differ += ref[i] != alt[i];
    if (differ == 1) return 1;
  }
  return 256;
}

// Calls f(i, x, missing, fill) for the numbers of `b` at elements `at` of
// each of `rows` rows, i counting from 0, with the spec's marks: -1 and -2
// for signed integers, two NaN payloads for floats. Typed, so that the
// per-element work is a load and two compares.
template <typename T, typename F>
void VisitNumbers(const FieldBlock& b, int64_t rows, const std::vector<int64_t>& at, F f) {
  using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  constexpr bool kFloat = std::is_floating_point_v<T>;
  constexpr bool kSigned = std::is_signed_v<T> && !kFloat;
  constexpr Bits kMissingBits = sizeof(T) == 8 ? Bits(0x7FF0000000000001) : Bits(0x7F800001);
  constexpr Bits kFillBits = sizeof(T) == 8 ? Bits(0x7FF0000000000002) : Bits(0x7F800002);
  const bool consecutive = Consecutive(at);
  auto one = [&f](size_t i, const uint8_t* p) {
    T x;
    std::memcpy(&x, p, sizeof(T));
    if constexpr (kFloat) {
      Bits bits;
      std::memcpy(&bits, p, sizeof(T));
      f(i, x, bits == kMissingBits, bits == kFillBits);
    } else if constexpr (kSigned) {
      f(i, x, x == T(-1), x == T(-2));
    } else {
      f(i, x, false, false);
    }
  };
  size_t i = 0;
  const size_t width = at.size();
  for (int64_t r = 0; r < rows; ++r, i += width) {
    if (consecutive && width > 0) {
      // One run of the row: a loop the compiler can vectorise.
      const uint8_t* run = b.NumberAt(r, at[0]);
      for (size_t k = 0; k < width; ++k) one(i + k, run + k * sizeof(T));
    } else {
      for (size_t k = 0; k < width; ++k) one(i + k, b.NumberAt(r, at[k]));
    }
  }
}

// VisitNumbers with T the type of `b`'s numbers (bool and uint64 are not
// visited: false).
template <typename F>
bool VisitTyped(const FieldBlock& b, int64_t rows, const std::vector<int64_t>& at, F f) {
  switch (b.type_id()) {
    case DataTypeId::kInt8: VisitNumbers<int8_t>(b, rows, at, f); return true;
    case DataTypeId::kInt16: VisitNumbers<int16_t>(b, rows, at, f); return true;
    case DataTypeId::kInt32: VisitNumbers<int32_t>(b, rows, at, f); return true;
    case DataTypeId::kInt64: VisitNumbers<int64_t>(b, rows, at, f); return true;
    case DataTypeId::kUInt8: VisitNumbers<uint8_t>(b, rows, at, f); return true;
    case DataTypeId::kUInt16: VisitNumbers<uint16_t>(b, rows, at, f); return true;
    case DataTypeId::kUInt32: VisitNumbers<uint32_t>(b, rows, at, f); return true;
    case DataTypeId::kFloat32: VisitNumbers<float>(b, rows, at, f); return true;
    case DataTypeId::kFloat64: VisitNumbers<double>(b, rows, at, f); return true;
    default: return false;
  }
}

}  // namespace

// One node of the compiled expression.
struct Node {
  Kind kind = Kind::kNumber;
  std::string op;
  std::vector<std::string> ops;
  std::vector<Node> operands;
  double number = 0;
  bool integer = false;
  std::string text;         // a string literal; a field's tag as written
  size_t slot = 0;          // kField (stored), tests: the block to read
  Computed computed = Computed::kNone;
  bool sample = false;      // decides per sample
  int64_t contig = -1;      // kChromTest
  std::vector<uint8_t> filter_set;  // kFilterTest: the filters named
  bool all_pass = false;            // kFilterTest: no filter arrays, every record PASS
};

struct VariantFilter::Compiled {
  Node root;
  bool exclude = false;
  std::vector<std::string> arrays;
  std::vector<int64_t> columns;           // the samples FORMAT fields see
  std::vector<int64_t> computed_columns;  // those AC, AN, ... count
  std::string dataset;  // for errors
  size_t genotype_slot = SIZE_MAX, allele_slot = SIZE_MAX;
};

namespace {

class Compiler {
 public:
  Compiler(const VczDataset& d, VariantFilter::Compiled& c, bool recount)
      : d_(d), c_(c), recount_(recount) {
    for (const std::string& name : d.ArrayNames()) {
      if (name.rfind("variant_", 0) == 0 || name.rfind("call_", 0) == 0) fields_.insert(name);
    }
  }

  Result<Node> Compile(const FilterNode& n) {
    Node out;
    out.kind = n.kind;
    out.op = n.op;
    out.ops = n.ops;
    out.number = n.number;
    out.integer = n.integer;
    out.text = n.text;
    switch (n.kind) {
      case Kind::kNumber:
      case Kind::kString:
        return out;
      case Kind::kField:
        TZ_RETURN_NOT_OK(Field(out));
        return out;
      case Kind::kChromTest: {
        TZ_ASSIGN_OR_RETURN(out.slot, Need("variant_contig", 1));
        TZ_ASSIGN_OR_RETURN(const VczTables* tables, d_.tables());
        for (size_t i = 0; i < tables->contig_ids.size(); ++i) {
          if (tables->contig_ids[i] == n.text) out.contig = static_cast<int64_t>(i);
        }
        return out;
      }
      case Kind::kFilterTest: {
        // Without the filter arrays (as tskit2zarr writes a dataset) every
        // record passes, as `view` writes it and bcftools reads the VCF.
        std::vector<std::string> names = {"PASS"};
        out.all_pass = !d_.Has("filter_id") || !d_.Has("variant_filter");
        if (!out.all_pass) {
          TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> ids, d_.OpenArray("filter_id"));
          TZ_ASSIGN_OR_RETURN(names, ReadStrings(*ids));
          TZ_ASSIGN_OR_RETURN(out.slot, Need("variant_filter", 2));
        }
        out.filter_set.assign(names.size(), 0);
        if (n.text != ".") {
          size_t from = 0;
          while (true) {
            const size_t semi = n.text.find(';', from);
            const std::string name = n.text.substr(from, semi - from);
            auto it = std::find(names.begin(), names.end(), name);
            if (it == names.end()) {
              return Status::InvalidArgument("The filter \"" + name +
                                             "\" is not present in header");
            }
            out.filter_set[static_cast<size_t>(it - names.begin())] = 1;
            if (semi == std::string::npos) break;
            from = semi + 1;
          }
        }
        return out;
      }
      case Kind::kTypeTest: {
        TZ_ASSIGN_OR_RETURN(out.slot, Need("variant_allele", 2));
        return out;
      }
      default:
        break;
    }
    for (const FilterNode& operand : n.operands) {
      TZ_ASSIGN_OR_RETURN(out.operands.emplace_back(), Compile(operand));
      out.sample = out.sample || out.operands.back().sample;
    }
    return out;
  }

 private:
  // Resolves a tag as vcztools' vcf_name_to_vcz_names does.
  Status Field(Node& out) {
    const std::string& tag = out.text;
    const size_t slash = tag.find('/');
    const std::string name = slash == std::string::npos ? tag : tag.substr(slash + 1);
    std::vector<std::string> candidates;
    if (slash == std::string::npos) {
      candidates = {"call_" + name, "variant_" + name};
    } else if (tag.compare(0, slash, "INFO") == 0) {
      candidates = {"variant_" + name};
    } else {
      candidates = {"call_" + name};
    }
    std::vector<std::string> matches;
    for (const std::string& c : candidates) {
      if (fields_.count(c) || Computable(c)) matches.push_back(c);
    }
    if (auto it = kReserved.find(tag); it != kReserved.end()) matches.push_back(it->second);
    if (matches.empty()) {
      if (name == "N_SAMPLES" || name == "MAC" || name == "MAF" || name == "ILEN") {
        return Status::InvalidArgument(
            UnsupportedFeature("Calculated variables (MAC, MAF, ILEN, N_SAMPLES)"));
      }
      return Status::NotFound("the tag \"" + tag + "\" is not defined");
    }
    if (matches.size() > 1) {
      return Status::InvalidArgument("ambiguous filtering expression: \"" + tag +
                                     "\", both INFO/" + name + " and FORMAT/" + name +
                                     " are defined");
    }
    const std::string& array = matches.front();
    out.sample = array.rfind("call_", 0) == 0;
    const bool recounted = recount_ && Computable(array) && array != "variant_N_ALT";
    if (!fields_.count(array) || recounted) {
      out.computed = kComputed.at(array);
      if (out.computed != Computed::kNAlt) {
        TZ_ASSIGN_OR_RETURN(c_.genotype_slot, Need("call_genotype", 3));
      }
      if (out.computed == Computed::kAC || out.computed == Computed::kAN ||
          out.computed == Computed::kAF || out.computed == Computed::kNAlt) {
        TZ_ASSIGN_OR_RETURN(c_.allele_slot, Need("variant_allele", 2));
      }
      return Status::OK();
    }
    TZ_ASSIGN_OR_RETURN(out.slot, Need(array, 2));
    return Status::OK();
  }

  // Whether the dataset can compute `name` from what it stores.
  bool Computable(const std::string& name) const {
    auto it = kComputed.find(name);
    if (it == kComputed.end()) return false;
    const bool gt = fields_.count("call_genotype") > 0;
    const bool alleles = fields_.count("variant_allele") > 0;
    switch (it->second) {
      case Computed::kNAlt: return alleles;
      case Computed::kAC: case Computed::kAN: case Computed::kAF: return gt && alleles;
      default: return gt;
    }
  }

  // The slot of `array`, after checking that it has a row per variant (and
  // a column per sample, for a call field) and at most `max_rank` axes.
  Result<size_t> Need(const std::string& array, size_t max_rank) {
    auto it = std::find(c_.arrays.begin(), c_.arrays.end(), array);
    if (it != c_.arrays.end()) return static_cast<size_t>(it - c_.arrays.begin());
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> a, d_.OpenArray(array));
    TZ_RETURN_NOT_OK(CheckFieldShape(array, *a, d_.num_variants(), d_.num_samples()));
    if (a->shape().size() > max_rank) {
      return Status::InvalidArgument(UnsupportedFeature("Higher dimensional FORMAT fields"));
    }
    c_.arrays.push_back(array);
    return c_.arrays.size() - 1;
  }

  const VczDataset& d_;
  VariantFilter::Compiled& c_;
  bool recount_;  // count from the genotypes even what is stored
  std::set<std::string> fields_;
};

// Evaluates a compiled tree over one block.
class Evaluator {
 public:
  Evaluator(const VariantFilter::Compiled& c, const std::vector<const FieldBlock*>& blocks,
            int64_t rows)
      : c_(c), blocks_(blocks), rows_(rows) {}

  Result<Value> Eval(const Node& n) {
    switch (n.kind) {
      case Kind::kNumber: {
        Value v;
        v.scalar = true;
        v.num = n.integer ? Num::kWeakInt : Num::kWeakFloat;
        v.numbers = {n.number};
        return v;
      }
      case Kind::kString: {
        Value v;
        v.type = Value::Type::kString;
        v.scalar = true;
        v.strings = {n.text};
        return v;
      }
      case Kind::kField:
        return n.computed == Computed::kNone ? Load(n) : Compute(n.computed);
      case Kind::kChromTest: return ChromTest(n);
      case Kind::kFilterTest: return FilterTest(n);
      case Kind::kTypeTest: return TypeTest(n);
      case Kind::kNegate: {
        TZ_ASSIGN_OR_RETURN(Value v, Eval(n.operands[0]));
        if (v.type != Value::Type::kNumber) return Misuse("'-' needs a number");
        for (double& x : v.numbers) x = -x;
        return v;
      }
      case Kind::kArithmetic: return Arithmetic(n);
      case Kind::kComparison: return Comparison(n);
      case Kind::kLogical:
        return n.op.size() == 1 ? ElementLogic(n) : SampleLogic(n);
    }
    return Misuse("an unknown node");
  }

 private:
  Status Misuse(const std::string& what) const {
    return Status::InvalidArgument("filter expression: " + what);
  }

  const FieldBlock& Block(size_t slot) const { return *blocks_[slot]; }

  // A stored field's values for the block; a call field's for the
  // selected samples.
  // The elements of a row a field node takes: the selected samples' for a
  // call field, all of them otherwise; and the shape of its values.
  std::vector<int64_t> ElementsOf(const Node& n, Value& v) const {
    const FieldBlock& b = Block(n.slot);
    std::vector<int64_t> at;
    if (n.sample) {
      at = c_.columns;
    } else {
      for (int64_t i = 0; i < b.per_variant(); ++i) at.push_back(i);
    }
    v.rows = rows_;
    v.sample = n.sample;
    v.matrix = n.sample || b.rank() > 1;
    v.width = v.matrix ? static_cast<int64_t>(at.size()) : 1;
    return at;
  }

  Result<Value> Load(const Node& n) const {
    const FieldBlock& b = Block(n.slot);
    Value v;
    const std::vector<int64_t> at = ElementsOf(n, v);
    const size_t count = static_cast<size_t>(rows_ * v.width);
    v.missing.resize(count);
    v.fill.resize(count);
    if (b.is_string()) {
      v.type = Value::Type::kString;
      v.strings.reserve(count);
    } else if (b.is_bool()) {
      v.type = Value::Type::kBool;
      v.bools.resize(count);
      v.missing.clear();  // a flag is set or not, never missing
    } else {
      v.num = NumOf(b.type_id());
      v.numbers.resize(count);
    }
    if (v.type == Value::Type::kNumber &&
        VisitTyped(b, rows_, at, [&v](size_t i, auto x, bool missing, bool fill) {
          v.numbers[i] = static_cast<double>(x);
          v.missing[i] = missing;
          v.fill[i] = fill;
        })) {
      return v;
    }
    size_t i = 0;
    for (int64_t r = 0; r < rows_; ++r) {
      for (int64_t k : at) {
        if (v.type == Value::Type::kString) {
          v.strings.push_back(b.String(r, k));
        } else if (v.type == Value::Type::kBool) {
          v.bools[i] = b.Bool(r, k);
        } else {
          v.numbers[i] = b.Float(r, k);
        }
        if (!v.missing.empty()) v.missing[i] = b.IsMissing(r, k);
        v.fill[i] = b.IsFill(r, k);
        ++i;
      }
    }
    return v;
  }

  // AC, AN, AF, NS, N_ALT, N_MISSING or F_MISSING over the selected samples.
  Result<Value> Compute(Computed what) const {
    const FieldBlock* alleles = c_.allele_slot != SIZE_MAX ? &Block(c_.allele_slot) : nullptr;
    const FieldBlock* genotypes =
        what != Computed::kNAlt && c_.genotype_slot != SIZE_MAX ? &Block(c_.genotype_slot)
                                                                : nullptr;
    TZ_ASSIGN_OR_RETURN(GenotypeCounts counts,
                        CountGenotypes(alleles, genotypes, c_.computed_columns, rows_,
                                       c_.dataset));
    Value v;
    v.rows = rows_;
    auto column = [&](const auto& values, Num num) {
      v.num = num;
      v.numbers.assign(values.begin(), values.end());
      return v;
    };
    const double samples = static_cast<double>(c_.computed_columns.size());
    switch (what) {
      case Computed::kNAlt: return column(counts.n_alt, Num::kInt64);
      case Computed::kAN: return column(counts.an, Num::kInt32);
      case Computed::kNS: return column(counts.ns, Num::kInt32);
      case Computed::kNMissing: return column(counts.n_missing, Num::kInt64);
      case Computed::kFMissing: {
        std::vector<double> f;
        for (int64_t n : counts.n_missing) f.push_back(samples == 0 ? 0.0 : n / samples);
        return column(f, Num::kFloat64);
      }
      default: break;
    }
    // AC and AF: one column per ALT, fill past the variant's.
    v.matrix = true;
    v.width = counts.max_alt;
    v.fill.resize(counts.ac.size());
    for (size_t i = 0; i < counts.ac.size(); ++i) v.fill[i] = counts.ac[i] == -2;
    if (what == Computed::kAC) return column(counts.ac, Num::kInt32);
    const std::vector<float> af = AlleleFrequencies(counts);
    v.missing.resize(af.size());
    for (size_t i = 0; i < af.size(); ++i) {
      v.missing[i] = !v.fill[i] && counts.an[i / static_cast<size_t>(counts.max_alt)] == 0;
    }
    return column(af, Num::kFloat32);
  }

  Result<Value> ChromTest(const Node& n) const {
    const FieldBlock& b = Block(n.slot);
    Value v = DecisionColumn(rows_);
    const bool equal = n.op != "!=";
    for (int64_t r = 0; r < rows_; ++r) {
      v.bools.push_back((b.Integer(r, 0) == n.contig) == equal);
    }
    return v;
  }

  // FILTER = "a;b" holds when the variant's filters are exactly those;
  // FILTER ~ "a;b" when they include them; != and !~ the opposites.
  Result<Value> FilterTest(const Node& n) const {
    const FieldBlock* b = n.all_pass ? nullptr : &Block(n.slot);
    Value v = DecisionColumn(rows_);
    const bool subset = n.op == "~" || n.op == "!~";
    const bool negate = n.op == "!=" || n.op == "!~";
    const int64_t width = b == nullptr ? 1
                                       : std::min<int64_t>(b->per_variant(),
                                                           static_cast<int64_t>(n.filter_set.size()));
    for (int64_t r = 0; r < rows_; ++r) {
      bool holds = true;
      for (int64_t k = 0; k < width && holds; ++k) {
        const bool set = b == nullptr || b->Bool(r, k);
        const bool named = n.filter_set[static_cast<size_t>(k)] != 0;
        holds = subset ? (!named || set) : set == named;
      }
      v.bools.push_back(holds != negate);
    }
    return v;
  }

  // TYPE = "snp": every ALT is a SNP; TYPE ~ "snp": one is; "ref": there
  // is no ALT (or each is the reference).
  Result<Value> TypeTest(const Node& n) const {
    const FieldBlock& a = Block(n.slot);
    Value v = DecisionColumn(rows_);
    const bool any = n.op == "~" || n.op == "!~";
    const bool negate = n.op == "!=" || n.op == "!~";
    for (int64_t r = 0; r < rows_; ++r) {
      const std::string& ref = a.String(r, 0);
      bool holds;
      if (n.text == "ref") {
        holds = true;
        for (int64_t k = 1; k < a.per_variant(); ++k) holds &= VariantType(ref, a.String(r, k)) < 0;
      } else if (any) {
        int bits = 0;
        for (int64_t k = 1; k < a.per_variant(); ++k) {
          const int t = VariantType(ref, a.String(r, k));
          bits |= t < 0 ? 0 : t;
        }
        holds = (bits & 1) != 0;
      } else {
        int bits = -1;  // the AND of every type, a reference counting as -1 (all bits)
        for (int64_t k = 1; k < a.per_variant(); ++k) bits &= VariantType(ref, a.String(r, k));
        holds = bits >= 0 && (bits & 1) != 0;
      }
      v.bools.push_back(holds != negate);
    }
    return v;
  }

  Result<Value> Arithmetic(const Node& n) {
    TZ_ASSIGN_OR_RETURN(Value acc, Eval(n.operands[0]));
    for (size_t i = 0; i < n.ops.size(); ++i) {
      TZ_ASSIGN_OR_RETURN(Value rhs, Eval(n.operands[i + 1]));
      if (acc.type == Value::Type::kString || rhs.type == Value::Type::kString) {
        return Misuse("'" + n.ops[i] + "' needs numbers, not strings");
      }
      TZ_ASSIGN_OR_RETURN(const Shape s, Combined(acc, rhs));
      const char op = n.ops[i][0];
      Value out = Empty(s, Value::Type::kNumber);
      const Num a_num = acc.type == Value::Type::kBool ? Num::kBool : acc.num;
      const Num b_num = rhs.type == Value::Type::kBool ? Num::kBool : rhs.num;
      out.num = Promote(a_num, b_num);
      if (op == '/') {
        if (out.num == Num::kWeakInt) out.num = Num::kWeakFloat;
        if (IsInt(out.num)) out.num = Num::kFloat64;
      }
      const bool marks = !acc.missing.empty() || !rhs.missing.empty() || !acc.fill.empty() ||
                         !rhs.fill.empty();
      if (marks) {
        out.missing.assign(out.numbers.size(), 0);
        out.fill.assign(out.numbers.size(), 0);
      }
      for (int64_t r = 0; r < out.rows; ++r) {
        for (int64_t k = 0; k < out.width; ++k) {
          const double x = acc.Number(r, k), y = rhs.Number(r, k);
          double z = op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y;
          if (out.num == Num::kFloat32) z = static_cast<float>(z);
          const size_t at = out.At(r, k);
          out.numbers[at] = z;
          if (marks) {
            out.missing[at] = acc.Missing(r, k) || rhs.Missing(r, k);
            out.fill[at] = acc.Fill(r, k) || rhs.Fill(r, k);
          }
        }
      }
      acc = std::move(out);
    }
    return acc;
  }

  // Which orders a comparison holds for: bit 0 less, 1 equal, 2 greater,
  // 3 unordered (NaN).
  static unsigned Holding(const std::string& op) {
    return op == "<"                ? 0b0001u
           : op == "<="             ? 0b0011u
           : op == ">"              ? 0b0100u
           : op == ">="             ? 0b0110u
           : op == "=" || op == "==" ? 0b0010u
                                    : 0b1101u;
  }

  // A stored numeric field against a number literal (FMT/GQ>50, the
  // common test), straight from the field's typed values: no values are
  // made. None when the field is not such a field.
  std::optional<Value> CompareWithLiteral(const Node& n) const {
    const Node& field = n.operands[0];
    const Node& literal = n.operands[1];
    if (field.kind != Kind::kField || field.computed != Computed::kNone ||
        literal.kind != Kind::kNumber) {
      return std::nullopt;
    }
    const FieldBlock& b = Block(field.slot);
    if (b.is_string() || b.is_bool()) return std::nullopt;
    Value out;
    out.type = Value::Type::kBool;
    const std::vector<int64_t> at = ElementsOf(field, out);
    out.bools.resize(static_cast<size_t>(out.rows * out.width));
    const Num num = Promote(NumOf(b.type_id()), literal.integer ? Num::kWeakInt : Num::kWeakFloat);
    const bool in_float32 = num == Num::kFloat32;
    const double y = in_float32 ? static_cast<float>(literal.number) : literal.number;
    const unsigned holding = Holding(n.op);
    const bool lt = holding & 1u, eq = holding & 2u, gt = holding & 4u, nan = holding & 8u;
    const bool ne = n.op == "!=";
    uint8_t* decisions = out.bools.data();
    // Without branches, so that the loop vectorises: a missing value
    // against a number holds only for !=, a fill value never.
    const bool typed = VisitTyped(b, rows_, at, [&](size_t i, auto x, bool missing, bool fill) {
      double dx = static_cast<double>(x);
      if (in_float32) dx = static_cast<float>(dx);
      const bool holds = ((dx < y) & lt) | ((dx == y) & eq) | ((dx > y) & gt) | ((dx != dx) & nan);
      decisions[i] = static_cast<uint8_t>(((holds & !missing) | (missing & ne)) & !fill);
    });
    if (!typed) return std::nullopt;
    return out;
  }

  Result<Value> Comparison(const Node& n) {
    if (std::optional<Value> direct = CompareWithLiteral(n)) return std::move(*direct);
    TZ_ASSIGN_OR_RETURN(Value a, Eval(n.operands[0]));
    TZ_ASSIGN_OR_RETURN(Value b, Eval(n.operands[1]));
    if (a.matrix && b.matrix && (a.sample != b.sample || a.width != b.width)) {
      return Status::InvalidArgument(
          "cannot compare fields with incompatible dimensions: operands with different "
          "per-allele/per-sample axes have no common element");
    }
    const bool strings = a.type == Value::Type::kString;
    if (strings != (b.type == Value::Type::kString)) {
      return Misuse("'" + n.op + "' cannot compare a string with a number");
    }
    const Shape s = Broadcast(a, b);
    Value out = Empty(s, Value::Type::kBool);
    const std::string& op = n.op;
    const bool eq = op == "=" || op == "==";
    const bool ne = op == "!=";
    const Num a_num = a.type == Value::Type::kBool ? Num::kBool : a.num;
    const Num b_num = b.type == Value::Type::kBool ? Num::kBool : b.num;
    const bool in_float32 = !strings && Promote(a_num, b_num) == Num::kFloat32;
    const unsigned holding = Holding(op);
    const bool marks = !a.missing.empty() || !b.missing.empty() || !a.fill.empty() ||
                       !b.fill.empty();
    for (int64_t r = 0; r < out.rows; ++r) {
      for (int64_t k = 0; k < out.width; ++k) {
        int order;  // <0, 0, >0; 2 when unordered (NaN)
        if (strings) {
          const int c = a.strings[a.At(r, k)].compare(b.strings[b.At(r, k)]);
          order = c < 0 ? -1 : c > 0 ? 1 : 0;
        } else {
          double x = a.Number(r, k), y = b.Number(r, k);
          if (in_float32) {
            x = static_cast<float>(x);
            y = static_cast<float>(y);
          }
          order = x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;
        }
        bool holds = (holding >> (order + 1)) & 1u;
        if (marks) {
          const bool ma = a.Missing(r, k), mb = b.Missing(r, k);
          if (ma || mb) {
            const bool both = ma && mb;
            holds = eq ? both : ne ? !both : false;
          }
          if (a.Fill(r, k) || b.Fill(r, k)) holds = false;
        }
        out.bools[out.At(r, k)] = holds;
      }
    }
    return out;
  }

  // `&` and `|`, element by element, as vcztools combines them: when the
  // operands mix per-sample and per-allele values, or per-allele values of
  // different widths, each per-allele operand first becomes "any allele".
  Result<Value> ElementLogic(const Node& n) {
    std::vector<Value> values;
    bool has_sample = false;
    std::set<int64_t> widths;
    for (const Node& operand : n.operands) {
      TZ_ASSIGN_OR_RETURN(values.emplace_back(), Eval(operand));
      const Value& v = values.back();
      has_sample = has_sample || v.sample;
      if (v.matrix && !v.sample) widths.insert(v.width);
    }
    if (has_sample || widths.size() > 1) {
      for (Value& v : values) v = AnyPerVariant(v);
    }
    const bool both = n.op == "&";
    Value acc = std::move(values[0]);
    for (size_t i = 1; i < values.size(); ++i) {
      const Value& rhs = values[i];
      TZ_ASSIGN_OR_RETURN(const Shape s, Combined(acc, rhs));
      if (acc.type == Value::Type::kBool && rhs.type == Value::Type::kBool && !acc.scalar &&
          !rhs.scalar && acc.rows == rhs.rows && acc.width == rhs.width &&
          acc.bools.size() == rhs.bools.size()) {
        // Decisions of one shape: element by element, in one pass, in place.
        uint8_t* x = acc.bools.data();
        const uint8_t* y = rhs.bools.data();
        const size_t count = acc.bools.size();
        if (both) {
          for (size_t i = 0; i < count; ++i) x[i] = (x[i] != 0) & (y[i] != 0);
        } else {
          for (size_t i = 0; i < count; ++i) x[i] = (x[i] != 0) | (y[i] != 0);
        }
        acc.sample = acc.sample || rhs.sample;
        acc.matrix = acc.matrix || rhs.matrix;
        continue;
      }
      Value out = Empty(s, Value::Type::kBool);
      for (int64_t r = 0; r < out.rows; ++r) {
        for (int64_t k = 0; k < out.width; ++k) {
          const bool x = acc.Truth(r, k), y = rhs.Truth(r, k);
          out.bools[out.At(r, k)] = both ? (x && y) : (x || y);
        }
      }
      acc = std::move(out);
    }
    return acc;
  }

  // `&&` and `||`, as bcftools combines them: a variant passes `A && B`
  // when A holds in some sample and B in some sample (not necessarily the
  // same), and the samples either holds in pass; `A || B` passes when either
  // holds, with every sample, unless the side that holds is a per-variant
  // one that failed while the other side is per-sample.
  Result<Value> SampleLogic(const Node& n) {
    const bool both = n.op == "&&";
    TZ_ASSIGN_OR_RETURN(Value acc, Eval(n.operands[0]));
    acc = AnyPerVariant(acc);
    for (size_t i = 1; i < n.operands.size(); ++i) {
      TZ_ASSIGN_OR_RETURN(Value rhs, Eval(n.operands[i]));
      rhs = AnyPerVariant(rhs);
      Shape s = Broadcast(acc, rhs);
      if (s.scalar) s.rows = 1;
      Value out = Empty(s, Value::Type::kBool);
      for (int64_t r = 0; r < out.rows; ++r) {
        const bool x = AnyInRow(acc, acc.scalar ? 0 : r), y = AnyInRow(rhs, rhs.scalar ? 0 : r);
        const bool site = both ? (x && y) : (x || y);
        if (!out.matrix) {
          out.bools[out.At(r, 0)] = site;
          continue;
        }
        for (int64_t k = 0; k < out.width; ++k) {
          bool pass = false;
          if (site) {
            const bool xs = acc.matrix ? acc.Truth(r, k) : false;
            const bool ys = rhs.matrix ? rhs.Truth(r, k) : false;
            if (both) {
              pass = acc.matrix && rhs.matrix ? (xs || ys) : acc.matrix ? xs : ys;
            } else if ((!acc.matrix && !x) || (!rhs.matrix && !y)) {
              pass = acc.matrix ? xs : ys;
            } else {
              pass = true;
            }
          }
          out.bools[out.At(r, k)] = pass;
        }
      }
      acc = std::move(out);
    }
    return acc;
  }

  const VariantFilter::Compiled& c_;
  const std::vector<const FieldBlock*>& blocks_;
  int64_t rows_;
};

}  // namespace

Result<VariantFilter> VariantFilter::Compile(
    const VczDataset& dataset, std::string_view expression, bool exclude,
    std::vector<int64_t> columns, std::optional<std::vector<int64_t>> computed_columns,
    bool recount) {
  TZ_ASSIGN_OR_RETURN(FilterNode tree, ParseFilterExpression(expression));
  auto c = std::make_shared<Compiled>();
  c->exclude = exclude;
  c->computed_columns = computed_columns ? std::move(*computed_columns) : columns;
  c->columns = std::move(columns);
  c->dataset = dataset.Describe();
  TZ_ASSIGN_OR_RETURN(c->root, Compiler(dataset, *c, recount).Compile(tree));
  if (c->root.kind == Kind::kNumber || c->root.kind == Kind::kString) {
    return Status::InvalidArgument("filter expression: a literal alone decides nothing");
  }
  VariantFilter f;
  f.compiled_ = std::move(c);
  return f;
}

const std::vector<std::string>& VariantFilter::arrays() const { return compiled_->arrays; }

bool VariantFilter::sample_scope() const { return compiled_->root.sample; }

Result<FilterOutcome> VariantFilter::Evaluate(const std::vector<const FieldBlock*>& blocks,
                                              int64_t rows) const {
  Evaluator e(*compiled_, blocks, rows);
  TZ_ASSIGN_OR_RETURN(Value v, e.Eval(compiled_->root));
  if (v.type != Value::Type::kBool) {
    return Status::InvalidArgument(
        "filter expression: it yields values, not a decision (compare them with something)");
  }
  // -e inverts every element before a per-allele matrix is reduced, as
  // vcztools does.
  if (compiled_->exclude) {
    for (uint8_t& b : v.bools) b = !b;
  }
  FilterOutcome out;
  out.variants.assign(static_cast<size_t>(rows), 0);
  const bool sample = compiled_->root.sample && v.matrix;
  if (sample && !v.scalar && v.bools.size() == static_cast<size_t>(rows * v.width)) {
    // Per-sample decisions as they are; a variant passes where one holds.
    out.samples = std::move(v.bools);  // 0 or 1, as every decision is made
    const size_t width = static_cast<size_t>(v.width);
    for (size_t r = 0; r < static_cast<size_t>(rows); ++r) {
      const uint8_t* row = out.samples.data() + r * width;
      out.variants[r] = std::find(row, row + width, 1) != row + width;
    }
    return out;
  }
  if (sample) out.samples.assign(static_cast<size_t>(rows * v.width), 0);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t row = v.scalar ? 0 : r;
    bool any = false;
    for (int64_t k = 0; k < (v.matrix ? v.width : 1); ++k) {
      const bool holds = v.Truth(row, k);
      any = any || holds;
      if (sample) out.samples[static_cast<size_t>(r * v.width + k)] = holds;
    }
    out.variants[static_cast<size_t>(r)] = any;
  }
  return out;
}

}  // namespace turbozarr::vcz::internal

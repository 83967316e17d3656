#include "dtype/low_precision.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace turbozarr::internal {
namespace {

struct Case {
  double value;
  uint32_t bits;
};
struct TypeCases {
  DataTypeId id;
  std::vector<Case> cases;
};

// ml_dtypes 0.7.0: np.array([value]).astype(ml_dtypes.<type>).view(uint8/16).
const std::vector<TypeCases>& MlDtypesCases() {
  static const std::vector<TypeCases> kCases = {
    {DataTypeId::kBFloat16, {{NAN, 0x7fc0}, {-NAN, 0xffc0}, {INFINITY, 0x7f80}, {-INFINITY, 0xff80}, {0.0, 0x0}, {-0.0, 0x8000}, {1e30, 0x714a}, {-1e30, 0xf14a}, {1e-30, 0xda2}, {-1e-30, 0x8da2}, {500.0, 0x43fa}, {7.0, 0x40e0}, {1.5, 0x3fc0}, {3.0, 0x4040}, {-0.1, 0xbdcd}, {0.3, 0x3e9a}, {std::ldexp(1.0, -127), 0x40}, {std::ldexp(1.0, -128), 0x20}, {std::ldexp(1.5, -127), 0x60}, {std::ldexp(1.0, -130), 0x8}, {0.75, 0x3f40}, {1e300, 0x7f80}, {240.0, 0x4370}, {248.0, 0x4378}, {449.0, 0x43e0}, {464.0, 0x43e8}, {6.5, 0x40d0}, {29.0, 0x41e8}, {0.015625, 0x3c80}, {0.0078125, 0x3c00}, {0.001, 0x3a83}}},
    {DataTypeId::kFloat8E4M3FN, {{NAN, 0x7f}, {-NAN, 0xff}, {INFINITY, 0x7f}, {-INFINITY, 0xff}, {0.0, 0x0}, {-0.0, 0x80}, {1e30, 0x7f}, {-1e30, 0xff}, {1e-30, 0x0}, {-1e-30, 0x80}, {500.0, 0x7f}, {7.0, 0x4e}, {1.5, 0x3c}, {3.0, 0x44}, {-0.1, 0x9d}, {0.3, 0x2a}, {std::ldexp(1.0, -127), 0x0}, {std::ldexp(1.0, -128), 0x0}, {std::ldexp(1.5, -127), 0x0}, {std::ldexp(1.0, -130), 0x0}, {0.75, 0x34}, {1e300, 0x7f}, {240.0, 0x77}, {248.0, 0x78}, {449.0, 0x7e}, {464.0, 0x7e}, {6.5, 0x4d}, {29.0, 0x5e}, {0.015625, 0x8}, {0.0078125, 0x4}, {0.001, 0x1}}},
    {DataTypeId::kFloat8E5M2, {{NAN, 0x7e}, {-NAN, 0xfe}, {INFINITY, 0x7c}, {-INFINITY, 0xfc}, {0.0, 0x0}, {-0.0, 0x80}, {1e30, 0x7c}, {-1e30, 0xfc}, {1e-30, 0x0}, {-1e-30, 0x80}, {500.0, 0x60}, {7.0, 0x47}, {1.5, 0x3e}, {3.0, 0x42}, {-0.1, 0xae}, {0.3, 0x35}, {std::ldexp(1.0, -127), 0x0}, {std::ldexp(1.0, -128), 0x0}, {std::ldexp(1.5, -127), 0x0}, {std::ldexp(1.0, -130), 0x0}, {0.75, 0x3a}, {1e300, 0x7c}, {240.0, 0x5c}, {248.0, 0x5c}, {449.0, 0x5f}, {464.0, 0x5f}, {6.5, 0x46}, {29.0, 0x4f}, {0.015625, 0x24}, {0.0078125, 0x20}, {0.001, 0x14}}},
    {DataTypeId::kFloat8E4M3FNUZ, {{NAN, 0x80}, {-NAN, 0x80}, {INFINITY, 0x80}, {-INFINITY, 0x80}, {0.0, 0x0}, {-0.0, 0x0}, {1e30, 0x80}, {-1e30, 0x80}, {1e-30, 0x0}, {-1e-30, 0x0}, {500.0, 0x80}, {7.0, 0x56}, {1.5, 0x44}, {3.0, 0x4c}, {-0.1, 0xa5}, {0.3, 0x32}, {std::ldexp(1.0, -127), 0x0}, {std::ldexp(1.0, -128), 0x0}, {std::ldexp(1.5, -127), 0x0}, {std::ldexp(1.0, -130), 0x0}, {0.75, 0x3c}, {1e300, 0x80}, {240.0, 0x7f}, {248.0, 0x80}, {449.0, 0x80}, {464.0, 0x80}, {6.5, 0x55}, {29.0, 0x66}, {0.015625, 0x10}, {0.0078125, 0x8}, {0.001, 0x1}}},
    {DataTypeId::kFloat8E5M2FNUZ, {{NAN, 0x80}, {-NAN, 0x80}, {INFINITY, 0x80}, {-INFINITY, 0x80}, {0.0, 0x0}, {-0.0, 0x0}, {1e30, 0x80}, {-1e30, 0x80}, {1e-30, 0x0}, {-1e-30, 0x0}, {500.0, 0x64}, {7.0, 0x4b}, {1.5, 0x42}, {3.0, 0x46}, {-0.1, 0xb2}, {0.3, 0x39}, {std::ldexp(1.0, -127), 0x0}, {std::ldexp(1.0, -128), 0x0}, {std::ldexp(1.5, -127), 0x0}, {std::ldexp(1.0, -130), 0x0}, {0.75, 0x3e}, {1e300, 0x80}, {240.0, 0x60}, {248.0, 0x60}, {449.0, 0x63}, {464.0, 0x63}, {6.5, 0x4a}, {29.0, 0x53}, {0.015625, 0x28}, {0.0078125, 0x24}, {0.001, 0x18}}},
    {DataTypeId::kFloat8E4M3B11FNUZ, {{NAN, 0x80}, {-NAN, 0x80}, {INFINITY, 0x80}, {-INFINITY, 0x80}, {0.0, 0x0}, {-0.0, 0x0}, {1e30, 0x80}, {-1e30, 0x80}, {1e-30, 0x0}, {-1e-30, 0x0}, {500.0, 0x80}, {7.0, 0x6e}, {1.5, 0x5c}, {3.0, 0x64}, {-0.1, 0xbd}, {0.3, 0x4a}, {std::ldexp(1.0, -127), 0x0}, {std::ldexp(1.0, -128), 0x0}, {std::ldexp(1.5, -127), 0x0}, {std::ldexp(1.0, -130), 0x0}, {0.75, 0x54}, {1e300, 0x80}, {240.0, 0x80}, {248.0, 0x80}, {449.0, 0x80}, {464.0, 0x80}, {6.5, 0x6d}, {29.0, 0x7e}, {0.015625, 0x28}, {0.0078125, 0x20}, {0.001, 0x8}}},
    {DataTypeId::kFloat8E3M4, {{NAN, 0x78}, {-NAN, 0xf8}, {INFINITY, 0x70}, {-INFINITY, 0xf0}, {0.0, 0x0}, {-0.0, 0x80}, {1e30, 0x70}, {-1e30, 0xf0}, {1e-30, 0x0}, {-1e-30, 0x80}, {500.0, 0x70}, {7.0, 0x5c}, {1.5, 0x38}, {3.0, 0x48}, {-0.1, 0x86}, {0.3, 0x13}, {std::ldexp(1.0, -127), 0x0}, {std::ldexp(1.0, -128), 0x0}, {std::ldexp(1.5, -127), 0x0}, {std::ldexp(1.0, -130), 0x0}, {0.75, 0x28}, {1e300, 0x70}, {240.0, 0x70}, {248.0, 0x70}, {449.0, 0x70}, {464.0, 0x70}, {6.5, 0x5a}, {29.0, 0x70}, {0.015625, 0x1}, {0.0078125, 0x0}, {0.001, 0x0}}},
    {DataTypeId::kFloat8E4M3, {{NAN, 0x7c}, {-NAN, 0xfc}, {INFINITY, 0x78}, {-INFINITY, 0xf8}, {0.0, 0x0}, {-0.0, 0x80}, {1e30, 0x78}, {-1e30, 0xf8}, {1e-30, 0x0}, {-1e-30, 0x80}, {500.0, 0x78}, {7.0, 0x4e}, {1.5, 0x3c}, {3.0, 0x44}, {-0.1, 0x9d}, {0.3, 0x2a}, {std::ldexp(1.0, -127), 0x0}, {std::ldexp(1.0, -128), 0x0}, {std::ldexp(1.5, -127), 0x0}, {std::ldexp(1.0, -130), 0x0}, {0.75, 0x34}, {1e300, 0x78}, {240.0, 0x77}, {248.0, 0x78}, {449.0, 0x78}, {464.0, 0x78}, {6.5, 0x4d}, {29.0, 0x5e}, {0.015625, 0x8}, {0.0078125, 0x4}, {0.001, 0x1}}},
    {DataTypeId::kFloat8E8M0FNU, {{NAN, 0xff}, {-NAN, 0xff}, {INFINITY, 0xff}, {-INFINITY, 0xff}, {0.0, 0xff}, {-0.0, 0xff}, {1e30, 0xe3}, {-1e30, 0xff}, {1e-30, 0x1b}, {-1e-30, 0xff}, {500.0, 0x88}, {7.0, 0x82}, {1.5, 0x80}, {3.0, 0x81}, {-0.1, 0xff}, {0.3, 0x7d}, {std::ldexp(1.0, -127), 0x0}, {std::ldexp(1.0, -128), 0x0}, {std::ldexp(1.5, -127), 0x1}, {std::ldexp(1.0, -130), 0x0}, {0.75, 0x7f}, {1e300, 0xff}, {240.0, 0x87}, {248.0, 0x87}, {449.0, 0x88}, {464.0, 0x88}, {6.5, 0x82}, {29.0, 0x84}, {0.015625, 0x79}, {0.0078125, 0x78}, {0.001, 0x75}}},
    {DataTypeId::kFloat4E2M1FN, {{NAN, 0x8}, {-NAN, 0x0}, {INFINITY, 0x7}, {-INFINITY, 0xf}, {0.0, 0x0}, {-0.0, 0x8}, {1e30, 0x7}, {-1e30, 0xf}, {1e-30, 0x0}, {-1e-30, 0x8}, {500.0, 0x7}, {7.0, 0x7}, {1.5, 0x3}, {3.0, 0x5}, {-0.1, 0x8}, {0.3, 0x1}, {std::ldexp(1.0, -127), 0x0}, {std::ldexp(1.0, -128), 0x0}, {std::ldexp(1.5, -127), 0x0}, {std::ldexp(1.0, -130), 0x0}, {0.75, 0x2}, {1e300, 0x7}, {240.0, 0x7}, {248.0, 0x7}, {449.0, 0x7}, {464.0, 0x7}, {6.5, 0x7}, {29.0, 0x7}, {0.015625, 0x0}, {0.0078125, 0x0}, {0.001, 0x0}}},
    {DataTypeId::kFloat6E2M3FN, {{NAN, 0x20}, {-NAN, 0x0}, {INFINITY, 0x1f}, {-INFINITY, 0x3f}, {0.0, 0x0}, {-0.0, 0x20}, {1e30, 0x1f}, {-1e30, 0x3f}, {1e-30, 0x0}, {-1e-30, 0x20}, {500.0, 0x1f}, {7.0, 0x1e}, {1.5, 0xc}, {3.0, 0x14}, {-0.1, 0x21}, {0.3, 0x2}, {std::ldexp(1.0, -127), 0x0}, {std::ldexp(1.0, -128), 0x0}, {std::ldexp(1.5, -127), 0x0}, {std::ldexp(1.0, -130), 0x0}, {0.75, 0x6}, {1e300, 0x1f}, {240.0, 0x1f}, {248.0, 0x1f}, {449.0, 0x1f}, {464.0, 0x1f}, {6.5, 0x1d}, {29.0, 0x1f}, {0.015625, 0x0}, {0.0078125, 0x0}, {0.001, 0x0}}},
    {DataTypeId::kFloat6E3M2FN, {{NAN, 0x20}, {-NAN, 0x0}, {INFINITY, 0x1f}, {-INFINITY, 0x3f}, {0.0, 0x0}, {-0.0, 0x20}, {1e30, 0x1f}, {-1e30, 0x3f}, {1e-30, 0x0}, {-1e-30, 0x20}, {500.0, 0x1f}, {7.0, 0x17}, {1.5, 0xe}, {3.0, 0x12}, {-0.1, 0x22}, {0.3, 0x5}, {std::ldexp(1.0, -127), 0x0}, {std::ldexp(1.0, -128), 0x0}, {std::ldexp(1.5, -127), 0x0}, {std::ldexp(1.0, -130), 0x0}, {0.75, 0xa}, {1e300, 0x1f}, {240.0, 0x1f}, {248.0, 0x1f}, {449.0, 0x1f}, {464.0, 0x1f}, {6.5, 0x16}, {29.0, 0x1f}, {0.015625, 0x0}, {0.0078125, 0x0}, {0.001, 0x0}}},
  };
  return kCases;
}

TEST(LowPrecisionTest, RoundsAsMlDtypes) {
  for (const TypeCases& t : MlDtypesCases()) {
    const MiniFloatFormat* f = MiniFloatFormatOf(t.id);
    ASSERT_NE(f, nullptr);
    for (const Case& c : t.cases) {
      EXPECT_EQ(DoubleToMiniFloat(*f, c.value), c.bits)
          << DataType(t.id).ToString() << " of " << c.value;
    }
  }
}

TEST(LowPrecisionTest, EveryValueRoundTrips) {
  for (const TypeCases& t : MlDtypesCases()) {
    const MiniFloatFormat& f = *MiniFloatFormatOf(t.id);
    for (uint32_t bits = 0; bits < (1u << f.bits); ++bits) {
      const double v = MiniFloatToDouble(f, bits);
      if (MiniFloatIsNaN(f, bits)) {
        EXPECT_TRUE(std::isnan(v));
        continue;
      }
      EXPECT_EQ(DoubleToMiniFloat(f, v), bits) << DataType(t.id).ToString() << " " << bits;
    }
  }
}

TEST(LowPrecisionTest, DecodesValues) {
  auto value = [](DataTypeId id, uint32_t bits) {
    return MiniFloatToDouble(*MiniFloatFormatOf(id), bits);
  };
  EXPECT_EQ(value(DataTypeId::kBFloat16, 0x3f80), 1.0);
  EXPECT_EQ(value(DataTypeId::kBFloat16, 0xc040), -3.0);
  EXPECT_EQ(value(DataTypeId::kBFloat16, 0x7f80), INFINITY);
  EXPECT_EQ(value(DataTypeId::kFloat8E4M3FN, 0x7e), 448.0);
  EXPECT_TRUE(std::isnan(value(DataTypeId::kFloat8E4M3FN, 0xff)));
  EXPECT_EQ(value(DataTypeId::kFloat8E4M3FN, 0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(value(DataTypeId::kFloat8E5M2, 0x7b), 57344.0);
  EXPECT_EQ(value(DataTypeId::kFloat8E4M3FNUZ, 0x7f), 240.0);
  EXPECT_TRUE(std::isnan(value(DataTypeId::kFloat8E4M3FNUZ, 0x80)));
  EXPECT_EQ(value(DataTypeId::kFloat8E4M3B11FNUZ, 0x7f), 30.0);
  EXPECT_EQ(value(DataTypeId::kFloat8E3M4, 0x6f), 15.5);
  EXPECT_EQ(value(DataTypeId::kFloat8E4M3, 0x77), 240.0);
  EXPECT_EQ(value(DataTypeId::kFloat8E8M0FNU, 0x7f), 1.0);
  EXPECT_EQ(value(DataTypeId::kFloat8E8M0FNU, 0x00), std::ldexp(1.0, -127));
  EXPECT_TRUE(std::isnan(value(DataTypeId::kFloat8E8M0FNU, 0xff)));
  EXPECT_EQ(value(DataTypeId::kFloat4E2M1FN, 0x7), 6.0);
  EXPECT_EQ(value(DataTypeId::kFloat4E2M1FN, 0xf7), 6.0);  // high bits ignored
  EXPECT_EQ(value(DataTypeId::kFloat4E2M1FN, 0x9), -0.5);
  EXPECT_EQ(value(DataTypeId::kFloat6E2M3FN, 0x1f), 7.5);
  EXPECT_EQ(value(DataTypeId::kFloat6E3M2FN, 0x1f), 28.0);
}

TEST(LowPrecisionTest, OnlyLowPrecisionFloatsHaveAFormat) {
  EXPECT_EQ(MiniFloatFormatOf(DataTypeId::kFloat16), nullptr);
  EXPECT_EQ(MiniFloatFormatOf(DataTypeId::kInt4), nullptr);
}

}  // namespace
}  // namespace turbozarr::internal

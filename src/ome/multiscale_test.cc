#include <gtest/gtest.h>

#include <string>

#include "turbozarr/ome.h"

namespace turbozarr::ome {
namespace {

using nlohmann::json;

const json kImage04 = json::parse(R"({
  "multiscales": [{
    "version": "0.4", "name": "cells",
    "axes": [{"name": "c", "type": "channel"},
             {"name": "z", "type": "space", "unit": "micrometer"},
             {"name": "y", "type": "space", "unit": "micrometer"},
             {"name": "x", "type": "space", "unit": "micrometer"}],
    "datasets": [
      {"path": "0", "coordinateTransformations": [{"type": "scale", "scale": [1, 2, 0.5, 0.5]}]},
      {"path": "1", "coordinateTransformations": [{"type": "scale", "scale": [1, 2, 1, 1]},
                                                  {"type": "translation", "translation": [0, 0, 0.25, 0.25]}]}
    ],
    "type": "mean"
  }],
  "omero": {"channels": [{"label": "DAPI"}]}
})");

TEST(MultiscaleTest, ReadsNgff04AndWritesItBack) {
  auto m = ParseMultiscale(kImage04, "group 'img'");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->version, "0.4");
  EXPECT_EQ(m->name, "cells");
  ASSERT_EQ(m->axes.size(), 4u);
  EXPECT_EQ(m->axes[1], (Axis{"z", "space", "micrometer"}));
  ASSERT_EQ(m->levels.size(), 2u);
  EXPECT_EQ(m->levels[0].scale, (std::vector<double>{1, 2, 0.5, 0.5}));
  EXPECT_FALSE(m->levels[0].translation);
  EXPECT_EQ(*m->levels[1].translation, (std::vector<double>{0, 0, 0.25, 0.25}));
  EXPECT_EQ(m->type, "mean");
  // Written back: the same document, other attributes kept.
  json omero = {{"omero", kImage04["omero"]}};
  EXPECT_EQ(WriteMultiscale(*m, omero), kImage04);
}

TEST(MultiscaleTest, ReadsNgff05InsideOme) {
  json a = {{"ome", {{"version", "0.5"}, {"multiscales", kImage04["multiscales"]}}}};
  a["ome"]["multiscales"][0].erase("version");
  auto m = ParseMultiscale(a, "group 'img'");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->version, "0.5");
  EXPECT_EQ(m->levels.size(), 2u);
  EXPECT_EQ(WriteMultiscale(*m), a);
  // The same multiscale as 0.4.
  m->version = "0.4";
  EXPECT_EQ(WriteMultiscale(*m, {{"omero", kImage04["omero"]}}), kImage04);
}

void ExpectRefused(const json& attributes, const std::string& words) {
  auto m = ParseMultiscale(attributes, "group 'img' in file:///x");
  ASSERT_FALSE(m.ok()) << words;
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(m.status().message().find(words), std::string::npos) << m.status().ToString();
  EXPECT_NE(m.status().message().find("group 'img' in file:///x"), std::string::npos);
}

TEST(MultiscaleTest, WhatIsNotAnImageIsRefusedNamingTheField) {
  ExpectRefused(json::object(), "not an OME-Zarr image");
  json v = kImage04;
  v["multiscales"][0]["version"] = "0.6";
  ExpectRefused(v, "multiscales[0].version is \"0.6\"");
  json ome = {{"ome", {{"version", "0.6"}, {"multiscales", kImage04["multiscales"]}}}};
  ExpectRefused(ome, "ome.version is \"0.6\"");
  json type = kImage04;
  type["multiscales"][0]["axes"][1]["type"] = "spaec";
  ExpectRefused(type, "multiscales[0].axes[1].type is \"spaec\"");
  json order = kImage04;
  std::swap(order["multiscales"][0]["axes"][0], order["multiscales"][0]["axes"][1]);
  ExpectRefused(order, "NGFF orders time, channel, then space");
  json scale = kImage04;
  scale["multiscales"][0]["datasets"][1]["coordinateTransformations"][0]["scale"] = {1, 2};
  ExpectRefused(scale, "multiscales[0].datasets[1].coordinateTransformations[0].scale must be "
                       "a list of 4 numbers");
  json no_path = kImage04;
  no_path["multiscales"][0]["datasets"][0].erase("path");
  ExpectRefused(no_path, "multiscales[0].datasets[0] has no \"path\"");
  json twice = kImage04;
  twice["multiscales"][0]["axes"][2]["name"] = "x";
  ExpectRefused(twice, "names \"x\" twice");
}

TEST(MultiscaleTest, MethodNames) {
  for (const char* name : {"mean", "nearest", "linear", "mode"}) {
    auto m = ParseDownsampleMethod(name);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(DownsampleMethodName(*m), name);
  }
  EXPECT_NE(ParseDownsampleMethod("gaussian").status().message().find("known: mean"),
            std::string::npos);
}

}  // namespace
}  // namespace turbozarr::ome

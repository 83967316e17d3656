// The AWS shared-file INI reader: sections, properties, comments, "s3 ="
// blocks, line numbers, and a clean error naming file and line for each kind
// of malformed line.
#include "store/aws_ini.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "testing/aws_test_environment.h"

namespace turbozarr::internal {
namespace {

AwsIniFile MustParse(std::string_view text) {
  Result<AwsIniFile> f = ParseAwsIni(text, "/x/config");
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  return f.ok() ? *f : AwsIniFile{};
}

std::string ValueOf(const AwsIniFile& f, std::string_view section,
                    std::string_view name) {
  const AwsIniSection* s = f.Find(section);
  if (s == nullptr) return "<no section>";
  const AwsIniValue* v = s->Find(name);
  return v != nullptr ? v->value : "<absent>";
}

TEST(AwsIniTest, SectionsPropertiesAndComments) {
  const AwsIniFile f = MustParse(
      "\xEF\xBB\xBF# leading comment\n"
      "[default]\r\n"
      "aws_access_key_id = AKID\r\n"
      "Region=eu-west-1   \n"
      "; another comment\n"
      "\n"
      "[profile  dev ] # comment after the header\n"
      "output: json\n"
      "endpoint_url = http://host:9000 # inline, after a blank\n"
      "token = a#b;c\n"
      "empty =\n");
  ASSERT_EQ(f.sections.size(), 2u);
  EXPECT_EQ(f.sections[0].name, "default");
  EXPECT_EQ(f.sections[0].line, 2);
  EXPECT_EQ(f.sections[1].name, "profile  dev");
  EXPECT_EQ(f.sections[1].line, 7);
  EXPECT_EQ(ValueOf(f, "default", "aws_access_key_id"), "AKID");
  EXPECT_EQ(ValueOf(f, "default", "region"), "eu-west-1") << "names are case-insensitive";
  EXPECT_EQ(f.sections[0].Find("region")->line, 4);
  EXPECT_EQ(ValueOf(f, "profile  dev", "output"), "json") << "':' separates too";
  EXPECT_EQ(ValueOf(f, "profile  dev", "endpoint_url"), "http://host:9000");
  EXPECT_EQ(ValueOf(f, "profile  dev", "token"), "a#b;c")
      << "'#' and ';' start a comment only after a blank";
  EXPECT_EQ(ValueOf(f, "profile  dev", "empty"), "");
  EXPECT_EQ(ValueOf(f, "default", "output"), "<absent>");
  EXPECT_EQ(f.Find("dev"), nullptr);
}

TEST(AwsIniTest, IndentedBlocksHoldSubProperties) {
  const AwsIniFile f = MustParse(
      "[profile p]\n"
      "s3 =\n"
      "  addressing_style = path\n"
      "\n"
      "  # a comment inside the block\n"
      "  Endpoint_URL = http://s3.local\n"
      "region = us-west-2\n");
  const AwsIniSection* s = f.Find("profile p");
  ASSERT_NE(s, nullptr);
  ASSERT_NE(s->FindIn("s3", "addressing_style"), nullptr);
  EXPECT_EQ(s->FindIn("s3", "addressing_style")->value, "path");
  EXPECT_EQ(s->FindIn("s3", "addressing_style")->line, 3);
  ASSERT_NE(s->FindIn("s3", "endpoint_url"), nullptr);
  EXPECT_EQ(s->FindIn("s3", "endpoint_url")->value, "http://s3.local");
  EXPECT_EQ(s->FindIn("s3", "region"), nullptr);
  EXPECT_EQ(s->FindIn("dynamodb", "endpoint_url"), nullptr);
  EXPECT_EQ(s->Find("s3")->value, "");
  EXPECT_EQ(s->Find("region")->value, "us-west-2");
  ASSERT_EQ(s->blocks.count("region"), 0u) << "a property with a value has no block";
}

TEST(AwsIniTest, IndentedPropertiesAfterAHeaderAreOrdinary) {
  const AwsIniFile f = MustParse("[a]\n   x = 1\n   y = 2\n");
  EXPECT_EQ(ValueOf(f, "a", "x"), "1");
  EXPECT_EQ(ValueOf(f, "a", "y"), "2");
}

TEST(AwsIniTest, MalformedLinesNameFileAndLine) {
  struct Case {
    const char* text;
    int line;
    const char* what;
  };
  const Case cases[] = {
      {"region = x\n", 1, "before the first [section]"},
      {"# c\n\n[a]\nx = 1\naws_secret_access_key SECRETVALUE\n", 5, "name = value"},
      {"[a\nx = 1\n", 1, "closing ']'"},
      {"[ ]\n", 1, "without a name"},
      {"[a] junk\n", 1, "after a section header"},
      {"[a]\nx = 1\n[b]\n[a]\n", 4, "appears twice (first on line 1)"},
      {"[a]\nx = 1\nX = 2\n", 3, "appears twice in section [a] (first on line 2)"},
      {"[a]\ns3 =\n  k = 1\n  k = 2\n", 4, "'k' appears twice under 's3'"},
      {"[a]\nregion = x\n  more\n", 3, "already has a value"},
      {"[a]\n = 1\n", 2, "without a name"},
      {"[a]\ns3 =\n  no equals sign\n", 3, "name = value"},
  };
  for (const Case& c : cases) {
    Result<AwsIniFile> f = ParseAwsIni(c.text, "/home/u/.aws/config");
    ASSERT_FALSE(f.ok()) << c.text;
    EXPECT_EQ(f.status().code(), StatusCode::kInvalidArgument) << c.text;
    const std::string& m = f.status().message();
    EXPECT_NE(m.find("/home/u/.aws/config:" + std::to_string(c.line) + ": "),
              std::string::npos)
        << c.text << " -> " << m;
    EXPECT_NE(m.find(c.what), std::string::npos) << c.text << " -> " << m;
    EXPECT_EQ(m.find("SECRETVALUE"), std::string::npos) << "no line is echoed: " << m;
  }
}

TEST(AwsIniTest, EmptyAndCommentOnlyFilesHaveNoSections) {
  EXPECT_TRUE(MustParse("").sections.empty());
  EXPECT_TRUE(MustParse("\n# only\n; comments\n\n").sections.empty());
}

TEST(AwsIniTest, ReadingFiles) {
  AwsTestEnvironment env;  // for its scratch directory
  Result<std::optional<AwsIniFile>> missing = ReadAwsIniFile(env.dir() + "/absent");
  ASSERT_TRUE(missing.ok()) << missing.status().ToString();
  EXPECT_FALSE(missing->has_value()) << "a missing file is no error";
  env.WriteConfig("[default]\nregion = ap-east-1\n");
  Result<std::optional<AwsIniFile>> under_file =
      ReadAwsIniFile(env.config_path() + "/config");
  ASSERT_TRUE(under_file.ok()) << under_file.status().ToString();
  EXPECT_FALSE(under_file->has_value());

  Result<std::optional<AwsIniFile>> read = ReadAwsIniFile(env.config_path());
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_TRUE(read->has_value());
  EXPECT_EQ(ValueOf(**read, "default", "region"), "ap-east-1");
  EXPECT_EQ((*read)->path, env.config_path());

  std::filesystem::create_directory(env.dir() + "/adir");
  Result<std::optional<AwsIniFile>> dir = ReadAwsIniFile(env.dir() + "/adir");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().code(), StatusCode::kIOError);
  EXPECT_NE(dir.status().message().find(env.dir() + "/adir"), std::string::npos)
      << dir.status().ToString();

  env.WriteConfig("[default]\nregion\n");
  Result<std::optional<AwsIniFile>> bad = ReadAwsIniFile(env.config_path());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(env.config_path() + ":2:"), std::string::npos)
      << bad.status().ToString();
}

}  // namespace
}  // namespace turbozarr::internal

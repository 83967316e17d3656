// AwsIni: the INI dialect of the AWS shared files (~/.aws/config and
// ~/.aws/credentials), read as the AWS CLI (botocore, through Python's
// configparser) reads it:
//
//   # a comment            ; also a comment
//   [profile dev]          section header (anything after ']' is ignored)
//   region = eu-west-1     "name = value" (or "name: value"); names are
//                          case-insensitive and kept in lower case
//   s3 =                   a property with an empty value followed by lines
//     addressing_style = path   indented deeper holds sub-properties
//
// Values are trimmed; a '#' or ';' that follows whitespace starts a comment
// (the rule of the AWS SDKs; the CLI keeps such text, but no key or region
// holds it). A property outside a section, a line that is neither header nor
// property, a duplicate section or property, or an indented line under a
// property that has a value (a continuation line, which nothing in these
// files uses) is an error naming the file and the line.
//
// Thread safety: plain values and pure functions; ReadAwsIniFile reads the
// file system.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "turbozarr/status.h"

namespace turbozarr::internal {

struct AwsIniValue {
  std::string value;
  int line = 0;  // 1-based, for messages
};

struct AwsIniSection {
  std::string name;  // between the brackets, trimmed: "default", "profile dev"
  int line = 0;
  std::map<std::string, AwsIniValue> properties;
  // The sub-properties of "name =" blocks, by the name of the block.
  std::map<std::string, std::map<std::string, AwsIniValue>> blocks;

  // The value of property `name`, or nullptr.
  const AwsIniValue* Find(std::string_view name) const;
  // The value of sub-property `name` of block `block`, or nullptr.
  const AwsIniValue* FindIn(std::string_view block, std::string_view name) const;
};

struct AwsIniFile {
  std::string path;  // as given, for messages
  std::vector<AwsIniSection> sections;

  // The section named exactly `name`, or nullptr.
  const AwsIniSection* Find(std::string_view name) const;
  // "<path>:<line>", for messages.
  std::string Where(int line) const;
};

// Parses `text`; errors are InvalidArgument and name `path` and the line.
Result<AwsIniFile> ParseAwsIni(std::string_view text, std::string path);

// Reads and parses the file at `path`. A file that does not exist is nullopt,
// not an error; one that cannot be read (a directory, no permission) is.
Result<std::optional<AwsIniFile>> ReadAwsIniFile(const std::string& path);

}  // namespace turbozarr::internal

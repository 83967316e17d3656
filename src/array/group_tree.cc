// Group::Tree: the hierarchy below a group drawn with box characters, arrays
// with their shape and data type, e.g.
//   /
//   ├── images
//   │   └── raw (512, 512) uint16
//   └── labels (512, 512) int32
#include "turbozarr/group.h"

namespace turbozarr {
namespace {

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d > 0) s += ", ";
    s += std::to_string(shape[d]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

}  // namespace

Result<std::string> Group::Tree() const {
  std::string out = path_.empty() ? "/" : path_;
  out += "\n";
  TZ_RETURN_NOT_OK(TreeLines("", out));
  return out;
}

Status Group::TreeLines(const std::string& indent, std::string& out) const {
  TZ_ASSIGN_OR_RETURN(std::vector<NodeInfo> members, Members());
  for (size_t i = 0; i < members.size(); ++i) {
    const NodeInfo& m = members[i];
    const bool last = i + 1 == members.size();
    out += indent + (last ? "└── " : "├── ") + m.name;
    if (m.kind == NodeKind::kArray) {
      TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> array, OpenArray(m.name));
      out += " " + ShapeString(array->shape()) + " " + array->dtype().ToString() + "\n";
      continue;
    }
    out += "\n";
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<Group> child, OpenGroup(m.name));
    TZ_RETURN_NOT_OK(child->TreeLines(indent + (last ? "    " : "│   "), out));
  }
  return Status::OK();
}

}  // namespace turbozarr

// Group bindings: open/create, members, the tree view and consolidated
// metadata, and InspectNode / OpenNode for "whatever is at this path".
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "errors.h"
#include "turbozarr/checksum.h"
#include "turbozarr/group.h"

namespace nb = nanobind;

namespace turbozarr::python {
namespace {

const char* NodeKindName(NodeKind kind) {
  return kind == NodeKind::kArray ? "array" : "group";
}

GroupCreateOptions MakeGroupOptions(int zarr_format, const std::string& attributes_json,
                                    bool overwrite) {
  GroupCreateOptions options;
  options.zarr_format = zarr_format;
  options.attributes = ParseJsonArgument(attributes_json, "group attributes");
  options.overwrite = overwrite;
  return options;
}

}  // namespace

void BindGroup(nb::module_& m) {
  nb::class_<Group>(m, "Group")
      .def_prop_ro("zarr_format", &Group::zarr_format)
      .def_prop_ro("path", &Group::path)
      .def_prop_ro("store", &Group::store)
      .def_prop_ro("attributes_json",
                   [](const Group& g) { return g.attributes().dump(); })
      .def_prop_ro("is_consolidated", &Group::is_consolidated)
      .def(
          "set_attributes",
          [](Group& g, const std::string& json) {
            JsonDocument attributes = ParseJsonArgument(json, "attributes");
            nb::gil_scoped_release release;
            Check(g.SetAttributes(attributes));
          },
          nb::arg("attributes_json"))
      .def(
          "members",
          [](const Group& g) {
            std::vector<NodeInfo> members;
            {
              nb::gil_scoped_release release;
              members = Unwrap(g.Members());
            }
            std::vector<std::tuple<std::string, std::string, int>> out;
            for (const NodeInfo& n : members) {
              out.emplace_back(n.name, NodeKindName(n.kind), n.zarr_format);
            }
            return out;
          },
          "Direct members as (name, 'array' | 'group', zarr_format), sorted by name.")
      .def(
          "open_array",
          [](const Group& g, const std::string& name) {
            nb::gil_scoped_release release;
            return Unwrap(g.OpenArray(name));
          },
          nb::arg("name"))
      .def(
          "open_group",
          [](const Group& g, const std::string& name) {
            nb::gil_scoped_release release;
            return Unwrap(g.OpenGroup(name));
          },
          nb::arg("name"))
      .def(
          "create_array",
          [](Group& g, const std::string& name, int zarr_format,
             const std::string& metadata_json, const std::string& zattrs_json,
             bool overwrite, bool checksum) {
            ArrayMetadata metadata = ParseArrayMetadataArgs(
                zarr_format, metadata_json, zattrs_json, JoinKey(g.path(), name));
            if (checksum) AddChecksum(metadata);
            CreateOptions options;
            options.overwrite = overwrite;
            nb::gil_scoped_release release;
            return Unwrap(g.CreateArray(name, std::move(metadata), options));
          },
          nb::arg("name"), nb::arg("zarr_format"), nb::arg("metadata_json"),
          nb::arg("zattrs_json") = "null", nb::arg("overwrite") = false,
          nb::arg("checksum") = false)
      .def(
          "create_group",
          [](Group& g, const std::string& name, int zarr_format,
             const std::string& attributes_json, bool overwrite) {
            GroupCreateOptions options =
                MakeGroupOptions(zarr_format, attributes_json, overwrite);
            nb::gil_scoped_release release;
            return Unwrap(g.CreateGroup(name, options));
          },
          nb::arg("name"), nb::arg("zarr_format"), nb::arg("attributes_json") = "{}",
          nb::arg("overwrite") = false)
      .def(
          "delete",
          [](Group& g, const std::string& name) {
            nb::gil_scoped_release release;
            Check(g.Delete(name));
          },
          nb::arg("name"), "Erases the member `name` and everything below it.")
      .def(
          "move",
          [](Group& g, const std::string& source, const std::string& dest) {
            nb::gil_scoped_release release;
            Check(g.Move(source, dest));
          },
          nb::arg("source"), nb::arg("dest"),
          "Moves the member `source` and everything below it to `dest`.")
      .def("tree",
           [](const Group& g) {
             nb::gil_scoped_release release;
             return Unwrap(g.Tree());
           })
      .def("consolidate", [](Group& g) {
        nb::gil_scoped_release release;
        Check(g.Consolidate());
      });

  m.def(
      "open_group",
      [](std::shared_ptr<Store> store, const std::string& path) {
        nb::gil_scoped_release release;
        return Unwrap(Group::Open(std::move(store), path));
      },
      nb::arg("store"), nb::arg("path"));
  m.def(
      "create_group",
      [](std::shared_ptr<Store> store, const std::string& path, int zarr_format,
         const std::string& attributes_json, bool overwrite) {
        GroupCreateOptions options =
            MakeGroupOptions(zarr_format, attributes_json, overwrite);
        nb::gil_scoped_release release;
        return Unwrap(Group::Create(std::move(store), path, options));
      },
      nb::arg("store"), nb::arg("path"), nb::arg("zarr_format") = 3,
      nb::arg("attributes_json") = "{}", nb::arg("overwrite") = false);
  m.def(
      "inspect_node",
      [](const std::shared_ptr<Store>& store, const std::string& path) {
        NodeInfo info;
        {
          nb::gil_scoped_release release;
          info = Unwrap(InspectNode(store, path));
        }
        return std::make_tuple(std::string(NodeKindName(info.kind)), info.zarr_format);
      },
      nb::arg("store"), nb::arg("path"),
      "('array' | 'group', zarr_format) of the node at `path`; NotFoundError if none.");
  m.def(
      "open_node",
      [](const std::shared_ptr<Store>& store, const std::string& path,
         const std::string& expect) -> nb::object {
        if (!expect.empty() && expect != "array" && expect != "group") {
          throw nb::value_error("expect must be '', 'array' or 'group'");
        }
        OpenedNode node;
        {
          nb::gil_scoped_release release;
          node = expect.empty() ? Unwrap(OpenNode(store, path))
                                : Unwrap(OpenExpectedNode(store, path,
                                                          expect == "array" ? NodeKind::kArray
                                                                            : NodeKind::kGroup));
        }
        return node.array ? nb::cast(node.array) : nb::cast(node.group);
      },
      nb::arg("store"), nb::arg("path"), nb::arg("expect") = "",
      "The Array or Group at `path`, from one read of its metadata; NotFoundError if "
      "none. `expect` ('array' or 'group') asks a remote store for that kind's "
      "documents only.");
}

}  // namespace turbozarr::python

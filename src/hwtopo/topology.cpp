// read_hardware: hwloc topology -> HardwareFacts.
#include "hwtopo/topology.hpp"

#include <hwloc.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace shareq::hwtopo {
namespace {

constexpr unsigned kClassVga = 0x0300;
constexpr unsigned kClass3d = 0x0302;
constexpr unsigned kVendorNvidia = 0x10de;
constexpr unsigned kVendorAmd = 0x1002;
constexpr unsigned kVendorIntel = 0x8086;

struct TopologyDeleter {
  void operator()(hwloc_topology* topology) const { hwloc_topology_destroy(topology); }
};
using Topology = std::unique_ptr<hwloc_topology, TopologyDeleter>;

Error topology_error(const std::optional<std::string>& xml_file, std::string what) {
  return Error{"topology", describe_source(xml_file) + ": " + std::move(what)};
}

std::string errno_text(int error) {
  return error != 0 ? std::string(std::strerror(error)) : std::string("unknown error");
}

int64_t count_of(hwloc_topology_t topology, hwloc_obj_type_t type) {
  const int count = hwloc_get_nbobjs_by_type(topology, type);
  return count < 0 ? 0 : count;  // -1: objects of that type at several depths (not for these)
}

}  // namespace

bool is_gpu(unsigned pci_class, unsigned pci_vendor) {
  return (pci_class == kClassVga || pci_class == kClass3d) &&
         (pci_vendor == kVendorNvidia || pci_vendor == kVendorAmd || pci_vendor == kVendorIntel);
}

std::optional<std::string> xml_file_from_environment() {
  const char* value = std::getenv("HWLOC_XMLFILE");  // NOLINT(concurrency-mt-unsafe)
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

std::string describe_source(const std::optional<std::string>& xml_file) {
  return xml_file ? "the XML topology " + *xml_file : std::string("this machine");
}

Result<HardwareFacts> read_hardware(const std::optional<std::string>& xml_file) {
  // The library loaded at run time must speak the API this was compiled for.
  if ((hwloc_get_api_version() >> 16) != (HWLOC_API_VERSION >> 16)) {
    char wanted[16];
    std::snprintf(wanted, sizeof wanted, "0x%x", HWLOC_API_VERSION);
    char got[16];
    std::snprintf(got, sizeof got, "0x%x", hwloc_get_api_version());
    return topology_error(xml_file, std::string("hwloc library API ") + got +
                                        " is not the API shareq was built with (" + wanted + ")");
  }
  if (xml_file) {
    // hwloc's own message for a missing file is none at all: say which file and why.
    std::FILE* probe = std::fopen(xml_file->c_str(), "rb");
    if (probe == nullptr) {
      return topology_error(xml_file, "cannot read: " + errno_text(errno));
    }
    std::fclose(probe);
  }
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) {
    return topology_error(xml_file, "hwloc_topology_init failed: " + errno_text(errno));
  }
  const Topology topology(raw);
  if (hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) != 0) {
    return topology_error(xml_file, "hwloc cannot keep I/O devices: " + errno_text(errno));
  }
  if (xml_file && hwloc_topology_set_xml(raw, xml_file->c_str()) != 0) {
    return topology_error(xml_file, "hwloc cannot use it: " + errno_text(errno));
  }
  errno = 0;
  if (hwloc_topology_load(raw) != 0) {
    return topology_error(xml_file, std::string("hwloc cannot load it (") +
                                        (xml_file ? "not a valid hwloc XML topology: " : "") +
                                        errno_text(errno) + ")");
  }
  HardwareFacts facts;
  facts.numa = count_of(raw, HWLOC_OBJ_NUMANODE);
  facts.cores = count_of(raw, HWLOC_OBJ_CORE);
  for (hwloc_obj_t device = hwloc_get_next_pcidev(raw, nullptr); device != nullptr;
       device = hwloc_get_next_pcidev(raw, device)) {
    const auto& pci = device->attr->pcidev;
    if (is_gpu(pci.class_id, pci.vendor_id)) ++facts.gpus;
  }
  return facts;
}

}  // namespace shareq::hwtopo

// hwloc XML topologies written by the tests: a node of P packages, each its own NUMA node with
// C cores (one PU each) and a host bridge; GPUs spread over the packages' bridges. Package 0's
// bridge also holds what real GPU nodes have and is not a GPU: the BMC's VGA (ASPEED), an
// InfiniBand adapter (Mellanox) and an NVSwitch (NVIDIA, class "other bridge").
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace shareq::hwtopo::testing {

struct NodeShape {
  int packages = 2;
  int cores_per_package = 48;
  int gpus = 8;                  // NVIDIA 3D controllers (H100 SXM, class 0x0302)
  unsigned gpu_vendor = 0x10de;  // the GPUs' PCI vendor
  unsigned gpu_class = 0x0302;   // the GPUs' PCI class
};

// An hwloc bitmap string ("0x00000003", "0xffffffff,0xffffffff") of bits [first, last).
inline std::string bitmap(int first, int last) {
  const int words = last > 0 ? (last + 31) / 32 : 1;
  std::vector<uint32_t> bits(static_cast<size_t>(words), 0);
  for (int i = first; i < last; ++i) bits[static_cast<size_t>(i / 32)] |= uint32_t{1} << (i % 32);
  std::string out;
  for (int w = words - 1; w >= 0; --w) {
    char word[16];
    std::snprintf(word, sizeof word, "0x%08x", bits[static_cast<size_t>(w)]);
    out += (out.empty() ? "" : ",") + std::string(word);
  }
  return out;
}

// ` NAME="VALUE"`: one XML attribute.
inline std::string attr(const std::string& name, const std::string& value) {
  return " " + name + R"(=")" + value + R"(")";
}

inline std::string node_topology_xml(const NodeShape& shape) {
  int gp = 1;
  auto id = [&gp] { return attr("gp_index", std::to_string(gp++)); };
  const int pus = shape.packages * shape.cores_per_package;
  auto sets = [](int first, int last, int numa_first, int numa_last) {
    const std::string cpus = bitmap(first, last);
    const std::string nodes = bitmap(numa_first, numa_last);
    return attr("cpuset", cpus) + attr("complete_cpuset", cpus) + attr("nodeset", nodes) +
           attr("complete_nodeset", nodes);
  };
  auto object = [](const std::string& type, const std::string& attributes, bool empty) {
    return "<object" + attr("type", type) + attributes + (empty ? "/>\n" : ">\n");
  };
  auto pci = [&](int bus, const char* type) {
    char busid[32];
    std::snprintf(busid, sizeof busid, "0000:%02x:00.0", bus);
    return "        " + object("PCIDev",
                               id() + attr("pci_busid", busid) + attr("pci_type", type) +
                                   attr("pci_link_speed", "0.000000"),
                               true);
  };
  std::string xml = R"(<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
)";
  xml += "  " + object("Machine",
                       attr("os_index", "0") + sets(0, pus, 0, shape.packages) +
                           attr("allowed_cpuset", bitmap(0, pus)) +
                           attr("allowed_nodeset", bitmap(0, shape.packages)) + id(),
                       false);
  int gpus_left = shape.gpus;
  for (int p = 0; p < shape.packages; ++p) {
    const int first = p * shape.cores_per_package;
    const int last = first + shape.cores_per_package;
    const std::string index = attr("os_index", std::to_string(p));
    xml += "    " + object("Package", index + sets(first, last, p, p + 1) + id(), false);
    xml += "      " + object("NUMANode",
                             index + sets(first, last, p, p + 1) + id() +
                                 attr("local_memory", "1099511627776"),
                             true);
    for (int c = first; c < last; ++c) {
      const std::string core = attr("os_index", std::to_string(c)) + sets(c, c + 1, p, p + 1);
      xml += "      " + object("Core", core + id(), false);
      xml += "        " + object("PU", core + id(), true);
      xml += "      </object>\n";
    }
    const int bus0 = 0x10 * (p + 1);
    char range[32];
    std::snprintf(range, sizeof range, "0000:[%02x-%02x]", bus0, bus0 + 0xf);
    xml += "      " + object("Bridge",
                             id() + attr("bridge_type", "0-1") + attr("depth", "0") +
                                 attr("bridge_pci", range),
                             false);
    int bus = bus0;
    if (p == 0) {
      xml += pci(bus++, "0300 [1a03:2000] [1a03:2000] 52");  // ASPEED BMC VGA
      xml += pci(bus++, "0207 [15b3:101b] [15b3:0007] 00");  // Mellanox ConnectX-6 (IB)
      xml += pci(bus++, "0680 [10de:22a3] [10de:1796] a1");  // NVIDIA NVSwitch
    }
    const int here = (gpus_left + (shape.packages - p) - 1) / (shape.packages - p);
    for (int g = 0; g < here; ++g) {
      char type[64];
      std::snprintf(type, sizeof type, "%04x [%04x:2330] [%04x:16c1] a1", shape.gpu_class,
                    shape.gpu_vendor, shape.gpu_vendor);
      xml += pci(bus++, type);
    }
    gpus_left -= here;
    xml += "      </object>\n    </object>\n";
  }
  xml += "  </object>\n</topology>\n";
  return xml;
}

}  // namespace shareq::hwtopo::testing

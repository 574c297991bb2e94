// A node's hardware as hwloc sees it: NUMA nodes, physical cores and GPUs, for the hardware
// check (Hardware= in shareq.conf, hardware_spec.hpp). The only place shareq calls hwloc.
//
// GPUs are the PCI devices hwloc reports (I/O discovery on, important devices kept) whose class
// is a display controller: VGA-compatible (0x0300) or 3D (0x0302), and whose vendor is NVIDIA
// (0x10de), AMD (0x1002) or Intel (0x8086). Other display devices (a BMC's VGA, such as
// ASPEED's 0x1a03) are not GPUs; neither are AMD Instinct boards that report class 0x0380
// ("other display controller").
#pragma once

#include <optional>
#include <string>

#include "hardware_spec.hpp"
#include "result.hpp"

namespace shareq::hwtopo {

// True for a PCI class and vendor counted as a GPU (see above).
bool is_gpu(unsigned pci_class, unsigned pci_vendor);

// The topology file hwloc is told to use by the environment: HWLOC_XMLFILE when it is set and
// not empty.
std::optional<std::string> xml_file_from_environment();

// Loads a topology and counts NUMA nodes, cores and GPUs: from `xml_file` when given (a file
// written by `lstopo --of xml`), else from this machine. Errors (field "topology"): the file
// cannot be read, hwloc cannot parse it, hwloc fails to load or is of another major version;
// each message says which file or "this machine" and what hwloc said. Never throws, never exits.
Result<HardwareFacts> read_hardware(const std::optional<std::string>& xml_file);

// "this machine" or "the XML topology FILE": where read_hardware(xml_file) reads from.
std::string describe_source(const std::optional<std::string>& xml_file);

}  // namespace shareq::hwtopo

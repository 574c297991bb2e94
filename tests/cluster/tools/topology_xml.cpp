// topology_xml [GPUS]: prints the tests' hwloc XML topology of a two-socket node (2 NUMA nodes,
// 96 cores) with GPUS NVIDIA GPUs (default 8) on PCI; the test cluster gives each slurmd one
// (plugstack.conf's hwloc_xml=) and tests change it to see the hardware check fail.
#include <cstdlib>
#include <iostream>
#include <string>

#include "hwtopo/topology_xml.hpp"

int main(int argc, char** argv) {
  shareq::hwtopo::testing::NodeShape shape;
  if (argc > 2) {
    std::cerr << "usage: topology_xml [GPUS]\n";
    return 2;
  }
  if (argc == 2) shape.gpus = std::atoi(argv[1]);
  std::cout << shareq::hwtopo::testing::node_topology_xml(shape);
  return 0;
}

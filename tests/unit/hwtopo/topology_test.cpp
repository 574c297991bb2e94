// read_hardware on hwloc XML topologies the tests write, and on this machine.
#include "hwtopo/topology.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "topology_xml.hpp"

namespace shareq::hwtopo {
namespace {

using testing::node_topology_xml;
using testing::NodeShape;

class TopologyFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/shareq-hwtopo-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  static HardwareFacts must_read(const std::optional<std::string>& path) {
    const Result<HardwareFacts> facts = read_hardware(path);
    if (!facts) ADD_FAILURE() << facts.error().to_string();
    return facts ? facts.value() : HardwareFacts{-1, -1, -1};
  }

  std::string dir_;
};

TEST_F(TopologyFiles, TwoSocketNodeWithEightNvidiaGpus) {
  const std::string path = write("p5.xml", node_topology_xml(NodeShape{}));
  EXPECT_EQ(must_read(path), (HardwareFacts{8, 2, 96}));
}

TEST_F(TopologyFiles, SameNodeWithOneGpuMissing) {
  const std::string path = write("p5-7.xml", node_topology_xml(NodeShape{.gpus = 7}));
  EXPECT_EQ(must_read(path), (HardwareFacts{7, 2, 96}));
  EXPECT_EQ(hardware_mismatches(must_read(path), HardwareSpec{8, 2, 96}, "p5"),
            std::vector<std::string>{"7 GPUs found, family p5 expects 8"});
}

TEST_F(TopologyFiles, NodeWithoutGpusCountsNeitherTheBmcVgaNorTheNvswitch) {
  const std::string path = write(
      "cpu.xml", node_topology_xml(NodeShape{.packages = 1, .cores_per_package = 64, .gpus = 0}));
  EXPECT_EQ(must_read(path), (HardwareFacts{0, 1, 64}));
}

TEST_F(TopologyFiles, AmdAndIntelDisplayControllersAreGpus) {
  EXPECT_EQ(must_read(write("amd.xml", node_topology_xml(NodeShape{
                                           .gpus = 4, .gpu_vendor = 0x1002, .gpu_class = 0x0300}))),
            (HardwareFacts{4, 2, 96}));
  EXPECT_EQ(
      must_read(write("intel.xml", node_topology_xml(NodeShape{.gpus = 2, .gpu_vendor = 0x8086}))),
      (HardwareFacts{2, 2, 96}));
  // Another vendor's 3D controller, or an NVIDIA device of another class, is not a GPU.
  EXPECT_EQ(
      must_read(write("other.xml", node_topology_xml(NodeShape{.gpus = 2, .gpu_vendor = 0x1234}))),
      (HardwareFacts{0, 2, 96}));
  EXPECT_EQ(
      must_read(write("class.xml", node_topology_xml(NodeShape{.gpus = 2, .gpu_class = 0x0380}))),
      (HardwareFacts{0, 2, 96}));
}

TEST(GpuClasses, DisplayAndThreeDControllersOfGpuVendors) {
  EXPECT_TRUE(is_gpu(0x0302, 0x10de));
  EXPECT_TRUE(is_gpu(0x0300, 0x10de));
  EXPECT_TRUE(is_gpu(0x0300, 0x1002));
  EXPECT_TRUE(is_gpu(0x0302, 0x8086));
  EXPECT_FALSE(is_gpu(0x0300, 0x1a03));  // ASPEED BMC
  EXPECT_FALSE(is_gpu(0x0680, 0x10de));  // NVSwitch
  EXPECT_FALSE(is_gpu(0x0380, 0x1002));
  EXPECT_FALSE(is_gpu(0x0200, 0x8086));  // Intel Ethernet
}

TEST_F(TopologyFiles, MissingFileIsAClearError) {
  const Result<HardwareFacts> facts = read_hardware(dir_ + "/none.xml");
  ASSERT_FALSE(facts);
  EXPECT_EQ(facts.error().to_string(), "topology: the XML topology " + dir_ +
                                           "/none.xml: cannot read: No such file or directory");
}

TEST_F(TopologyFiles, NotAnXmlTopologyIsAClearError) {
  for (const std::string& text : {std::string("not xml at all\n"), std::string(""),
                                  std::string("<?xml version=\"1.0\"?>\n<topology version=\"2.0\">"
                                              "<object type=\"Bogus\"/></topology>\n")}) {
    const std::string path = write("bad.xml", text);
    const Result<HardwareFacts> facts = read_hardware(path);
    ASSERT_FALSE(facts) << text;
    EXPECT_EQ(facts.error().field, "topology");
    // hwloc 2.9 (Debian 12) refuses such a file at load, 2.12 (Debian 13) already at set_xml:
    // "hwloc cannot load it (...)" or "hwloc cannot use it: ...".
    const std::string& message = facts.error().message;
    EXPECT_TRUE(message.starts_with("the XML topology " + path + ": hwloc cannot load it") ||
                message.starts_with("the XML topology " + path + ": hwloc cannot use it"))
        << message;
  }
}

TEST(TopologyEnvironment, HwlocXmlFileNamesTheTopology) {
  ASSERT_EQ(unsetenv("HWLOC_XMLFILE"), 0);
  EXPECT_EQ(xml_file_from_environment(), std::nullopt);
  ASSERT_EQ(setenv("HWLOC_XMLFILE", "", 1), 0);
  EXPECT_EQ(xml_file_from_environment(), std::nullopt);
  ASSERT_EQ(setenv("HWLOC_XMLFILE", "/x/node1.xml", 1), 0);
  EXPECT_EQ(xml_file_from_environment(), "/x/node1.xml");
  ASSERT_EQ(unsetenv("HWLOC_XMLFILE"), 0);
  EXPECT_EQ(describe_source(std::nullopt), "this machine");
  EXPECT_EQ(describe_source("/x/node1.xml"), "the XML topology /x/node1.xml");
}

// --- this machine -------------------------------------------------------------------------------

// Runs a command through the shell; its standard output, and whether it exited 0.
bool run(const std::string& command, std::string& out) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return false;
  char buffer[4096];
  size_t got = 0;
  out.clear();
  while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, got);
  const int status = pclose(pipe);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int64_t number_of(const std::string& type, const std::string& xml_path) {
  std::string out;
  if (!run("hwloc-calc --input " + xml_path + " --number-of " + type + " all", out)) return -1;
  return std::stoll(out);
}

// The GPUs of an XML file counted from its text: every pci_type="CLASS [VENDOR:...".
int64_t gpus_in_xml_text(const std::string& xml_path) {
  std::ifstream in(xml_path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string xml = text.str();
  const std::regex pci_type("pci_type=\"([0-9a-f]{4}) \\[([0-9a-f]{4}):");
  int64_t gpus = 0;
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), pci_type);
       it != std::sregex_iterator(); ++it) {
    gpus += is_gpu(std::stoul((*it)[1], nullptr, 16), std::stoul((*it)[2], nullptr, 16)) ? 1 : 0;
  }
  return gpus;
}

TEST_F(TopologyFiles, ThisMachineAsLstopoWritesIt) {
  const std::string path = dir_ + "/this.xml";
  std::string out;
  ASSERT_TRUE(run("lstopo --of xml " + path + " 2>&1", out))
      << "lstopo (Debian's hwloc package, scripts/install-deps.sh) failed: " << out;
  const HardwareFacts from_file = must_read(path);
  EXPECT_GE(from_file.numa, 1);
  EXPECT_GE(from_file.cores, 1);
  // hwloc's own tools and the file's text agree with what shareq counts.
  EXPECT_EQ(from_file.numa, number_of("numa", path));
  EXPECT_EQ(from_file.cores, number_of("core", path));
  EXPECT_EQ(from_file.gpus, gpus_in_xml_text(path));
  // Loading this machine directly gives the same facts as its XML.
  EXPECT_EQ(must_read(std::nullopt), from_file);
}

TEST_F(TopologyFiles, HwlocHonoursHwlocXmlFileForThisMachine) {
  // The cluster harness gives each slurmd its own topology this way.
  const std::string path = write("node.xml", node_topology_xml(NodeShape{.gpus = 7}));
  ASSERT_EQ(setenv("HWLOC_XMLFILE", path.c_str(), 1), 0);
  ASSERT_EQ(setenv("HWLOC_THISSYSTEM", "1", 1), 0);
  const HardwareFacts facts = must_read(xml_file_from_environment());
  unsetenv("HWLOC_XMLFILE");
  unsetenv("HWLOC_THISSYSTEM");
  EXPECT_EQ(facts, (HardwareFacts{7, 2, 96}));
}

}  // namespace
}  // namespace shareq::hwtopo

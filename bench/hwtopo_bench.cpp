// The hardware check's cost (issue 15): one hwloc topology load with I/O discovery and the
// count of GPUs, NUMA nodes and cores (hwtopo::read_hardware), as the SPANK job prolog and
// `shareq node-check` do it once per job and per run. Each repetition is one load; the
// statistics p50 and p90 are over 100 repetitions. Cases: this machine (Linux discovery, sysfs
// and /proc, PCI included) and the test's two-socket node with 8 GPUs read from XML.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "hwtopo/topology.hpp"
#include "hwtopo/topology_xml.hpp"

namespace {

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto at = static_cast<size_t>(std::lround(p * static_cast<double>(values.size() - 1)));
  return values[std::min(at, values.size() - 1)];
}

void load(benchmark::State& state, const std::optional<std::string>& xml) {
  for (auto _ : state) {
    const auto facts = shareq::hwtopo::read_hardware(xml);
    if (!facts) state.SkipWithError(facts.error().to_string().c_str());
    benchmark::DoNotOptimize(facts);
  }
}

void BM_ThisMachine(benchmark::State& state) { load(state, std::nullopt); }

void BM_XmlTwoSocketEightGpus(benchmark::State& state) {
  static const std::string path = [] {
    char name[] = "/tmp/shareq-hwtopo-bench-XXXXXX";
    const int fd = mkstemp(name);
    if (fd >= 0) close(fd);
    std::ofstream(name) << shareq::hwtopo::testing::node_topology_xml({});
    return std::string(name);
  }();
  load(state, path);
}

void configure(benchmark::internal::Benchmark* b) {
  b->Iterations(1)
      ->Repetitions(100)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->ReportAggregatesOnly(true)
      ->ComputeStatistics("p50", [](const std::vector<double>& v) { return percentile(v, 0.5); })
      ->ComputeStatistics("p90", [](const std::vector<double>& v) { return percentile(v, 0.9); });
}

BENCHMARK(BM_ThisMachine)->Apply(configure);
BENCHMARK(BM_XmlTwoSocketEightGpus)->Apply(configure);

}  // namespace

BENCHMARK_MAIN();

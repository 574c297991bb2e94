#include "sim_report.hpp"

#include <cstdio>
#include <string_view>
#include <nlohmann/json.hpp>

#include "table.hpp"

namespace shareq::tool {
namespace {

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
  return buf;
}

std::string fixed(double value) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f", value);
  return buf;
}

std::string skipped_text(const std::vector<sim::Skipped>& skipped) {
  std::string out;
  for (const auto& s : skipped) {
    out += (out.empty() ? "" : "; ") + std::to_string(s.count) + " " + s.reason;
  }
  return out;
}

std::string family_table(const sim::SimResult& run) {
  Table table({"FAMILY", "GPUS", "STRICT", "PLACEABLE", "JOBS", "WAIT_P50", "WAIT_P90", "WAIT_MAX",
               "PREEMPTED", "LOST_GPU_H", "USED_GPU_H", "BORROWED_GPU_H"});
  for (const auto& f : run.families) {
    table.add({f.family, std::to_string(f.gpus), percent(f.strict), percent(f.placeable),
               std::to_string(f.jobs), std::to_string(f.wait.p50), std::to_string(f.wait.p90),
               std::to_string(f.wait.max), std::to_string(f.preempted_runs),
               fixed(f.lost_gpu_hours), fixed(f.used_gpu_hours), fixed(f.borrowed_gpu_hours)});
  }
  return table.render();
}

std::string share_table(const sim::SimResult& run) {
  Table table({"SHARE", "FAMILY", "QUOTA", "STRICT", "JOBS", "WAIT_P50", "WAIT_P90", "WAIT_MAX",
               "PREEMPTED", "LOST_GPU_H", "USED_GPU_H", "BORROWED_GPU_H"});
  for (const auto& s : run.shares) {
    table.add({s.share, s.family, amount_text(s.quota, s.unit), percent(s.strict),
               std::to_string(s.jobs), std::to_string(s.wait.p50), std::to_string(s.wait.p90),
               std::to_string(s.wait.max), std::to_string(s.preempted_runs),
               fixed(s.lost_gpu_hours), fixed(s.used_gpu_hours), fixed(s.borrowed_gpu_hours)});
  }
  return table.render();
}

std::string comparison_table(const std::vector<sim::SimResult>& runs) {
  Table table({"FAMILY", "RUN", "STRICT", "PLACEABLE", "WAIT_P50", "WAIT_P90", "PREEMPTED",
               "BORROWED_GPU_H", "NEVER_STARTED"});
  for (size_t f = 0; f < runs.front().families.size(); ++f) {
    for (const auto& run : runs) {
      for (const auto& fig : run.families) {
        if (fig.family != runs.front().families[f].family) continue;
        table.add({fig.family, run.label, percent(fig.strict), percent(fig.placeable),
                   std::to_string(fig.wait.p50), std::to_string(fig.wait.p90),
                   std::to_string(fig.preempted_runs), fixed(fig.borrowed_gpu_hours),
                   std::to_string(run.never_started)});
      }
    }
  }
  return table.render();
}

nlohmann::ordered_json wait_json(const sim::WaitFigures& w) {
  return {{"p50_s", w.p50}, {"p90_s", w.p90}, {"max_s", w.max}};
}

nlohmann::ordered_json skipped_json(const std::vector<sim::Skipped>& skipped) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& s : skipped) out.push_back({{"reason", s.reason}, {"count", s.count}});
  return out;
}

nlohmann::ordered_json run_json(const sim::SimResult& run) {
  nlohmann::ordered_json out = {{"label", run.label},
                                {"jobs_replayed", run.jobs_replayed},
                                {"never_started", run.never_started},
                                {"span_s", run.span_s},
                                {"passes", run.passes},
                                {"decisions", run.decisions},
                                {"dropped", skipped_json(run.dropped)}};
  out["families"] = nlohmann::ordered_json::array();
  for (const auto& f : run.families) {
    out["families"].push_back({{"family", f.family},
                               {"gpus", f.gpus},
                               {"strict", f.strict},
                               {"placeable", f.placeable},
                               {"jobs", f.jobs},
                               {"wait", wait_json(f.wait)},
                               {"preempted_runs", f.preempted_runs},
                               {"lost_gpu_hours", f.lost_gpu_hours},
                               {"used_gpu_hours", f.used_gpu_hours},
                               {"borrowed_gpu_hours", f.borrowed_gpu_hours}});
  }
  out["shares"] = nlohmann::ordered_json::array();
  for (const auto& s : run.shares) {
    out["shares"].push_back({{"share", s.share},
                             {"family", s.family},
                             {"quota", s.quota},
                             {"unit", std::string(unit_name(s.unit))},
                             {"strict", s.strict},
                             {"jobs", s.jobs},
                             {"wait", wait_json(s.wait)},
                             {"preempted_runs", s.preempted_runs},
                             {"lost_gpu_hours", s.lost_gpu_hours},
                             {"used_gpu_hours", s.used_gpu_hours},
                             {"borrowed_gpu_hours", s.borrowed_gpu_hours}});
  }
  return out;
}

// A CSV field as RFC 4180 has it: in double quotes, each '"' doubled, when it holds a ',', a
// '"', a line break, or when `always` (the node list, quoted in every row).
std::string csv_field(std::string_view value, bool always = false) {
  if (!always && value.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(value);
  }
  std::string out = "\"";
  for (char c : value) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string sim_tables(const SimReportInput& input) {
  std::string out =
      "trace " + input.trace_file + ": " + std::to_string(input.trace->jobs.size()) + " jobs";
  if (!input.trace->skipped.empty())
    out += " (skipped: " + skipped_text(input.trace->skipped) + ")";
  out += "\n";
  for (const auto& run : input.runs) {
    out += "\n== " + run.label + ": " + std::to_string(run.jobs_replayed) + " jobs replayed, " +
           std::to_string(run.never_started) + " never started, span " + duration_text(run.span_s) +
           " ==\n";
    if (!run.dropped.empty()) out += "left out: " + skipped_text(run.dropped) + "\n";
    out += family_table(run) + "\n" + share_table(run);
  }
  if (input.runs.size() > 1) out += "\n== side by side ==\n" + comparison_table(input.runs);
  return out;
}

std::string sim_json(const SimReportInput& input) {
  nlohmann::ordered_json out = {{"trace",
                                 {{"file", input.trace_file},
                                  {"jobs", input.trace->jobs.size()},
                                  {"skipped", skipped_json(input.trace->skipped)}}}};
  out["runs"] = nlohmann::ordered_json::array();
  for (const auto& run : input.runs) out["runs"].push_back(run_json(run));
  return out.dump(2) + "\n";
}

std::string sim_jobs_csv(const sim::SimResult& run) {
  std::string out = "id,share,family,submit,start,end,wait,preempted,nodes\n";
  for (const auto& j : run.jobs) {
    out += csv_field(j.id) + "," + csv_field(j.share) + "," + csv_field(j.family) + "," +
           std::to_string(j.submit) + "," + std::to_string(j.start) + "," + std::to_string(j.end) +
           "," + std::to_string(j.wait) + "," + std::to_string(j.preempted) + "," +
           csv_field(j.nodes, true) + "\n";
  }
  return out;
}

}  // namespace shareq::tool

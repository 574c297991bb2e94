#include "counter_state_file.hpp"

#include <charconv>
#include <cmath>
#include <optional>
#include <vector>

#include "exposition.hpp"
#include "text.hpp"

namespace shareq::exporter {
namespace {

constexpr std::string_view kHeader = "shareq-exporter-counters\t1";

template <typename T>
std::optional<T> number(std::string_view text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string line(std::initializer_list<std::string> fields) {
  std::string out;
  for (const std::string& f : fields) {
    if (!out.empty()) out += '\t';
    out += f;
  }
  return out + "\n";
}

// A label as the file keeps it: no tab or newline (Slurm names have none; replaced if so).
std::string label(std::string text) {
  for (char& c : text) {
    if (c == '\t' || c == '\n') c = ' ';
  }
  return text;
}

std::string format_wait(const FamilyShare& key, const HistogramData& data) {
  std::string out = "wait\t" + label(key.first) + "\t" + label(key.second) + "\t" +
                    std::to_string(data.count) + "\t" + format_value(data.sum);
  for (const uint64_t bucket : data.buckets) out += "\t" + std::to_string(bucket);
  return out + "\n";
}

// Parses one record's fields into `state`; an error message, or empty.
std::string parse_record(const std::vector<std::string_view>& f, CounterState& state) {
  const std::string_view kind = f[0];
  const auto need = [&](size_t n) { return f.size() == n; };
  if (kind == "since" || kind == "watermark") {
    const auto value = need(2) ? number<int64_t>(f[1]) : std::nullopt;
    if (!value) return "expected " + std::string(kind) + " EPOCH";
    (kind == "since" ? state.since : state.watermark) = *value;
  } else if (kind == "started") {
    const auto id = need(3) ? number<uint32_t>(f[1]) : std::nullopt;
    const auto start = need(3) ? number<int64_t>(f[2]) : std::nullopt;
    if (!id || !start) return "expected started JOBID START";
    state.started[{*id, *start}] = *start;
  } else if (kind == "ended") {
    const auto id = need(4) ? number<uint32_t>(f[1]) : std::nullopt;
    const auto start = need(4) ? number<int64_t>(f[2]) : std::nullopt;
    const auto end = need(4) ? number<int64_t>(f[3]) : std::nullopt;
    if (!id || !start || !end) return "expected ended JOBID START END";
    state.ended[{*id, *start}] = *end;
  } else if (kind == "preemption" || kind == "failure" || kind == "fallback") {
    const auto n = need(5) ? number<uint64_t>(f[4]) : std::nullopt;
    if (!n) {
      return "expected " + std::string(kind) +
             (kind == "fallback" ? " FROM TO CAUSE N" : " FAMILY SHARE WHY N");
    }
    auto& counters = kind == "preemption" ? state.preemptions
                     : kind == "failure"  ? state.failures
                                          : state.fallbacks;
    counters[{std::string(f[1]), std::string(f[2]), std::string(f[3])}] = *n;
  } else if (kind == "warm") {
    const auto n = need(4) ? number<uint64_t>(f[3]) : std::nullopt;
    if (!n) return "expected warm FAMILY RESULT N";
    state.warm_starts[{std::string(f[1]), std::string(f[2])}] = *n;
  } else if (kind == "wait") {
    const size_t buckets = wait_buckets().size();
    if (f.size() != 5 + buckets) {
      return "expected wait FAMILY SHARE COUNT SUM and " + std::to_string(buckets) + " buckets";
    }
    HistogramData data = empty_histogram(wait_buckets());
    const auto count = number<uint64_t>(f[3]);
    const auto sum = number<double>(f[4]);
    if (!count || !sum || !std::isfinite(*sum) || *sum < 0) {
      return "wait: COUNT and SUM must be numbers, SUM finite and not negative";
    }
    data.count = *count;
    data.sum = *sum;
    for (size_t i = 0; i < buckets; ++i) {
      const auto bucket = number<uint64_t>(f[5 + i]);
      if (!bucket) return "wait: bucket " + std::to_string(i + 1) + " must be a number";
      data.buckets[i] = *bucket;
    }
    state.waits[{std::string(f[1]), std::string(f[2])}] = std::move(data);
  } else {
    return "unknown record " + text::quote(kind) +
           "; allowed: since, watermark, started, ended, preemption, failure, warm, fallback, "
           "wait";
  }
  return {};
}

}  // namespace

std::string format_counter_state(const CounterState& state) {
  std::string out = std::string(kHeader) + "\n";
  out += line({"since", std::to_string(state.since)});
  out += line({"watermark", std::to_string(state.watermark)});
  for (const auto& [key, start] : state.started) {
    out += line({"started", std::to_string(key.id), std::to_string(start)});
  }
  for (const auto& [key, end] : state.ended) {
    out += line({"ended", std::to_string(key.id), std::to_string(key.start), std::to_string(end)});
  }
  for (const auto& [key, n] : state.preemptions) {
    out += line({"preemption", label(std::get<0>(key)), label(std::get<1>(key)),
                 label(std::get<2>(key)), std::to_string(n)});
  }
  for (const auto& [key, n] : state.failures) {
    out += line({"failure", label(std::get<0>(key)), label(std::get<1>(key)),
                 label(std::get<2>(key)), std::to_string(n)});
  }
  for (const auto& [key, n] : state.warm_starts) {
    out += line({"warm", label(key.first), label(key.second), std::to_string(n)});
  }
  for (const auto& [key, n] : state.fallbacks) {
    out += line({"fallback", label(std::get<0>(key)), label(std::get<1>(key)),
                 label(std::get<2>(key)), std::to_string(n)});
  }
  for (const auto& [key, data] : state.waits) out += format_wait(key, data);
  return out;
}

Result<CounterState> parse_counter_state(std::string_view text) {
  CounterState state;
  size_t number_of_line = 0;
  bool header = false;
  for (std::string_view row : text::split(text, '\n')) {
    ++number_of_line;
    if (row.empty()) continue;
    const std::string where = "line " + std::to_string(number_of_line);
    if (!header) {
      if (row != kHeader) {
        return Error{where, "not a shareq-exporter counter file (expected the header " +
                                text::quote(std::string(kHeader)) + ")"};
      }
      header = true;
      continue;
    }
    const std::string message = parse_record(text::split(row, '\t'), state);
    if (!message.empty()) return Error{where, message};
  }
  if (!header) return Error{"line 1", "empty file; expected the header"};
  return state;
}

}  // namespace shareq::exporter

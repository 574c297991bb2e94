#include "exposition.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace shareq::exporter {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the valid UTF-8 sequence at text[i], or 0 when it is not one (overlong forms,
// surrogates and code points above U+10FFFF are invalid).
size_t utf8_length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  size_t length = 0;
  uint32_t min = 0;
  uint32_t code = 0;
  if ((lead & 0xE0) == 0xC0) {
    length = 2, min = 0x80, code = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, min = 0x800, code = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, min = 0x10000, code = lead & 0x07;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

// Escapes `text` for the format; quotes too when `quote` (label values).
std::string escape(std::string_view text, bool quote) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t length = utf8_length(text, i);
    if (length == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    const char c = text[i];
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quote) {
      out += "\\\"";
    } else {
      out.append(text.substr(i, length));
    }
    i += length;
  }
  return out;
}

std::string_view type_name(MetricType type) {
  switch (type) {
    case MetricType::Gauge:
      return "gauge";
    case MetricType::Counter:
      return "counter";
    case MetricType::Histogram:
      return "histogram";
  }
  return "untyped";
}

void render_sample(std::string& out, const std::string& name, const Sample& sample) {
  out += name;
  out += sample.suffix;
  if (!sample.labels.empty()) {
    out += '{';
    for (size_t i = 0; i < sample.labels.size(); ++i) {
      if (i > 0) out += ',';
      out += sample.labels[i].first;
      out += "=\"";
      out += escape_label_value(sample.labels[i].second);
      out += '"';
    }
    out += '}';
  }
  out += ' ';
  out += format_value(sample.value);
  out += '\n';
}

}  // namespace

std::string escape_label_value(std::string_view value) { return escape(value, true); }

std::string escape_help(std::string_view help) { return escape(help, false); }

std::string format_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[64];
  // Integers up to 2^53 are exact in a double: print them without exponent or point.
  if (value == std::trunc(value) && std::fabs(value) < 9007199254740992.0) {
    const auto as_int = static_cast<int64_t>(value);
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, as_int);
    return {buf, end};
  }
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return {buf, end};
}

std::string render(std::span<const MetricFamily> families) {
  std::string out;
  for (const MetricFamily& family : families) {
    out += "# HELP " + family.name + " " + escape_help(family.help) + "\n";
    out += "# TYPE " + family.name + " " + std::string(type_name(family.type)) + "\n";
    for (const Sample& sample : family.samples) render_sample(out, family.name, sample);
  }
  return out;
}

void add_histogram(MetricFamily& family, const Labels& labels, const HistogramData& data) {
  for (size_t i = 0; i < data.bounds.size(); ++i) {
    Labels with_le = labels;
    with_le.emplace_back("le", format_value(data.bounds[i]));
    const double count = i < data.buckets.size() ? static_cast<double>(data.buckets[i]) : 0;
    family.samples.push_back({std::move(with_le), count, "_bucket"});
  }
  Labels inf = labels;
  inf.emplace_back("le", "+Inf");
  family.samples.push_back({std::move(inf), static_cast<double>(data.count), "_bucket"});
  family.samples.push_back({labels, data.sum, "_sum"});
  family.samples.push_back({labels, static_cast<double>(data.count), "_count"});
}

HistogramData empty_histogram(std::span<const double> bounds) {
  HistogramData data;
  data.bounds.assign(bounds.begin(), bounds.end());
  data.buckets.assign(bounds.size(), 0);
  return data;
}

void observe(HistogramData& data, double value) {
  for (size_t i = 0; i < data.bounds.size(); ++i) {
    if (value <= data.bounds[i]) ++data.buckets[i];
  }
  ++data.count;
  data.sum += value;
}

}  // namespace shareq::exporter

#include "aot/executor/analysis_report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "aot/base/text.h"
#include "aot/executor/memory_report.h"

namespace aotc {
namespace {

const char* const kStyle = R"(
body { font-family: sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
table { border-collapse: collapse; font-size: 12px; }
th, td { padding: 3px 8px; border-bottom: 1px solid #ddd; text-align: right; white-space: nowrap; }
th { background: #f0f0f0; cursor: pointer; user-select: none; }
th.text, td.text { text-align: left; }
td.node { max-width: 420px; overflow: hidden; text-overflow: ellipsis; }
#totals td.text { white-space: normal; max-width: 900px; }
.note { color: #666; font-size: 12px; }
)";

// Sorts the layer table by the clicked column: numbers by their data-value, text by its
// text; a second click reverses.
const char* const kScript = R"(
document.querySelectorAll('table.sortable th').forEach(function (th, column) {
  th.addEventListener('click', function () {
    var table = th.closest('table'), body = table.tBodies[0];
    var descending = th.getAttribute('data-order') !== 'descending';
    table.querySelectorAll('th').forEach(function (other) { other.removeAttribute('data-order'); });
    th.setAttribute('data-order', descending ? 'descending' : 'ascending');
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[column], y = b.cells[column];
      var u = x.getAttribute('data-value'), v = y.getAttribute('data-value');
      var order = (u !== null && v !== null) ? Number(u) - Number(v) : x.textContent.localeCompare(y.textContent);
      return descending ? -order : order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  });
});
document.body.setAttribute('data-ready', 'sortable');
)";

std::string number_cell(int64_t v, bool blank_if_zero = false) {
  if (blank_if_zero && v == 0) return "<td data-value=\"0\"></td>";
  return "<td data-value=\"" + std::to_string(v) + "\">" + with_commas(v) + "</td>";
}

std::string cycles_cell(const std::optional<double>& c) {
  if (!c) return "<td data-value=\"-1\">-</td>";
  return number_cell(static_cast<int64_t>(*c + 0.5));
}

// One row of bars per layer: estimated cycles (blue) and MACs (orange), each as a share
// of the largest layer's.
std::string layer_bars(const ModelAnalysis& a) {
  const int kLabel = 260, kBar = 520, kRow = 18;
  double max_cycles = 1, max_macs = 1;
  for (const LayerAnalysis& l : a.layers) {
    max_cycles = std::max(max_cycles, l.cycles.value_or(0));
    max_macs = std::max(max_macs, static_cast<double>(l.macs));
  }
  std::ostringstream os;
  int height = static_cast<int>(a.layers.size()) * kRow + 30;
  os << "<svg id=\"layer-bars\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kLabel + kBar + 120 << "\" height=\""
     << height << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
     << "<rect x=\"" << kLabel << "\" y=\"4\" width=\"10\" height=\"10\" fill=\"#3366cc\"/><text x=\"" << kLabel + 14
     << "\" y=\"13\">estimated cycles</text><rect x=\"" << kLabel + 130 << "\" y=\"4\" width=\"10\" height=\"10\" "
     << "fill=\"#dc3912\"/><text x=\"" << kLabel + 144 << "\" y=\"13\">MACs</text>\n";
  int y = 24;
  for (const LayerAnalysis& l : a.layers) {
    std::string label = std::to_string(l.step) + " " + (l.device != "cpu" ? l.device : l.kernel.empty() ? "-" : l.kernel);
    double c = l.cycles.value_or(0) / max_cycles, m = static_cast<double>(l.macs) / max_macs;
    char bars[512];
    std::snprintf(bars, sizeof bars,
                  "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"7\" fill=\"#3366cc\"/>"
                  "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"7\" fill=\"#dc3912\"/>",
                  kLabel, y, c * kBar, kLabel, y + 8, m * kBar);
    os << "<g><title>" << xml_escape(l.node) << ": " << (l.cycles ? with_commas(static_cast<int64_t>(*l.cycles)) : "-")
       << " cycles, " << with_commas(l.macs) << " MACs</title><text x=\"4\" y=\"" << y + 11 << "\">"
       << xml_escape(label.substr(0, 40)) << "</text>" << bars << "</g>\n";
    y += kRow;
  }
  os << "</svg>\n";
  return os.str();
}

// Flash by kind as one stacked bar.
std::string flash_bar(const ModelAnalysis& a) {
  const int64_t weights = a.constant_bytes - a.table_bytes - a.artifact_bytes;
  const struct {
    const char* what;
    int64_t bytes;
    const char* color;
  } kinds[] = {{"weights (constant tensors)", weights, "#59a14f"},
               {"kernel tables (packed weights, requantization)", a.table_bytes, "#76b7b2"},
               {"NPU command streams and weights", a.artifact_bytes, "#b07aa1"}};
  const double width = 640, total = static_cast<double>(std::max<int64_t>(1, a.constant_bytes));
  std::ostringstream os;
  os << "<svg id=\"flash-bar\" xmlns=\"http://www.w3.org/2000/svg\" width=\"700\" height=\"90\" font-family=\"sans-serif\" "
        "font-size=\"11\">\n";
  double x = 4;
  int legend_y = 44;
  for (const auto& k : kinds) {
    double w = width * static_cast<double>(k.bytes) / total;
    os << "<rect x=\"" << x << "\" y=\"4\" width=\"" << w << "\" height=\"24\" fill=\"" << k.color << "\"><title>" << k.what
       << ": " << with_commas(k.bytes) << " B</title></rect>\n";
    x += w;
    os << "<rect x=\"4\" y=\"" << legend_y - 9 << "\" width=\"10\" height=\"10\" fill=\"" << k.color << "\"/><text x=\"18\" y=\""
       << legend_y << "\">" << k.what << ": " << with_commas(k.bytes) << " B</text>\n";
    legend_y += 15;
  }
  os << "</svg>\n";
  return os.str();
}

}  // namespace

std::string analysis_report_html(const ModelAnalysis& a, const CompiledModel& m) {
  std::ostringstream os;
  std::string title = xml_escape(a.model) + " on " + xml_escape(a.target);
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>aotc analyze: " << title
     << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n<h1>aotc analyze: " << title << "</h1>\n";

  os << "<h2>Totals</h2>\n<table id=\"totals\">\n"
     << "<tr><th class=\"text\">MACs</th>" << number_cell(a.macs) << "<td class=\"text\"></td></tr>\n"
     << "<tr><th class=\"text\">RAM</th>" << number_cell(a.ram_bytes) << "<td class=\"text\">B: activations "
     << with_commas(a.activation_bytes) << " B (peak at step " << a.peak_step << "), inputs and outputs "
     << with_commas(a.io_bytes) << " B, state " << with_commas(a.state_bytes) << " B</td></tr>\n"
     << "<tr><th class=\"text\">flash</th>" << number_cell(a.constant_bytes)
     << "<td class=\"text\">B of constants (code not estimated)</td></tr>\n"
     << "<tr><th class=\"text\">cycles</th>" << cycles_cell(a.cycles) << "<td class=\"text\">"
     << (a.cycles ? "estimated: " + xml_escape(a.cycles_source) : "not estimated: the target has no [cycles] table")
     << "</td></tr>\n</table>\n";

  os << "<h2>Estimated cycles and MACs per layer</h2>\n" << layer_bars(a);

  os << "<h2>Layers</h2>\n<p class=\"note\">Click a column to sort by it.</p>\n<table id=\"layers\" class=\"sortable\">\n"
     << "<thead><tr><th>step</th><th class=\"text\">kernel</th><th class=\"text\">shape</th><th>MACs</th>"
     << "<th>output elements</th><th>constants B</th><th>live B</th><th>est. cycles</th><th>cycles/MAC</th>"
     << "<th class=\"text\">node</th></tr></thead>\n<tbody>\n";
  for (const LayerAnalysis& l : a.layers) {
    char per_mac[32] = "";
    double ratio = l.cycles && l.macs ? *l.cycles / static_cast<double>(l.macs) : -1;
    if (ratio >= 0) std::snprintf(per_mac, sizeof per_mac, "%.2f", ratio);
    os << "<tr>" << number_cell(l.step) << "<td class=\"text\">"
       << xml_escape(l.device != "cpu" ? l.device : l.kernel.empty() ? "-" : l.kernel) << "</td><td class=\"text\">"
       << xml_escape(l.geometry) << "</td>" << number_cell(l.macs, true) << number_cell(l.output_elements)
       << number_cell(l.constant_bytes) << number_cell(l.live_bytes) << cycles_cell(l.cycles) << "<td data-value=\""
       << ratio << "\">" << per_mac << "</td><td class=\"text node\" title=\"" << xml_escape(l.node) << "\">"
       << xml_escape(l.node) << "</td></tr>\n";
  }
  os << "</tbody>\n</table>\n";

  os << "<h2>RAM over the steps</h2>\n<p class=\"note\">The memory plan: kernel steps across, addresses down, one "
        "box per tensor (hover for its name, size and steps).</p>\n"
     << memory_plan_svg(m);

  os << "<h2>Flash by kind</h2>\n" << flash_bar(a);
  os << "<script>" << kScript << "</script>\n</body>\n</html>\n";
  return os.str();
}

}  // namespace aotc

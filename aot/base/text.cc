#include "aot/base/text.h"

namespace aotc {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 if there is none (overlong forms,
// surrogates and code points beyond U+10FFFF are invalid).
size_t utf8_sequence_length(const std::string& s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b = byte(i);
  if (b < 0x80) return 1;
  size_t n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 ? 2 : 0;
  if (n == 0 || b > 0xF4 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  unsigned char second = byte(i + 1);
  if (b == 0xE0 && second < 0xA0) return 0;  // overlong
  if (b == 0xED && second >= 0xA0) return 0;  // surrogate
  if (b == 0xF0 && second < 0x90) return 0;  // overlong
  if (b == 0xF4 && second >= 0x90) return 0;  // beyond U+10FFFF
  return n;
}

}  // namespace

std::string valid_utf8(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  return out;
}

std::string display_text(const std::string& s) {
  std::string out;
  for (char c : valid_utf8(s)) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7F) c = '?';
    if (c == '/' && !out.empty() && out.back() == '*') out += ' ';
    out += c;
  }
  return out;
}

std::vector<std::string> split_at_commas(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t comma; (comma = text.find(',', start)) != std::string::npos; start = comma + 1)
    parts.push_back(text.substr(start, comma - start));
  parts.push_back(text.substr(start));
  return parts;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : display_text(s)) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::string with_commas(int64_t value) {
  std::string s = std::to_string(value);
  for (int i = static_cast<int>(s.size()) - 3; i > (s[0] == '-' ? 1 : 0); i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

}  // namespace aotc

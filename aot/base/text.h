// Names from a model are untrusted bytes: a tensor name may hold invalid UTF-8, control
// characters or "*/". These make them safe for the places they reach, keeping ordinary
// names unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aotc {

// `s` with each byte sequence that is not valid UTF-8 replaced by U+FFFD.
std::string valid_utf8(const std::string& s);

// Text for a message or a C comment: valid UTF-8 (as above), control characters other
// than newline and tab (terminal escapes among them) replaced by '?', and "*/" (which
// would end a C comment) written "* /".
std::string display_text(const std::string& s);

// Text for XML and HTML (an SVG picture, a report page): display_text with <, >, & and "
// written as entities.
std::string xml_escape(const std::string& s);

// 1234567 -> "1,234,567": a count for people to read.
std::string with_commas(int64_t value);

// "a,b,,c" -> {"a", "b", "", "c"}: the parts of a comma-separated option value, empty ones
// kept so that the caller can reject them.
std::vector<std::string> split_at_commas(const std::string& text);

}  // namespace aotc

#pragma once
// A small XML well-formedness checker for the SVG and HTML tests (no parser dependency):
// one root element, balanced and properly nested tags, quoted attributes without
// duplicates, only the five named entities and numeric references, no raw '<' or '&' in
// text, valid UTF-8. Also counts elements and collects the unescaped text nodes.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "heed/base/utf8.h"

namespace heed::testing {

struct XmlCheck {
  std::string error;                      // empty when well-formed
  std::map<std::string, int> elements;    // name -> count
  std::vector<std::string> texts;         // non-blank text nodes, entities decoded
  bool ok() const { return error.empty(); }
};

namespace xml_detail {

inline bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' ||
         c == '.' || static_cast<unsigned char>(c) >= 0x80;
}

// Decodes entities in s into out; returns false on a bad or unknown one.
inline bool decode_entities(std::string_view s, std::string& out) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') return false;
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    const std::size_t semi = s.find(';', i);
    if (semi == std::string_view::npos) return false;
    const std::string_view ent = s.substr(i + 1, semi - i - 1);
    if (ent == "amp") out += '&';
    else if (ent == "lt") out += '<';
    else if (ent == "gt") out += '>';
    else if (ent == "quot") out += '"';
    else if (ent == "apos") out += '\'';
    else if (ent.size() > 1 && ent[0] == '#') {
      const bool hex = ent[1] == 'x';
      const std::string digits(ent.substr(hex ? 2 : 1));
      if (digits.empty() || digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") !=
                                std::string::npos)
        return false;
      const unsigned long cp = std::stoul(digits, nullptr, hex ? 16 : 10);
      if (cp == 0 || cp > 0x10FFFF) return false;
      heed::append_utf8(out, static_cast<char32_t>(cp));
    } else {
      return false;
    }
    i = semi;
  }
  return true;
}

}  // namespace xml_detail

inline XmlCheck check_xml(std::string_view doc) {
  XmlCheck r;
  auto fail = [&](std::size_t at, const std::string& what) {
    r.error = "byte " + std::to_string(at) + ": " + what;
    return r;
  };
  if (!heed::is_valid_utf8(doc)) return fail(heed::find_invalid_utf8(doc), "invalid UTF-8");
  std::vector<std::string> stack;
  bool seen_root = false;
  std::size_t i = 0;
  if (doc.substr(0, 5) == "<?xml") {
    i = doc.find("?>");
    if (i == std::string_view::npos) return fail(0, "unterminated XML declaration");
    i += 2;
  }
  while (i < doc.size()) {
    if (doc[i] != '<') {
      const std::size_t end = std::min(doc.find('<', i), doc.size());
      const std::string_view text = doc.substr(i, end - i);
      const bool blank = text.find_first_not_of(" \t\r\n") == std::string_view::npos;
      if (!blank && stack.empty()) return fail(i, "text outside the root element");
      std::string decoded;
      if (!xml_detail::decode_entities(text, decoded)) return fail(i, "bad entity or '&' in text");
      if (!blank) r.texts.push_back(decoded);
      i = end;
      continue;
    }
    if (doc.substr(i, 4) == "<!--") {
      const std::size_t end = doc.find("-->", i);
      if (end == std::string_view::npos) return fail(i, "unterminated comment");
      i = end + 3;
      continue;
    }
    if (doc.substr(i, 2) == "</") {
      std::size_t j = i + 2;
      while (j < doc.size() && xml_detail::name_char(doc[j])) ++j;
      const std::string name(doc.substr(i + 2, j - i - 2));
      while (j < doc.size() && std::isspace(static_cast<unsigned char>(doc[j]))) ++j;
      if (j >= doc.size() || doc[j] != '>') return fail(i, "malformed end tag");
      if (stack.empty() || stack.back() != name)
        return fail(i, "end tag </" + name + "> does not match <" +
                           (stack.empty() ? std::string("(none)") : stack.back()) + ">");
      stack.pop_back();
      i = j + 1;
      continue;
    }
    // Start tag.
    std::size_t j = i + 1;
    while (j < doc.size() && xml_detail::name_char(doc[j])) ++j;
    const std::string name(doc.substr(i + 1, j - i - 1));
    if (name.empty()) return fail(i, "'<' not starting a tag");
    if (stack.empty() && seen_root) return fail(i, "second root element <" + name + ">");
    std::map<std::string, bool> attrs;
    while (true) {
      const std::size_t before = j;
      while (j < doc.size() && std::isspace(static_cast<unsigned char>(doc[j]))) ++j;
      if (j >= doc.size()) return fail(i, "unterminated tag <" + name + ">");
      if (doc[j] == '>' || doc.substr(j, 2) == "/>") break;
      if (j == before) return fail(j, "missing space before attribute in <" + name + ">");
      std::size_t k = j;
      while (k < doc.size() && xml_detail::name_char(doc[k])) ++k;
      const std::string attr(doc.substr(j, k - j));
      if (attr.empty() || k >= doc.size() || doc[k] != '=')
        return fail(j, "malformed attribute in <" + name + ">");
      if (attrs[attr]) return fail(j, "duplicate attribute " + attr + " in <" + name + ">");
      attrs[attr] = true;
      const char q = doc[k + 1];
      if (q != '"' && q != '\'') return fail(k, "unquoted attribute " + attr);
      const std::size_t close = doc.find(q, k + 2);
      if (close == std::string_view::npos) return fail(k, "unterminated attribute " + attr);
      std::string decoded;
      if (!xml_detail::decode_entities(doc.substr(k + 2, close - k - 2), decoded))
        return fail(k, "bad entity or '<' in attribute " + attr);
      j = close + 1;
    }
    ++r.elements[name];
    if (doc[j] == '/') {
      i = j + 2;
      if (stack.empty()) seen_root = true;
    } else {
      stack.push_back(name);
      seen_root = true;
      i = j + 1;
    }
  }
  if (!stack.empty()) return fail(doc.size(), "unclosed <" + stack.back() + ">");
  if (!seen_root) return fail(0, "no root element");
  return r;
}

}  // namespace heed::testing

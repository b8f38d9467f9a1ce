#include "egraph/json.h"

#include <cctype>
#include <charconv>
#include <cstdio>

#include "egraph/parse_error.h"

namespace smelt::egraph {

const JsonValue* JsonValue::find(std::string_view key) const {
  const JsonValue* found = nullptr;
  for (const auto& [name, value] : object)
    if (name == key) found = &value;
  return found;
}

const char* to_string(JsonValue::Kind kind) {
  switch (kind) {
    case JsonValue::Kind::kNull: return "null";
    case JsonValue::Kind::kBool: return "a boolean";
    case JsonValue::Kind::kNumber: return "a number";
    case JsonValue::Kind::kString: return "a string";
    case JsonValue::Kind::kArray: return "an array";
    case JsonValue::Kind::kObject: return "an object";
  }
  return "?";
}

namespace {

constexpr int kMaxDepth = 256;

class JsonReader {
 public:
  JsonReader(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  JsonValue document() {
    JsonValue value = read(0);
    skip_space();
    if (pos_ < text_.size()) fail("unexpected input after the JSON value");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw ParseError(std::string(source_), line_, column_, message);
  }
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r'))
      advance();
  }
  void expect(char c) {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != c) fail(std::string("expected '") + c + "'");
    advance();
  }
  bool consume_word(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    for (std::size_t i = 0; i < word.size(); ++i) advance();
    return true;
  }

  JsonValue read(int depth) {
    if (depth > kMaxDepth) fail("JSON nested too deeply");
    skip_space();
    JsonValue value;
    value.line = line_;
    value.column = column_;
    if (pos_ >= text_.size()) fail("unexpected end of input, expected a JSON value");
    const char c = text_[pos_];
    if (c == '{') {
      value.kind = JsonValue::Kind::kObject;
      advance();
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == '}') {
        advance();
        return value;
      }
      for (;;) {
        skip_space();
        if (pos_ >= text_.size() || text_[pos_] != '"') fail("expected a string key");
        std::string key = read_string();
        expect(':');
        value.object.push_back(JsonMember{std::move(key), read(depth + 1)});
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          advance();
          continue;
        }
        expect('}');
        return value;
      }
    }
    if (c == '[') {
      value.kind = JsonValue::Kind::kArray;
      advance();
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == ']') {
        advance();
        return value;
      }
      for (;;) {
        value.array.push_back(read(depth + 1));
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          advance();
          continue;
        }
        expect(']');
        return value;
      }
    }
    if (c == '"') {
      value.kind = JsonValue::Kind::kString;
      value.string = read_string();
      return value;
    }
    if (consume_word("true")) {
      value.kind = JsonValue::Kind::kBool;
      value.boolean = true;
      return value;
    }
    if (consume_word("false")) {
      value.kind = JsonValue::Kind::kBool;
      return value;
    }
    if (consume_word("null")) return value;
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      value.kind = JsonValue::Kind::kNumber;
      std::size_t end = pos_;
      while (end < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[end])) || text_[end] == '-' ||
                                    text_[end] == '+' || text_[end] == '.' || text_[end] == 'e' ||
                                    text_[end] == 'E'))
        ++end;
      const auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + end, value.number);
      if (ec != std::errc() || ptr != text_.data() + end) fail("malformed number");
      while (pos_ < end) advance();
      return value;
    }
    fail(std::string("unexpected character '") + c + "'");
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  unsigned read_hex4() {
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      if (pos_ >= text_.size() || !std::isxdigit(static_cast<unsigned char>(text_[pos_])))
        fail("expected 4 hex digits after \\u");
      const char h = text_[pos_];
      code = code * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(h))
                                                   ? h - '0'
                                                   : std::tolower(static_cast<unsigned char>(h)) - 'a' + 10);
      advance();
    }
    return code;
  }

  std::string read_string() {
    advance();  // opening quote
    std::string out;
    for (;;) {
      if (pos_ >= text_.size()) fail("unterminated string");
      const char c = text_[pos_];
      if (c == '"') {
        advance();
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        out += c;
        advance();
        continue;
      }
      const int escape_line = line_;
      const int escape_column = column_;
      advance();
      if (pos_ >= text_.size()) fail("unterminated string");
      const char e = text_[pos_];
      advance();
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned code = read_hex4();
          if (code >= 0xD800 && code < 0xDC00) {
            if (!consume_word("\\u")) fail("unpaired surrogate in \\u escape");
            const unsigned low = read_hex4();
            if (low < 0xDC00 || low >= 0xE000) fail("invalid low surrogate in \\u escape");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, code);
          break;
        }
        default:
          throw ParseError(std::string(source_), escape_line, escape_column,
                           std::string("invalid escape '\\") + e + "'");
      }
    }
  }

  std::string_view text_;
  std::string_view source_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

}  // namespace

JsonValue parse_json(std::string_view text, std::string_view source) {
  return JsonReader(text, source).document();
}

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(c));
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

}  // namespace smelt::egraph

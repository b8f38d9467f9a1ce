#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace smelt::egraph {

struct JsonMember;

// A small JSON document model for the egraph-serialize format (std only).
// Every value remembers where it started, for error messages.
struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::vector<JsonMember> object;  // in document order
  int line = 1;
  int column = 1;

  // The member named `key` of an object (the last one if repeated), or null.
  const JsonValue* find(std::string_view key) const;
};

struct JsonMember {
  std::string key;
  JsonValue value;
};

const char* to_string(JsonValue::Kind kind);

// Parses one JSON document; throws ParseError ("SOURCE:LINE:COL: ...").
JsonValue parse_json(std::string_view text, std::string_view source = "json");

// Appends s as a quoted JSON string.
void append_json_string(std::string& out, std::string_view s);

}  // namespace smelt::egraph

// Bytes as spaced hex ("00 00 00 07"), as the format specs print them, and back.
#ifndef DYNAROCK_TESTS_UTIL_HEX_H_
#define DYNAROCK_TESTS_UTIL_HEX_H_

#include <string>
#include <string_view>

namespace dynarock::testing {

inline std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty()) out += ' ';
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

// REQUIRES: `hex` is what Hex() produces.
inline std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 3) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

}  // namespace dynarock::testing

#endif  // DYNAROCK_TESTS_UTIL_HEX_H_

// utf8_path, utf8_string (hone_tools.h): UTF-8 strings to and from std::filesystem paths.
#include "hone_tools.h"

namespace hone {

std::filesystem::path utf8_path(const std::string & s) { return std::filesystem::u8path(s); }

std::string utf8_string(const std::filesystem::path & p) { return p.u8string(); } // C++17: a std::string

} // namespace hone

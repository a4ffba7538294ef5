// Read by Doxygen only (cmake/Doxyfile.in): declares fmt's formatter template so that the
// fmt::formatter specializations in graphdsl/format.hpp have a scope Doxygen knows.
namespace fmt {
template <class T, class Char = char, class Enable = void>
struct formatter;
}  // namespace fmt

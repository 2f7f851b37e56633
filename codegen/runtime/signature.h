// What a compiled function expects of its arguments, and the text form an exported
// library carries it in. Plain C++ (no Abseil): libtessel_runtime reads it.
//
//   FunctionSignature s{"scale", {ParamSignature::Buffer("A", F32, {Dim::Var("n")}),
//                                 ParamSignature::Scalar("s", F32)}};
//   DescribeSignature(s)            -> "scale(A: f32[n], s: f32)"
//   SerializeSignatures({s})        -> "tessel-module 2\n"
//                                      "function scale 2\n"
//                                      "buffer A f32 1 n\n"
//                                      "scalar s f32\n"
//
// A buffer's dimension is either a constant or a name: every buffer dimension and
// scalar parameter with the same name must receive the same value in a call. A buffer
// the function only reads is listed as `input` instead of `buffer` ("input A f32 1 n"):
// a call refuses a read-only array, or memory another argument shares, only where the
// function writes.
#ifndef TESSEL_CODEGEN_RUNTIME_SIGNATURE_H_
#define TESSEL_CODEGEN_RUNTIME_SIGNATURE_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessel::runtime {

// DLPack 0.6 has no boolean code; this is the one later versions assign (kDLBool),
// with 8 bits per element, the layout tessel's bool buffers have.
inline constexpr uint8_t kDLBoolCode = 6;

// "f32", "i64", "u8", "bf16", "f16", "bool"; lanes > 1 append "x4". Unknown codes
// print as "dtype(code=9, bits=8, lanes=1)".
std::string DTypeToString(DLDataType dtype);
// Parses the scalar spellings above (and "boolx4"-style vectors). False on anything else.
bool ParseDType(std::string_view text, DLDataType* out);
// Bytes per element of a scalar dtype (bool: 1).
int64_t DTypeBytes(DLDataType dtype);
// The dtypes a signature may name: scalars of i8..i64, u8..u64, f16, bf16, f32, f64, bool.
bool IsSupportedDType(DLDataType dtype);
inline bool operator==(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}
inline bool operator!=(DLDataType a, DLDataType b) { return !(a == b); }

struct Dim {
  int64_t value = 0;  // Used when `var` is empty.
  std::string var;    // A symbolic extent, bound by the call's arguments.
  static Dim Const(int64_t v) { return Dim{v, ""}; }
  static Dim Var(std::string name) { return Dim{0, std::move(name)}; }
  bool is_var() const { return !var.empty(); }
};

struct ParamSignature {
  std::string name;
  bool is_buffer = true;
  DLDataType dtype{kDLFloat, 32, 1};
  std::vector<Dim> shape;  // Buffers only.
  // Buffers only: whether the function may store into it. True unless known
  // otherwise, so that what cannot be proved read-only is treated as an output.
  bool written = true;

  static ParamSignature Buffer(std::string name, DLDataType dtype, std::vector<Dim> shape,
                               bool written = true) {
    return ParamSignature{std::move(name), true, dtype, std::move(shape), written};
  }
  static ParamSignature Scalar(std::string name, DLDataType dtype) {
    return ParamSignature{std::move(name), false, dtype, {}, false};
  }
};

struct FunctionSignature {
  std::string name;  // The symbol: compiled code exports tessel_packed_<name>.
  std::vector<ParamSignature> params;
};

// "A: f32[128, n]" / "n: i64".
std::string DescribeParam(const ParamSignature& param);
// "matmul(A: f32[128, 64], B: f32[64, 32], C: f32[128, 32])".
std::string DescribeSignature(const FunctionSignature& sig);

// "" when `sig` can be exported and called: a C identifier as name, unique parameter
// names that are C identifiers, supported dtypes, non-negative constant dimensions,
// identifier dimension names, a scalar named like a dimension holding an integer.
std::string ValidateSignature(const FunctionSignature& sig);

// The metadata text of a library (format above: a header with TESSEL_ABI_VERSION, then
// per function one `function` line and one line per parameter). Signatures must be
// valid. A library recording another ABI version is refused when parsed.
// `cpu_features`: the instruction-set features the library's code may use (LLVM's
// names), written as a line "cpu-features avx2 fma ..." after the header.
std::string SerializeSignatures(const std::vector<FunctionSignature>& sigs,
                                const std::vector<std::string>& cpu_features = {});
// Parses that text into `out`; on failure returns false with `*error` naming the
// line and what was wrong.
bool ParseSignatures(std::string_view text, std::vector<FunctionSignature>* out,
                     std::string* error, std::vector<std::string>* cpu_features = nullptr);

// Text helpers of the metadata readers: a whole decimal int64 (false otherwise), and
// the words of a line split on spaces.
bool ParseInt(std::string_view s, int64_t* out);
std::vector<std::string_view> SplitWords(std::string_view line);

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_SIGNATURE_H_

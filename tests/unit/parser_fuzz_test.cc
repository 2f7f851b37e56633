// Fuzzing the `.tsl` parser with seeded random mutations of valid programs: each
// mutated text must give a module or a parse error (no crash, no hang), and any
// module that parses must print, re-parse to a structurally equal module, and
// print the same text again (which catches printer bugs on unusual IR).
//
//   seed program --Lex--> tokens --delete/duplicate/swap/replace--> text --> ParseModule
//
// The seeds are fixed (kTokenSeed, kByteSeed), so a failure reproduces exactly;
// the failure message shows the iteration and the mutated text.
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ir/lexer.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"

namespace tessel::ir {
namespace {

constexpr uint64_t kTokenSeed = 0x7e55e1;  // For the 10,000 token-level mutations.
constexpr uint64_t kByteSeed = 0xb17e5;    // For the byte-level mutations.
constexpr int kTokenMutations = 10000;
constexpr int kByteMutations = 3000;

// Valid programs of different shapes, as the printer writes them.
const char* const kPrograms[] = {
    // Blocks: iter vars, regions, init, a reduction.
    R"(func @matmul(A: f32[16, 16], B: f32[16, 16], C: f32[16, 16]) attrs {global_symbol = "matmul"} {
  for i in range(0, 16) {
    for j in range(0, 16) {
      for k in range(0, 16) {
        block C(vi: spatial[0, 16] = i, vj: spatial[0, 16] = j, vk: reduce[0, 16] = k) {
          reads(A[vi, vk], B[vk, vj])
          writes(C[vi, vj])
          init {
            C[vi, vj] = 0.0f32
          }
          C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        }
      }
    }
  }
}
)",
    // Lowered form: flat lets, allocations, views, vectors, conditionals, calls.
    R"(func @lowered(A: f32[64], B: f32[64], n: i32) {
  let m = n // 4
  decl_buffer A2: f32[16, 4] = A
  allocate T: f32[4] scope "local"
  for i in parallel(0, m) {
    T[ramp(0, 1, 4)] = A[ramp(i * 4, 1, 4)] * broadcast(2.0f32, 4)
    if i %% 2 == 0 && i < 15 {
      B[i] = exp(T[0]) + A2[i, 3]
    } else if i > 3 {
      B[i] = select(A[i] < 0.0f32, 0.0f32, sqrt(A[i]))
    } else {
      evaluate @trace(i, A[i]): void
    }
  }
}
)",
    // Symbolic shapes, thread bindings, annotations, bare blocks, predicates.
    R"(func @sym[n: i64](X: f16[n, 8i64] strides [8i64, 1i64] align 16, Y: f16[n, 8i64], s: f16) attrs {"a b" = expr(s), tile = [4, [2, 1.5]]} {
  for bx: i64 in thread_binding(0i64, n, "blockIdx.x") {
    for tx: i64 in thread_binding(0i64, 8i64, "threadIdx.x") attrs {unroll = true} {
      block copy(v0: i64 spatial[0i64, n] = bx, v1: i64 spatial[0i64, 8i64] = tx) where bx * 8i64 + tx < n * 8i64 attrs {rule = "copy"} {
        alloc_buffer L: f16[2] scope "shared"
        reads(X[v0, v1 +: 2i64])
        writes(Y[v0, v1], L[0 +: 2])
        L[0] = X[v0, v1] * s
        Y[v0, v1] = max(L[0], -inf_f16)
      }
    }
  }
  bare_block tail(w: opaque[0, 1]) {
    seq {
      evaluate w
    }
  }
}
)",
    // Literals of every type, casts and special floats.
    R"(module_attrs {nothing = nan, opt = 3, ratio = -0.25, target = "llvm"}

func @lits(O: f64[8], U: u64[2], P: bool[1]) {
  O[0] = f64(7i8) + f64(-128i16) * f64(255u8) - f64(18446744073709551615u64)
  O[1] = f64(1.5f16) / f64(-0.0bf16) + 1.0e-300f64 + f64(nan_f32) + f64(3.4028235e38f32)
  U[1] = U[0] * 3u64 %% 7u64
  P[0] = !(O[0] != O[1]) || false
  O[min(2, max(0, 1))] = f64(i64(O[0]) // -9223372036854775808i64)
}

func @second() {
  seq {
    seq {
    }
  }
}
)",
};

// Joins tokens back into text: a token that started a new line in the original
// starts a new line again, so line-leading `//` stays a comment where it was one.
struct Tok {
  std::string text;
  int line;
};

std::string Join(const std::vector<Tok>& toks) {
  std::string out;
  int line = toks.empty() ? 0 : toks[0].line;
  for (const Tok& t : toks) {
    if (!out.empty()) out += t.line != line ? "\n" : " ";
    out += t.text;
    line = t.line;
  }
  return out + "\n";
}

std::vector<Tok> Tokens(const std::string& text) {
  LexResult r = Lex(text);
  EXPECT_TRUE(r.error.empty()) << r.error;
  std::vector<Tok> out;
  for (const Token& t : r.tokens) {
    if (t.kind != TokKind::kEof) out.push_back(Tok{std::string(t.text), t.line});
  }
  return out;
}

// Parses `text`; on success checks the print/parse/print cycle. Returns whether it parsed.
bool CheckOne(const std::string& text, int iteration) {
  absl::StatusOr<IRModule> m = ParseModule(text, "fuzz.tsl");
  if (!m.ok()) {
    std::string msg(m.status().message());
    EXPECT_EQ(msg.rfind("fuzz.tsl:", 0), 0u) << "iteration " << iteration << ": " << msg;
    EXPECT_NE(msg.find('^'), std::string::npos) << "iteration " << iteration << ": no caret in " << msg;
    return false;
  }
  std::string printed = PrintModule(*m);
  absl::StatusOr<IRModule> again = ParseModule(printed, "reprint.tsl");
  EXPECT_TRUE(again.ok()) << "iteration " << iteration << ": printed text does not parse: "
                          << again.status().message() << "\n--- input:\n" << text << "\n--- printed:\n" << printed;
  if (!again.ok()) return true;
  absl::Status eq = AssertStructuralEqual(*m, *again);
  EXPECT_TRUE(eq.ok()) << "iteration " << iteration << ": " << eq.message() << "\n--- input:\n" << text;
  EXPECT_EQ(PrintModule(*again), printed) << "iteration " << iteration << "\n--- input:\n" << text;
  return true;
}

TEST(ParserFuzzTest, SeedProgramsAreCanonical) {
  for (const char* p : kPrograms) {
    absl::StatusOr<IRModule> m = ParseModule(p, "seed.tsl");
    ASSERT_TRUE(m.ok()) << m.status().message();
    EXPECT_EQ(PrintModule(*m), p);
  }
}

TEST(ParserFuzzTest, TokenMutationsGiveAModuleOrAnError) {
  std::vector<std::vector<Tok>> programs;
  std::set<std::string> pool_set = {"(", ")", "{", "}", "[", "]", ",", ":", "=", "+:", "@", "-", "!", "//",
                                    "0", "1", "-1", "99999999999999999999", "1.5", "nan_f32(0x7ff8000000000001)",
                                    "inf_f16", "\"s\"", "0x1", "for", "block", "bare_block", "let", "seq", "where",
                                    "attrs", "func", "i64", "f16x4", "ramp", "init", "reads", "true", "$"};
  for (const char* p : kPrograms) {
    programs.push_back(Tokens(p));
    for (const Tok& t : programs.back()) pool_set.insert(t.text);
  }
  std::vector<std::string> pool(pool_set.begin(), pool_set.end());
  std::mt19937_64 rng(kTokenSeed);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  int parsed = 0;
  for (int it = 0; it < kTokenMutations; ++it) {
    std::vector<Tok> toks = programs[pick(programs.size())];
    int edits = 1 + static_cast<int>(pick(3));
    for (int e = 0; e < edits && !toks.empty(); ++e) {
      size_t i = pick(toks.size());
      switch (pick(4)) {
        case 0: toks.erase(toks.begin() + static_cast<std::ptrdiff_t>(i)); break;
        case 1: toks.insert(toks.begin() + static_cast<std::ptrdiff_t>(i), toks[i]); break;
        case 2: std::swap(toks[i], toks[pick(toks.size())]); break;
        default: toks[i].text = pool[pick(pool.size())]; break;
      }
    }
    if (CheckOne(Join(toks), it)) ++parsed;
    if (::testing::Test::HasFailure()) FAIL() << "stopping at iteration " << it << "\n" << Join(toks);
  }
  // Some mutations (a changed number, a swapped operand) keep programs valid.
  EXPECT_GT(parsed, 100);
}

TEST(ParserFuzzTest, ByteMutationsGiveAModuleOrAnError) {
  std::mt19937_64 rng(kByteSeed);
  const std::string bytes = "(){}[],:=@+-*/%!<>&|\"\\ \n\t0123456789.exinfabf_x#\x01\xff";
  for (int it = 0; it < kByteMutations; ++it) {
    std::string text = kPrograms[rng() % std::size(kPrograms)];
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t i = rng() % text.size();
      char c = bytes[rng() % bytes.size()];
      switch (rng() % 3) {
        case 0: text.erase(i, 1); break;
        case 1: text.insert(text.begin() + static_cast<std::ptrdiff_t>(i), c); break;
        default: text[i] = c; break;
      }
    }
    CheckOne(text, it);
    if (::testing::Test::HasFailure()) FAIL() << "stopping at iteration " << it << "\n" << text;
  }
}

}  // namespace
}  // namespace tessel::ir

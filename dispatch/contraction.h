// Matching a block by meaning: a contraction C[...] += A[...] * B[...] whose
// iterators are classified by which buffers use them (the S-I-J-K analysis):
//
//   spatial, in C, A and B   -> batch          reduce, in A and B -> K
//   spatial, in C and A only -> M              anything else      -> not a matmul
//   spatial, in C and B only -> N
//
// Strides and transposition come from the index expressions and buffer shapes,
// never from names: `C[vi, vj] += A[vk, vi] * W[vj, vk]` is C = A^T W^T, with
// A's M stride 1 and K stride 64 (A: f32[32, 64]).
//
//   MatchContraction(block C of a 64x16x32 matmul) ->
//     {m 64, n 16, k 32, a {A, rows (M) stride 32, cols (K) stride 1}, ...}
#ifndef TESSEL_DISPATCH_CONTRACTION_H_
#define TESSEL_DISPATCH_CONTRACTION_H_

#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "ir/stmt.h"

namespace tessel::dispatch {

enum class Role { kBatch, kM, kN, kK };

// A buffer as a (batch, rows, cols) matrix: element strides, 0 where a
// dimension is absent (a broadcast batch, a vector).
struct MatrixView {
  ir::Buffer buffer;
  int64_t batch_stride = 0, row_stride = 0, col_stride = 0;
};

struct Contraction {
  ir::DataType dtype;
  int64_t batch = 1, m = 1, n = 1, k = 1;
  MatrixView a;                  // rows M, cols K
  MatrixView b;                  // rows K, cols N
  MatrixView c;                  // rows M, cols N: the accumulator
  std::vector<Role> c_dims;      // The role of each dimension of C.
  std::string ToString() const;  // "batch 1, 64x16x32, A row-major, B transposed"
};

// C[...] = C[...] + X[...] * Y[...] from C = 0, one float dtype: the shape of a
// matmul and of a convolution.
struct SumOfProducts {
  const ir::BufferStoreNode* store;
  const ir::BufferLoadNode* x;
  const ir::BufferLoadNode* y;
};
std::variant<SumOfProducts, std::string> MatchSumOfProducts(const ir::BlockNode* block);

// The contraction `block` computes (its iter var extents in `extents`), or why
// it is none.
std::variant<Contraction, std::string> MatchContraction(const ir::BlockNode* block,
                                                        const std::vector<int64_t>& extents);

// The element strides of `buffer` per role, where `indices` (plain iter vars of
// `block`, or 0) index it and `role_of` gives each iter var's role in
// [0, num_roles) (-1: none): {batch, M, N, K} for a contraction, an output's
// dimension positions for an epilogue. 0 for a role that indexes no dimension
// (a broadcast). Fails on an index that is not a plain iter var, or a role used twice.
std::variant<std::vector<int64_t>, std::string> RoleStrides(const ir::BlockNode* block,
                                                            const ir::Buffer& buffer,
                                                            const std::vector<ir::Expr>& indices,
                                                            const std::vector<int>& role_of,
                                                            int num_roles = 4);

// The position of iter var `e` among `block`'s iter vars, or -1 when `e` is not one.
int IterIndex(const ir::BlockNode* block, const ir::Expr& e);

}  // namespace tessel::dispatch

#endif  // TESSEL_DISPATCH_CONTRACTION_H_

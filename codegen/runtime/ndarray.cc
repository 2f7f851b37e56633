// NDArray storage and DLPack import/export (see ndarray.h).
//
// One State per storage: the DLTensor all handles share, the shape/stride arrays it
// points to, and either memory tessel allocated (host, or CUDA device memory) or the
// imported DLManagedTensor whose deleter the State's destructor calls. An export holds a shared_ptr
// to the State in its manager_ctx, so producer and consumers may release in any order.
#include "codegen/runtime/ndarray.h"

#include <cstring>
#include <new>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/runtime/arg_check.h"
#include "codegen/runtime/func_signature.h"
#include "codegen/runtime/signature.h"
#include "codegen/runtime/tessel_cuda.h"

namespace tessel::runtime {

struct NDArray::State {
  DLTensor tensor{};
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;         // Empty when the tensor has NULL strides.
  void* owned = nullptr;                // Memory tessel allocated (64-byte aligned).
  void* device_owned = nullptr;         // CUDA memory tessel allocated (cuMemAlloc).
  DLManagedTensor* imported = nullptr;  // The producer's tensor, released last.

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State() {
    if (owned != nullptr) ::operator delete(owned, std::align_val_t(kArgumentAlignment));
    if (device_owned != nullptr) tessel_cuda_free(device_owned);
    if (imported != nullptr && imported->deleter != nullptr) imported->deleter(imported);
  }
};

namespace {

absl::StatusOr<int64_t> CountElements(const std::vector<int64_t>& shape, const char* what) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": shape [", absl::StrJoin(shape, ", "),
                                                     "] is negative or overflows"));
    }
  }
  return n;
}

// The shape of a tensor from elsewhere, after the checks every use of one needs: on
// the CPU (or, with `cuda`, a CUDA device), a supported dtype, a well-formed
// non-negative shape, data unless empty.
absl::StatusOr<std::vector<int64_t>> CheckForeignTensor(const DLTensor& t, const char* what,
                                                        bool cuda = false) {
  if (t.device.device_type != kDLCPU && !(cuda && t.device.device_type == kDLCUDA)) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": only CPU", cuda ? " and CUDA" : "",
                                                   " tensors are supported, given one on ",
                                                   DescribeDevice(t.device)));
  }
  if (!IsSupportedDType(t.dtype)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": unsupported dtype ", DTypeToString(t.dtype)));
  }
  if (t.ndim < 0 || (t.ndim > 0 && t.shape == nullptr)) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": malformed tensor (ndim ", t.ndim,
                                                   ", shape ", t.shape ? "set" : "NULL", ")"));
  }
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  absl::StatusOr<int64_t> numel = CountElements(shape, what);
  if (!numel.ok()) return numel.status();
  if (t.data == nullptr && *numel > 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": NULL data for a non-empty tensor"));
  }
  return shape;
}

// A host <-> CUDA copy's result (an array is on the CPU or on CUDA): `rc` of
// tessel_cuda_copy_*.
absl::Status CheckedCopy(int32_t rc, const char* what) {
  if (rc != 0) {
    return absl::UnavailableError(absl::StrCat("NDArray::", what, ": ", tessel_last_error()));
  }
  return absl::OkStatus();
}

// Copies the elements of `src` (any strides, in elements) into dense row-major `dst`,
// one dimension per recursion level.
void CopyStrided(const char* src, const int64_t* shape, const int64_t* strides, int ndim,
                 int64_t elem_bytes, char** dst) {
  if (ndim == 0) {
    std::memcpy(*dst, src, static_cast<size_t>(elem_bytes));
    *dst += elem_bytes;
    return;
  }
  for (int64_t i = 0; i < shape[0]; ++i) {
    CopyStrided(src + i * strides[0] * elem_bytes, shape + 1, strides + 1, ndim - 1, elem_bytes,
                dst);
  }
}

}  // namespace

absl::StatusOr<NDArray> NDArray::CopyOf(const DLTensor& t) {
  absl::StatusOr<std::vector<int64_t>> shape = CheckForeignTensor(t, "NDArray::CopyOf");
  if (!shape.ok()) return shape.status();
  absl::StatusOr<NDArray> copy = Zeros(*shape, t.dtype);
  if (!copy.ok() || copy->numel() == 0) return copy;
  std::vector<int64_t> strides(static_cast<size_t>(t.ndim));
  int64_t compact = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    strides[d] = t.strides ? t.strides[d] : compact;
    compact *= t.shape[d];
  }
  char* dst = static_cast<char*>(copy->data());
  CopyStrided(static_cast<const char*>(t.data) + t.byte_offset, t.shape, strides.data(), t.ndim,
              DTypeBytes(t.dtype), &dst);
  return copy;
}

namespace {

// The bytes of a new array of `shape` and `dtype`, or why there can be none.
absl::StatusOr<int64_t> NewArrayBytes(const std::vector<int64_t>& shape, DLDataType dtype) {
  if (!IsSupportedDType(dtype)) {
    return absl::InvalidArgumentError(
        absl::StrCat("NDArray::Zeros: unsupported dtype ", DTypeToString(dtype)));
  }
  absl::StatusOr<int64_t> numel = CountElements(shape, "NDArray::Zeros");
  if (!numel.ok()) return numel.status();
  int64_t bytes;
  if (__builtin_mul_overflow(*numel, DTypeBytes(dtype), &bytes) || bytes > (int64_t{1} << 46)) {
    return absl::ResourceExhaustedError(absl::StrCat("NDArray::Zeros: shape [",
                                                     absl::StrJoin(shape, ", "), "] of ",
                                                     DTypeToString(dtype), " is too large"));
  }
  return bytes;
}

}  // namespace

absl::StatusOr<NDArray> NDArray::Zeros(std::vector<int64_t> shape, DLDataType dtype) {
  absl::StatusOr<int64_t> checked = NewArrayBytes(shape, dtype);
  if (!checked.ok()) return checked.status();
  const int64_t bytes = *checked;
  auto state = std::make_shared<State>();
  // Round up so that a kernel's full-vector tail loads stay inside the allocation.
  size_t alloc = static_cast<size_t>((bytes + kArgumentAlignment - 1) / kArgumentAlignment *
                                     kArgumentAlignment);
  state->owned = ::operator new(alloc == 0 ? kArgumentAlignment : alloc,
                                std::align_val_t(kArgumentAlignment), std::nothrow);
  if (state->owned == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("NDArray::Zeros: cannot allocate ", bytes, " bytes"));
  }
  std::memset(state->owned, 0, alloc);
  state->shape = std::move(shape);
  state->tensor.data = state->owned;
  state->tensor.device = DLDevice{kDLCPU, 0};
  state->tensor.ndim = static_cast<int32_t>(state->shape.size());
  state->tensor.dtype = dtype;
  state->tensor.shape = state->shape.data();
  state->tensor.strides = nullptr;
  state->tensor.byte_offset = 0;
  NDArray a;
  a.state_ = std::move(state);
  return a;
}

absl::StatusOr<NDArray> NDArray::Zeros(std::vector<int64_t> shape, ir::DataType dtype) {
  if (!dtype.is_scalar()) {
    return absl::InvalidArgumentError(
        absl::StrCat("NDArray::Zeros: element type ", dtype.ToString(), " is not a scalar"));
  }
  absl::StatusOr<DLDataType> dl = ToDLDataType(dtype);
  if (!dl.ok()) return dl.status();
  return Zeros(std::move(shape), *dl);
}

absl::StatusOr<NDArray> NDArray::Zeros(std::vector<int64_t> shape, DLDataType dtype,
                                       DLDevice device) {
  if (device.device_type == kDLCPU && device.device_id == 0) return Zeros(std::move(shape), dtype);
  if (device.device_type != kDLCUDA || device.device_id != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("NDArray::Zeros: arrays live on cpu:0 or cuda:0 (the device tessel's CUDA "
                     "runtime drives), not on ",
                     DescribeDevice(device)));
  }
  absl::StatusOr<int64_t> bytes = NewArrayBytes(shape, dtype);
  if (!bytes.ok()) return bytes.status();
  auto state = std::make_shared<State>();
  if (tessel_cuda_init(device.device_id) != 0 ||
      tessel_cuda_alloc(static_cast<size_t>(*bytes == 0 ? 1 : *bytes), &state->device_owned) != 0 ||
      (*bytes > 0 &&
       tessel_cuda_memset(state->device_owned, 0, static_cast<size_t>(*bytes)) != 0)) {
    return absl::UnavailableError(
        absl::StrCat("NDArray::Zeros on ", DescribeDevice(device), ": ", tessel_last_error()));
  }
  state->shape = std::move(shape);
  state->tensor.data = state->device_owned;
  state->tensor.device = device;
  state->tensor.ndim = static_cast<int32_t>(state->shape.size());
  state->tensor.dtype = dtype;
  state->tensor.shape = state->shape.data();
  NDArray a;
  a.state_ = std::move(state);
  return a;
}

absl::StatusOr<NDArray> NDArray::FromDLPack(DLManagedTensor* managed) {
  if (managed == nullptr) return absl::InvalidArgumentError("NDArray::FromDLPack: NULL tensor");
  const DLTensor& t = managed->dl_tensor;
  absl::StatusOr<std::vector<int64_t>> shape =
      CheckForeignTensor(t, "NDArray::FromDLPack", /*cuda=*/true);
  if (!shape.ok()) return shape.status();
  auto state = std::make_shared<State>();
  state->shape = *std::move(shape);
  if (t.strides != nullptr) state->strides.assign(t.strides, t.strides + t.ndim);
  state->tensor = t;
  state->tensor.shape = state->shape.data();
  state->tensor.strides = t.strides ? state->strides.data() : nullptr;
  state->imported = managed;  // Owned from here on: the State's destructor releases it.
  NDArray a;
  a.state_ = std::move(state);
  return a;
}

DLManagedTensor* NDArray::ToDLPack() const {
  if (!defined()) return nullptr;
  auto* managed = new DLManagedTensor{};
  managed->dl_tensor = state_->tensor;
  managed->manager_ctx = new std::shared_ptr<State>(state_);
  managed->deleter = [](DLManagedTensor* self) {
    delete static_cast<std::shared_ptr<State>*>(self->manager_ctx);
    delete self;
  };
  return managed;
}

absl::StatusOr<NDArray> NDArray::FromHostBuffer(const ir::HostBuffer& buffer) {  // On the CPU.
  absl::StatusOr<NDArray> a = Zeros(buffer.shape(), buffer.dtype());
  if (!a.ok()) return a.status();
  if (a->nbytes() > 0) std::memcpy(a->data(), buffer.data(), static_cast<size_t>(a->nbytes()));
  return a;
}

absl::StatusOr<ir::HostBuffer> NDArray::ToHostBuffer() const {
  if (!defined()) return absl::FailedPreconditionError("NDArray::ToHostBuffer: undefined array");
  absl::StatusOr<ir::DataType> t = ToIRDataType(dtype());
  if (!t.ok()) return t.status();
  ir::HostBuffer b = ir::HostBuffer::Zeros(*t, shape());
  auto bytes = absl::Span<uint8_t>(static_cast<uint8_t*>(b.data()), static_cast<size_t>(nbytes()));
  if (absl::Status s = CopyToBytes(bytes); !s.ok()) return s;
  return b;
}

DLTensor* NDArray::dltensor() const { return state_ ? &state_->tensor : nullptr; }
void* NDArray::data() const {
  if (!state_ || state_->tensor.data == nullptr) return nullptr;
  return static_cast<char*>(state_->tensor.data) + state_->tensor.byte_offset;
}
DLDataType NDArray::dtype() const { return state_ ? state_->tensor.dtype : DLDataType{0, 0, 0}; }
DLDevice NDArray::device() const { return state_ ? state_->tensor.device : DLDevice{kDLCPU, 0}; }
std::vector<int64_t> NDArray::shape() const {
  return state_ ? state_->shape : std::vector<int64_t>{};
}
int NDArray::ndim() const { return state_ ? state_->tensor.ndim : 0; }
int64_t NDArray::numel() const {
  if (!state_) return 0;
  int64_t n = 1;
  for (int64_t d : state_->shape) n *= d;  // Checked not to overflow on creation.
  return n;
}
int64_t NDArray::nbytes() const { return state_ ? numel() * DTypeBytes(dtype()) : 0; }
bool NDArray::owns_memory() const {
  return state_ && (state_->owned != nullptr || state_->device_owned != nullptr);
}

bool NDArray::IsContiguous() const {
  if (!state_) return false;
  if (state_->strides.empty() || numel() == 0) return true;
  int64_t expected = 1;
  for (int d = ndim() - 1; d >= 0; --d) {
    if (state_->shape[d] != 1 && state_->strides[d] != expected) return false;
    expected *= state_->shape[d];
  }
  return true;
}

bool NDArray::IsAligned(int64_t alignment) const {
  return state_ && alignment > 0 && reinterpret_cast<uintptr_t>(data()) % alignment == 0;
}

absl::Status NDArray::CopyFromBytes(absl::Span<const uint8_t> bytes) {
  if (!defined()) return absl::FailedPreconditionError("NDArray::CopyFromBytes: undefined array");
  if (!IsContiguous())
    return absl::FailedPreconditionError("NDArray::CopyFromBytes: not contiguous");
  if (static_cast<int64_t>(bytes.size()) != nbytes()) {
    return absl::InvalidArgumentError(absl::StrCat("NDArray::CopyFromBytes: given ", bytes.size(),
                                                   " bytes, the array holds ", nbytes()));
  }
  if (bytes.empty()) return absl::OkStatus();
  if (on_cpu()) {
    std::memcpy(data(), bytes.data(), bytes.size());
    return absl::OkStatus();
  }
  return CheckedCopy(tessel_cuda_copy_to_device(data(), bytes.data(), bytes.size()),
                     "CopyFromBytes");
}

absl::Status NDArray::CopyToBytes(absl::Span<uint8_t> bytes) const {
  if (!defined()) return absl::FailedPreconditionError("NDArray::CopyToBytes: undefined array");
  if (!IsContiguous()) return absl::FailedPreconditionError("NDArray::CopyToBytes: not contiguous");
  if (static_cast<int64_t>(bytes.size()) != nbytes()) {
    return absl::InvalidArgumentError(absl::StrCat("NDArray::CopyToBytes: given room for ",
                                                   bytes.size(), " bytes, the array holds ",
                                                   nbytes()));
  }
  if (bytes.empty()) return absl::OkStatus();
  if (on_cpu()) {
    std::memcpy(bytes.data(), data(), bytes.size());
    return absl::OkStatus();
  }
  return CheckedCopy(tessel_cuda_copy_to_host(bytes.data(), data(), bytes.size()), "CopyToBytes");
}

}  // namespace tessel::runtime

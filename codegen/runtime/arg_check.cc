// Argument checking and packing (see arg_check.h).
#include "codegen/runtime/arg_check.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <sstream>
#include <string_view>

namespace tessel::runtime {
namespace {

std::string JoinInts(const int64_t* v, int n) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

// Where a symbolic extent got its value, for the message of a later mismatch (kept as
// indices: a call that succeeds builds no strings).
struct Binding {
  int64_t value;
  size_t arg;
  int dim;  // -1: the scalar argument itself.
};

class Checker {
 public:
  Checker(const FunctionSignature& sig, DLTensor* const* args, DLDevice buffers_on)
      : sig_(sig), args_(args), buffers_on_(buffers_on) {}

  std::string Run(int32_t num_args, PackedArgs* out) {
    if (num_args < 0 || static_cast<size_t>(num_args) != sig_.params.size()) {
      return Prefix() + "expected " + std::to_string(sig_.params.size()) + " argument" +
             (sig_.params.size() == 1 ? "" : "s") + ", given " + std::to_string(num_args);
    }
    if (num_args > 0 && args_ == nullptr) return Prefix() + "the argument array is NULL";
    PackedArgs packed;
    packed.values.resize(sig_.params.size());
    packed.scalars.resize(sig_.params.size());
    // Scalars first: they bind the symbolic extents buffers are checked against.
    for (size_t i = 0; i < sig_.params.size(); ++i) {
      if (sig_.params[i].is_buffer) continue;
      if (std::string e = CheckScalar(i, &packed.scalars[i]); !e.empty()) return e;
      packed.values[i] = &packed.scalars[i];
    }
    ranges_.assign(sig_.params.size(), ByteRange{});
    for (size_t i = 0; i < sig_.params.size(); ++i) {
      if (!sig_.params[i].is_buffer) continue;
      if (std::string e = CheckBuffer(i, &packed.values[i]); !e.empty()) return e;
    }
    if (std::string e = CheckWrittenDisjoint(sig_, ranges_); !e.empty()) return e;
    *out = std::move(packed);
    return "";
  }

 private:
  std::string Prefix() const { return DescribeSignature(sig_) + ": "; }
  std::string Arg(size_t i) const {
    return Prefix() + "argument " + std::to_string(i) + " (" + sig_.params[i].name + "): ";
  }

  // The checks every argument shares: present, on its device (a scalar on the CPU, a
  // buffer where the call's buffers live), of the parameter's dtype.
  std::string CheckCommon(size_t i) {
    const DLTensor* t = args_[i];
    const ParamSignature& p = sig_.params[i];
    if (t == nullptr) return Arg(i) + "the DLTensor pointer is NULL";
    const DLDevice want = p.is_buffer ? buffers_on_ : DLDevice{kDLCPU, 0};
    if (t->device.device_type != want.device_type ||
        (want.device_type != kDLCPU && t->device.device_id != want.device_id)) {
      return Arg(i) + "expected a tensor on " +
             (want.device_type == kDLCPU ? std::string("the CPU") : DescribeDevice(want)) +
             ", given one on " + DescribeDevice(t->device);
    }
    if (t->dtype != p.dtype) {
      return Arg(i) + "expected dtype " + DTypeToString(p.dtype) + ", given " +
             DTypeToString(t->dtype);
    }
    return "";
  }

  std::string CheckScalar(size_t i, uint64_t* slot) {
    if (std::string e = CheckCommon(i); !e.empty()) return e;
    const DLTensor* t = args_[i];
    const ParamSignature& p = sig_.params[i];
    if (t->ndim != 0) {
      return Arg(i) + "a scalar parameter takes a 0-d tensor, given " + std::to_string(t->ndim) +
             " dimension" + (t->ndim == 1 ? "" : "s");
    }
    if (t->data == nullptr) return Arg(i) + "the tensor's data is NULL";
    const char* src = static_cast<const char*>(t->data) + t->byte_offset;
    int64_t value = 0;
    *slot = 0;
    if (p.dtype.code == kDLInt || p.dtype.code == kDLUInt) {
      // Integer scalars reach the kernel as int64_t (the ABI), widened by signedness.
      switch (p.dtype.bits) {
        case 8:
          value = p.dtype.code == kDLInt ? int64_t{Load<int8_t>(src)} : Load<uint8_t>(src);
          break;
        case 16:
          value = p.dtype.code == kDLInt ? int64_t{Load<int16_t>(src)} : Load<uint16_t>(src);
          break;
        case 32:
          value = p.dtype.code == kDLInt ? int64_t{Load<int32_t>(src)} : Load<uint32_t>(src);
          break;
        default:
          value = Load<int64_t>(src);
          break;
      }
      std::memcpy(slot, &value, sizeof(value));
      bindings_.emplace(p.name, Binding{value, i, -1});
    } else {
      std::memcpy(slot, src, static_cast<size_t>(DTypeBytes(p.dtype)));
    }
    return "";
  }

  std::string CheckBuffer(size_t i, void** value) {
    if (std::string e = CheckCommon(i); !e.empty()) return e;
    const DLTensor* t = args_[i];
    const ParamSignature& p = sig_.params[i];
    int ndim = static_cast<int>(p.shape.size());
    if (t->ndim != ndim) {
      return Arg(i) + "expected " + std::to_string(ndim) + " dimension" + (ndim == 1 ? "" : "s") +
             " (" + DescribeParam(p) + "), given " + std::to_string(t->ndim);
    }
    if (ndim > 0 && t->shape == nullptr) return Arg(i) + "the shape array is NULL";
    int64_t numel = 1;
    for (int d = 0; d < ndim; ++d) {
      int64_t extent = t->shape[d];
      if (extent < 0) return Arg(i) + "negative extent in shape " + JoinInts(t->shape, ndim);
      if (__builtin_mul_overflow(numel, extent, &numel)) {
        return Arg(i) + "the shape " + JoinInts(t->shape, ndim) + " overflows int64";
      }
    }
    for (int d = 0; d < ndim; ++d) {
      if (std::string e = CheckExtent(i, d); !e.empty()) return e;
    }
    if (t->strides != nullptr && numel > 0) {
      int64_t expected = 1;
      std::vector<int64_t> compact(static_cast<size_t>(ndim));
      bool ok = true;
      for (int d = ndim - 1; d >= 0; --d) {
        compact[d] = expected;
        if (t->shape[d] != 1 && t->strides[d] != expected) ok = false;
        expected *= t->shape[d];
      }
      if (!ok) {
        return Arg(i) + "expected compact row-major strides " + JoinInts(compact.data(), ndim) +
               " (or NULL), given " + JoinInts(t->strides, ndim);
      }
    }
    if (t->data == nullptr && numel > 0) return Arg(i) + "the tensor's data is NULL";
    char* data = t->data ? static_cast<char*>(t->data) + t->byte_offset : nullptr;
    *value = args_[i];          // The kernel reads data + byte_offset and shape.
    if (numel == 0) return "";  // Never dereferenced: any pointer will do.
    auto address = reinterpret_cast<uintptr_t>(data);
    if (address % kArgumentAlignment != 0) {
      std::ostringstream os;
      os << Arg(i) << "expected data + byte_offset aligned to " << kArgumentAlignment
         << " bytes, given data " << t->data << " + byte_offset " << t->byte_offset << " ("
         << address % kArgumentAlignment << " bytes past a boundary)";
      return os.str();
    }
    int64_t bytes = 0;
    if (!__builtin_mul_overflow(numel, DTypeBytes(p.dtype), &bytes)) {
      ranges_[i] = ByteRange{address, address + static_cast<uintptr_t>(bytes)};
    } else {
      ranges_[i] = ByteRange{address, UINTPTR_MAX};
    }
    return "";
  }

  std::string CheckExtent(size_t i, int d) {
    const DLTensor* t = args_[i];
    const ParamSignature& p = sig_.params[i];
    const Dim& dim = p.shape[d];
    int64_t given = t->shape[d];
    if (!dim.is_var()) {
      if (given == dim.value) return "";
      return Arg(i) + "expected shape " + DescribeShape(p) + ", given " +
             JoinInts(t->shape, t->ndim) + " (dimension " + std::to_string(d) + ")";
    }
    auto [it, inserted] = bindings_.emplace(dim.var, Binding{given, i, d});
    if (inserted || it->second.value == given) return "";
    const Binding& first = it->second;
    std::string origin = "argument " + std::to_string(first.arg) + " (" +
                         sig_.params[first.arg].name + ")" +
                         (first.dim >= 0 ? " dimension " + std::to_string(first.dim) : "");
    return Arg(i) + "dimension " + std::to_string(d) + " is " + dim.var + " = " +
           std::to_string(given) + ", but " + origin + " gave " + dim.var + " = " +
           std::to_string(first.value);
  }

  static std::string DescribeShape(const ParamSignature& p) {
    std::string d = DescribeParam(p);
    return d.substr(d.find('['));
  }

  template <typename T>
  static T Load(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  }

  const FunctionSignature& sig_;
  DLTensor* const* args_;
  DLDevice buffers_on_;
  std::map<std::string_view, Binding> bindings_;  // Keys point into sig_.
  std::vector<ByteRange> ranges_;                  // Of the buffers, once checked.
};

}  // namespace

std::string DescribeDevice(DLDevice device) {
  const char* name = nullptr;
  switch (device.device_type) {
    case kDLCPU:
      name = "cpu";
      break;
    case kDLCUDA:
      name = "cuda";
      break;
    case kDLCUDAHost:
      name = "cuda_host";
      break;
    case kDLOpenCL:
      name = "opencl";
      break;
    case kDLVulkan:
      name = "vulkan";
      break;
    case kDLMetal:
      name = "metal";
      break;
    case kDLROCM:
      name = "rocm";
      break;
    case kDLCUDAManaged:
      name = "cuda_managed";
      break;
    default:
      break;
  }
  std::string s = name ? name : "device_type " + std::to_string(device.device_type);
  return s + ":" + std::to_string(device.device_id);
}

std::string CheckWrittenDisjoint(const FunctionSignature& sig,
                                 const std::vector<ByteRange>& ranges) {
  auto overlap = [](const ByteRange& a, const ByteRange& b) {
    return a.begin < a.end && b.begin < b.end && a.begin < b.end && b.begin < a.end;
  };
  for (size_t i = 0; i < sig.params.size() && i < ranges.size(); ++i) {
    if (!sig.params[i].is_buffer || !sig.params[i].written) continue;
    for (size_t j = 0; j < sig.params.size() && j < ranges.size(); ++j) {
      if (j == i || !sig.params[j].is_buffer || !overlap(ranges[i], ranges[j])) continue;
      return DescribeSignature(sig) + ": argument " + std::to_string(i) + " (" +
             sig.params[i].name + ") shares memory with argument " + std::to_string(j) + " (" +
             sig.params[j].name + "); the function writes " + sig.params[i].name +
             ", so it may not overlap another argument (pass a copy)";
    }
  }
  return "";
}

std::string PackArguments(const FunctionSignature& sig, DLTensor* const* args, int32_t num_args,
                          PackedArgs* out, DLDevice buffers_on) {
  return Checker(sig, args, buffers_on).Run(num_args, out);
}

CallOutcome CheckAndCall(const FunctionSignature& sig, TesselPackedFunc packed,
                         DLTensor* const* args, int32_t num_args) {
  PackedArgs values;
  if (std::string e = PackArguments(sig, args, num_args, &values); !e.empty()) {
    return {CallOutcome::kBadArgument, std::move(e)};
  }
  if (packed(values.values.data(), values.size()) == 0) return {};
  std::string message = tessel_last_error();
  return {CallOutcome::kKernelFailed,
          sig.name + ": " + (message.empty() ? "the kernel failed without a message" : message)};
}

}  // namespace tessel::runtime

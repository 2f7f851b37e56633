// WrittenBuffers (see written_buffers.h).
#include "ir/written_buffers.h"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "ir/packed_functions.h"
#include "ir/visitor.h"

namespace tessel::ir {
namespace {

class WrittenBufferVisitor : public IRVisitor {
 public:
  std::set<const BufferNode*> written;

  void VisitDeclBuffer(const DeclBufferNode* op) override {
    if (op->source.defined()) views_[op->buffer.get()] = op->source.get();
    IRVisitor::VisitDeclBuffer(op);
  }
  void VisitBufferStore(const BufferStoreNode* op) override {
    Mark(op->buffer.get());
    IRVisitor::VisitBufferStore(op);
  }
  void VisitBlock(const BlockNode* op) override {
    for (const BufferRegion& r : op->writes) Mark(r.buffer.get());
    IRVisitor::VisitBlock(op);
  }
  void VisitCall(const CallNode* op) override {
    if (op->callee == CallNode::Callee::kPacked) {
      std::optional<std::vector<int32_t>> written = PackedFunctionWrittenArgs(op->name);
      for (size_t i = 0; i < op->args.size(); ++i) {
        const auto* addr = dyn_cast<CallNode>(op->args[i]);
        if (addr == nullptr || addr->callee != CallNode::Callee::kAddressOf) continue;
        if (written && std::find(written->begin(), written->end(), static_cast<int32_t>(i)) ==
                           written->end()) {
          continue;
        }
        if (const auto* load = dyn_cast<BufferLoadNode>(addr->args[0])) {
          Mark(load->buffer.get());
        }
      }
    }
    IRVisitor::VisitCall(op);
  }

 private:
  void Mark(const BufferNode* b) {
    // A view is declared before the statements that store through it.
    for (int hops = 0; b != nullptr && hops < 64; ++hops) {
      written.insert(b);
      auto it = views_.find(b);
      b = it == views_.end() ? nullptr : it->second;
    }
  }
  std::map<const BufferNode*, const BufferNode*> views_;
};

}  // namespace

std::set<const BufferNode*> WrittenBuffers(const PrimFunc& func) {
  WrittenBufferVisitor v;
  if (func && func->body.defined()) v.VisitStmt(func->body);
  return v.written;
}

}  // namespace tessel::ir

// The ELF checks before dlopen (see shared_object_check.h).
#include "codegen/runtime/shared_object_check.h"

#include <elf.h>

#include <cstdint>
#include <cstring>

namespace tessel::runtime {
namespace {

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
constexpr const char* kHostMachineName = "x86-64";
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
constexpr const char* kHostMachineName = "AArch64";
#else
#error "tessel's runtime knows the ELF machine of x86-64 and AArch64 hosts only"
#endif

// Whether [offset, offset + size) lies inside a file of `file_size` bytes, without
// overflow.
bool Inside(uint64_t offset, uint64_t size, uint64_t file_size) {
  return offset <= file_size && size <= file_size - offset;
}

std::string SegmentKind(uint32_t type) {
  switch (type) {
    case PT_LOAD:
      return "LOAD";
    case PT_DYNAMIC:
      return "DYNAMIC";
    case PT_INTERP:
      return "INTERP";
    case PT_NOTE:
      return "NOTE";
    case PT_TLS:
      return "TLS";
    case PT_GNU_EH_FRAME:
      return "GNU_EH_FRAME";
    default:
      return "type " + std::to_string(type);
  }
}

// Whether `size` bytes at virtual address `vaddr` lie in the file-backed part of one
// LOAD segment: where the loader will find them.
bool Mapped(std::string_view bytes, const Elf64_Ehdr& eh, uint64_t vaddr, uint64_t size) {
  for (uint16_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, bytes.data() + eh.e_phoff + uint64_t{i} * sizeof(ph), sizeof(ph));
    if (ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr && Inside(vaddr - ph.p_vaddr, size, ph.p_filesz)) {
      return true;
    }
  }
  return false;
}

// The dynamic section the loader walks: it must end, and the tables it names (strings,
// symbols, their hash) must be present and mapped, or dlopen and dlsym follow wild
// pointers (a file whose tail was zeroed keeps valid headers and an empty section).
std::string CheckDynamic(std::string_view bytes, const Elf64_Ehdr& eh) {
  const Elf64_Phdr* dynamic = nullptr;
  Elf64_Phdr ph;
  for (uint16_t i = 0; i < eh.e_phnum && dynamic == nullptr; ++i) {
    std::memcpy(&ph, bytes.data() + eh.e_phoff + uint64_t{i} * sizeof(ph), sizeof(ph));
    if (ph.p_type == PT_DYNAMIC) dynamic = &ph;
  }
  if (dynamic == nullptr) return "no dynamic segment: not a shared library";
  uint64_t strtab = 0, strsz = 0, symtab = 0, hash = 0;
  bool ended = false;
  for (uint64_t at = 0; at + sizeof(Elf64_Dyn) <= dynamic->p_filesz && !ended;
       at += sizeof(Elf64_Dyn)) {
    Elf64_Dyn d;
    std::memcpy(&d, bytes.data() + dynamic->p_offset + at, sizeof(d));
    switch (d.d_tag) {
      case DT_NULL:
        ended = true;
        break;
      case DT_STRTAB:
        strtab = d.d_un.d_ptr;
        break;
      case DT_STRSZ:
        strsz = d.d_un.d_val;
        break;
      case DT_SYMTAB:
        symtab = d.d_un.d_ptr;
        break;
      case DT_HASH:
      case DT_GNU_HASH:
        hash = d.d_un.d_ptr;
        break;
      default:
        break;
    }
  }
  if (!ended) return "the dynamic section does not end inside its segment: the file is damaged";
  if (strtab == 0 || strsz == 0 || symtab == 0 || hash == 0) {
    return "the dynamic section lacks its string, symbol or hash table: the file is damaged";
  }
  if (!Mapped(bytes, eh, strtab, strsz) || !Mapped(bytes, eh, symtab, sizeof(Elf64_Sym)) ||
      !Mapped(bytes, eh, hash, 16)) {
    return "the dynamic section points outside the loaded segments: the file is damaged";
  }
  return "";
}

}  // namespace

std::string CheckSharedObject(std::string_view bytes) {
  const uint64_t size = bytes.size();
  if (size < SELFMAG || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) {
    return "not an ELF file (" + std::to_string(size) + " bytes, without the ELF magic number)";
  }
  Elf64_Ehdr eh;
  if (size < sizeof(eh)) {
    return "the ELF header is cut short (" + std::to_string(size) + " bytes): the file is truncated";
  }
  std::memcpy(&eh, bytes.data(), sizeof(eh));
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) return "not a 64-bit ELF file";
  if (eh.e_ident[EI_DATA] != ELFDATA2LSB) return "not a little-endian ELF file";
  if (eh.e_type != ET_DYN) {
    return "not a shared object (ELF type " + std::to_string(eh.e_type) +
           (eh.e_type == ET_REL ? ", an object file: link it with export_library" : "") + ")";
  }
  if (eh.e_machine != kHostMachine) {
    return "built for ELF machine " + std::to_string(eh.e_machine) + ", this machine is " +
           kHostMachineName;
  }
  if (eh.e_phnum == 0) return "no program headers: nothing to load";
  if (eh.e_phentsize != sizeof(Elf64_Phdr) ||
      !Inside(eh.e_phoff, uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr), size)) {
    return "the program header table lies outside the file (" + std::to_string(size) +
           " bytes): the file is truncated or damaged";
  }
  for (uint16_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, bytes.data() + eh.e_phoff + uint64_t{i} * sizeof(ph), sizeof(ph));
    if (!Inside(ph.p_offset, ph.p_filesz, size)) {
      return "segment " + std::to_string(i) + " (" + SegmentKind(ph.p_type) + ") ends at byte " +
             std::to_string(ph.p_offset + ph.p_filesz) + ", past the end of the file (" +
             std::to_string(size) + " bytes): the file is truncated";
    }
    if (ph.p_type == PT_LOAD && ph.p_filesz > ph.p_memsz) {
      return "segment " + std::to_string(i) + " (LOAD) holds more bytes in the file than in memory";
    }
  }
  if (eh.e_shnum != 0 &&
      (eh.e_shentsize != sizeof(Elf64_Shdr) ||
       !Inside(eh.e_shoff, uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr), size))) {
    return "the section header table lies outside the file (" + std::to_string(size) +
           " bytes): the file is truncated";
  }
  return CheckDynamic(bytes, eh);
}

}  // namespace tessel::runtime

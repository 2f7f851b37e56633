// Checking a shared library's bytes before dlopen maps them: dlopen trusts the file,
// and a truncated or damaged one ends the process (SIGBUS, SIGSEGV) inside the
// loader instead of failing.
//
//   std::string why = CheckSharedObject(bytes);
//   // "" for a whole ELF shared object of this machine's kind; otherwise e.g.
//   // "not an ELF file (it starts with '\x7fELG')", "segment 2 (LOAD) ends at byte
//   // 16384, past the end of the file (9000 bytes): the file is truncated".
//
// Plain C++ (libtessel_runtime uses it): the ELF structures come from <elf.h>.
#ifndef TESSEL_CODEGEN_RUNTIME_SHARED_OBJECT_CHECK_H_
#define TESSEL_CODEGEN_RUNTIME_SHARED_OBJECT_CHECK_H_

#include <string>
#include <string_view>

namespace tessel::runtime {

// "" when `bytes` hold a 64-bit ELF shared object for this machine's architecture and
// byte order whose headers, segments and section table all lie inside the file and
// whose dynamic section ends and names string, symbol and hash tables the segments
// map; otherwise what is wrong. A file damaged in ways that keep all of that (a
// corrupted instruction, a wrong relocation) is beyond what can be checked.
std::string CheckSharedObject(std::string_view bytes);

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_SHARED_OBJECT_CHECK_H_

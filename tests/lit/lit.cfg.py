# lit configuration for tessel's FileCheck tests.
#
#   // RUN: tessel-opt %s | FileCheck %s
#   // CHECK: func @matmul
#
# Tools are found in the build's bin/ first, then LLVM's (FileCheck, not).
import os

import lit.formats

config.name = "tessel"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".tsl", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tessel_obj_root, "tests", "lit")

config.environment["PATH"] = os.pathsep.join(
    [config.tessel_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
config.substitutions.append(("%tessel_src", config.tessel_src_root))
config.substitutions.append(("%examples", os.path.join(config.tessel_src_root, "tools", "examples")))

# The CUDA toolkit's ptxas checks generated PTX, and its libdevice provides GPU math
# (`REQUIRES: ptxas` for both); where the toolkit is absent those tests report
# UNSUPPORTED.
cuda_home = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
ptxas = os.path.join(cuda_home, "bin", "ptxas")
if os.access(ptxas, os.X_OK):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
else:
    lit_config.note("no ptxas at %s: the PTX checks are skipped (set CUDA_HOME)" % ptxas)

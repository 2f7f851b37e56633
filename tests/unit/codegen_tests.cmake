# Codegen units: JIT-compiled functions against the interpreter. A binary of its
# own because it links MLIR and LLVM.
add_executable(tessel_codegen_tests
  codegen_test_util.cc
  codegen_jit_test.cc
  codegen_math_test.cc
  codegen_target_test.cc
  codegen_gpu_library_test.cc
  codegen_library_test.cc
  codegen_tensorize_test.cc
  op_library_cases.cc
)
target_link_libraries(tessel_codegen_tests PRIVATE tessel_build tessel_codegen tessel_runtime tessel_passes tessel_te
                      tessel_schedule tessel_ir GTest::gtest GTest::gmock GTest::gtest_main)
gtest_discover_tests(tessel_codegen_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)

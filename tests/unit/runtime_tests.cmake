# The runtime units (codegen/runtime/): signatures and their metadata text, argument
# checks (one test per error path), the thread pool, NDArray and DLPack, the time
# evaluator, export and load. The hand-written kernels of tests/c/ stand in for
# compiled code: linked in for in-process modules, exported for the load tests.
add_executable(tessel_runtime_tests
  runtime_arg_check_test.cc
  runtime_cuda_program_test.cc
  runtime_cuda_test.cc
  runtime_extent_expr_test.cc
  runtime_export_test.cc
  runtime_graph_program_test.cc
  runtime_graph_runner_memory_test.cc
  runtime_ndarray_test.cc
  runtime_signature_test.cc
  runtime_thread_pool_test.cc
  runtime_time_evaluator_test.cc
  $<TARGET_OBJECTS:tessel_c_test_kernels>
)
target_compile_definitions(tessel_runtime_tests PRIVATE
  TESSEL_TEST_KERNELS_OBJECT="$<TARGET_OBJECTS:tessel_c_test_kernels>")
target_link_libraries(tessel_runtime_tests PRIVATE tessel_runtime_cc tessel_ir
                      GTest::gtest GTest::gmock GTest::gtest_main)
gtest_discover_tests(tessel_runtime_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)

# The runtime over code tessel compiles (JIT and exported objects): a binary of its
# own, so that the units above need no MLIR or LLVM.
add_executable(tessel_runtime_codegen_tests runtime_jit_module_test.cc)
target_link_libraries(tessel_runtime_codegen_tests PRIVATE tessel_codegen tessel_runtime_cc tessel_ir
                      GTest::gtest GTest::gmock GTest::gtest_main)
gtest_discover_tests(tessel_runtime_codegen_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)

# The te units: the compute DSL, CreatePrimFunc, every op against a C++
# reference in the interpreter, and the workloads. A binary of their own so the
# op library builds and runs apart from the IR core's units.
add_executable(tessel_te_tests
  te_dsl_test.cc
  te_elementwise_test.cc
  te_errors_test.cc
  te_linalg_test.cc
  te_nn_test.cc
  te_reduce_test.cc
  te_transform_test.cc
  te_workloads_test.cc
)
target_link_libraries(tessel_te_tests PRIVATE tessel_te tessel_verifier tessel_ir GTest::gtest GTest::gmock
                      GTest::gtest_main)
gtest_discover_tests(tessel_te_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)

# Units of the lowering passes (passes/lowering/): what lit cannot express --
# the whole op library and the small workloads through `lower` against the
# interpreter, symbolic shapes, and the lowered-form check.
add_executable(tessel_lowering_tests
  lowering_library_test.cc
  lowering_passes_test.cc
)
target_link_libraries(tessel_lowering_tests PRIVATE tessel_passes tessel_te tessel_schedule tessel_ir
                      GTest::gtest GTest::gtest_main)
gtest_discover_tests(tessel_lowering_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)

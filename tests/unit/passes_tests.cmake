# Units of the pass infrastructure (passes/): a binary of their own, each test its
# own ctest entry. It links `tessel_passes` (whole-archive), so the registry tests
# also check that self-registering passes survive linking.
add_executable(tessel_pass_tests
  pass_context_test.cc
  pass_docs_examples_test.cc
  pass_instruments_test.cc
  pass_manager_test.cc
  pass_options_test.cc
  pass_pipeline_test.cc
  pass_registry_test.cc
  pass_semantic_check_test.cc
  pass_transforms_test.cc
)
target_link_libraries(tessel_pass_tests PRIVATE tessel_passes tessel_ir GTest::gtest GTest::gtest_main)
gtest_discover_tests(tessel_pass_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)

# The schedule rules, design spaces and the default-schedule pass (metaschedule/):
# draws against the interpreter, transactional rules, traces, the machine model.
add_executable(tessel_metaschedule_tests metaschedule_test.cc metaschedule_tasks_test.cc
               tuning_search_test.cc tuning_cost_model_test.cc
               op_library_cases.cc)
target_link_libraries(tessel_metaschedule_tests PRIVATE tessel_metaschedule tessel_te tessel_ir
                      GTest::gtest GTest::gtest_main)
gtest_discover_tests(tessel_metaschedule_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)

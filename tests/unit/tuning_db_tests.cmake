# The tuning database (metaschedule/database/): SQLite round trips, kill -9,
# concurrent writers, refused files, merge and JSON lines.
add_executable(tessel_tuning_db_tests tuning_db_test.cc)
target_link_libraries(tessel_tuning_db_tests PRIVATE tessel_tuning_db tessel_te tessel_ir
                      GTest::gtest GTest::gmock GTest::gtest_main)
gtest_discover_tests(tessel_tuning_db_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 300)
# Measuring in worker processes (metaschedule/measure/) and the tune loop: failures
# injected into real workers, results committed and resumed.
add_executable(tessel_tuning_measure_tests tuning_measure_test.cc)
target_link_libraries(tessel_tuning_measure_tests PRIVATE tessel_measure tessel_te tessel_ir
                      GTest::gtest GTest::gtest_main)
add_dependencies(tessel_tuning_measure_tests tessel-tune-worker)
gtest_discover_tests(tessel_tuning_measure_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 300)

# Library dispatch (dispatch/): the runtime shims on bad arguments and their
# primitive cache, the rule registry, the matchers, every small workload through
# dispatch-library checked by the interpreter, and the IR's packed calls.
add_executable(tessel_dispatch_tests dispatch_test.cc)
target_link_libraries(tessel_dispatch_tests PRIVATE tessel_dispatch tessel_te tessel_ir
                      GTest::gtest GTest::gmock GTest::gtest_main)
gtest_discover_tests(tessel_dispatch_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)

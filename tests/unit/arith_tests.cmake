# The arith units: simplifier, bounds, integer sets, iter maps and regions,
# with seeded property tests against the reference interpreter. A binary of
# their own, like the te units.
add_executable(tessel_arith_tests
  arith_analyzer_test.cc
  arith_bound_test.cc
  arith_expr_util_test.cc
  arith_int_set_test.cc
  arith_iter_map_property_test.cc
  arith_iter_map_test.cc
  arith_property_test.cc
  arith_region_test.cc
  arith_rules_test.cc
  arith_simplify_test.cc
  arith_test_util.cc
)
target_link_libraries(tessel_arith_tests PRIVATE tessel_verifier tessel_arith tessel_ir GTest::gtest GTest::gmock
                      GTest::gtest_main)
gtest_discover_tests(tessel_arith_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)

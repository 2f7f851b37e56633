# Units of the graph level (ir/graph_function.h, ir/graph/, passes/graph/).
add_executable(tessel_graph_tests
  graph_test.cc
)
target_link_libraries(tessel_graph_tests PRIVATE tessel_passes tessel_graph tessel_ir GTest::gtest GTest::gtest_main)
gtest_discover_tests(tessel_graph_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)

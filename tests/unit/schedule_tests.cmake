# The schedule units (ir/schedule/): every primitive before/after, against the
# interpreter on random inputs, one negative test per legality rule, traces
# (Python, JSON, replay) and the manual-schedule pass.
add_executable(tessel_schedule_tests
  schedule_annotate_test.cc
  schedule_blockize_test.cc
  schedule_compute_at_test.cc
  schedule_compute_inline_test.cc
  schedule_compute_sample_test.cc
  schedule_cache_reindex_test.cc
  schedule_cache_scope_test.cc
  schedule_cache_te_test.cc
  schedule_cache_write_test.cc
  schedule_trace_json_test.cc
  schedule_loop_kind_test.cc
  schedule_loop_partition_test.cc
  schedule_pad_einsum_test.cc
  schedule_parallel_race_test.cc
  schedule_parallel_rule_test.cc
  schedule_pass_test.cc
  schedule_property_cache_moves.cc
  schedule_property_compute_moves.cc
  schedule_property_moves.cc
  schedule_property_structure_moves.cc
  schedule_property_ops.cc
  schedule_property_test.cc
  schedule_reduction_decompose_test.cc
  schedule_reduction_rfactor_test.cc
  schedule_reorder_test.cc
  schedule_rules_cache_test.cc
  schedule_rules_compute_at_test.cc
  schedule_rules_inline_test.cc
  schedule_rules_layout_test.cc
  schedule_rules_loop_kind_test.cc
  schedule_rules_reduction_test.cc
  schedule_rules_structure_test.cc
  schedule_split_fuse_test.cc
  schedule_tensorize_test.cc
  schedule_trace_test.cc
  schedule_trace_python_test.cc
  schedule_transform_layout_test.cc
)
target_link_libraries(tessel_schedule_tests PRIVATE tessel_passes tessel_schedule tessel_te tessel_ir
                      GTest::gtest GTest::gmock GTest::gtest_main)
gtest_discover_tests(tessel_schedule_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)

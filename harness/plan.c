/* placeholder */ typedef int placeholder_harness_plan_c;

/* placeholder */ typedef int placeholder_harness_experiment_c;
